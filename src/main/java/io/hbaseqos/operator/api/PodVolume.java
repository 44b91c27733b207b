package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.ConfigMapVolumeSource;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimVolumeSource;
import io.fabric8.kubernetes.api.model.SecretVolumeSource;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A volume of the master and RegionServer pods, in the Kubernetes Volume format: a name and one
 * source (configMap, secret, hostPath, persistentVolumeClaim, ...). The CRD checks the name and
 * keeps the source as written ({@link Schema}: the full Volume schema would make the CRD too large
 * for a client-side {@code kubectl apply}); the API server checks the source when the operator
 * writes the StatefulSets, and a refusal becomes the cluster's condition.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodVolume {
  /** The volume of the operator's hbase-site.xml ConfigMap. */
  public static final String CONF = "conf";

  private String name;

  @JsonIgnore
  private final Map<String, Object> source = new LinkedHashMap<>();

  public PodVolume() {}

  public PodVolume(String name, Map<String, Object> source) {
    this.name = name;
    this.source.putAll(source);
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  /** The volume's source (everything but its name), as written. */
  @JsonAnyGetter
  public Map<String, Object> source() {
    return source;
  }

  @JsonAnySetter
  public void source(String key, Object value) {
    source.put(key, value);
  }

  /** The Kubernetes volume. */
  public Volume toVolume() {
    Map<String, Object> v = new LinkedHashMap<>(source);
    v.put("name", name);
    return Serialization.unmarshal(Serialization.asJson(v), Volume.class);
  }

  /** The CRD schema of a volume: the name checked, the source kept as written. */
  @PreserveUnknownFields
  static final class Schema {
    @Required
    @Size(max = 63)
    @ValidationRule(value = "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
        message = "volume name must be a DNS label such as hadoop-conf")
    @ValidationRule(value = "self != 'conf'", message = "the volume name 'conf' is the operator's (hbase-site.xml)")
    @JsonPropertyDescription("Volume name, referenced by volumeMounts.")
    public String name;

    // the common sources are declared, so a misspelled field inside them is refused (kubectl) or
    // dropped with a warning like any other; the operator refuses unknown fields of any source
    public ConfigMapVolumeSource configMap;
    public SecretVolumeSource secret;
    public HostPathVolumeSource hostPath;
    public PersistentVolumeClaimVolumeSource persistentVolumeClaim;
    public EmptyDirVolumeSource emptyDir;
  }

  /**
   * The fields of this volume that are not fields of a Kubernetes volume (a misspelling, or a field of
   * a newer Kubernetes), each as {@code field} followed by its path, e.g. {@code .configMap.items[0].kye}.
   */
  public List<String> unknownFields(String field) {
    List<String> out = new ArrayList<>();
    unknown(toVolume(), field, out);
    out.sort(null);
    return out;
  }

  private static void unknown(Object o, String path, List<String> out) {
    if (o instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        unknown(list.get(i), path + "[" + i + "]", out);
      }
      return;
    }
    if (o == null || !o.getClass().getPackageName().startsWith("io.fabric8.kubernetes.api.model")) {
      return;
    }
    for (java.lang.reflect.Method m : o.getClass().getMethods()) {
      // the model's JSON fields are its annotated getters; what it did not know is in its any-getter
      com.fasterxml.jackson.annotation.JsonProperty property = m.getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
      boolean extra = m.isAnnotationPresent(JsonAnyGetter.class);
      if (m.getParameterCount() != 0 || (property == null && !extra)) {
        continue;
      }
      try {
        Object v = m.invoke(o);
        if (extra) {
          if (v instanceof Map<?, ?> fields) {
            fields.keySet().forEach(k -> out.add(path + "." + k));
          }
        } else {
          unknown(v, path + "." + property.value(), out);
        }
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
