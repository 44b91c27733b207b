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
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashMap;
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
  }
}
