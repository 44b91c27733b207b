package io.hbaseqos.operator.reconciler;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.ownership.RetainedSubjects;
import io.hbaseqos.operator.quota.Subject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

/**
 * Retained subjects in one ConfigMap per HBaseCluster ({@code <cluster>-retained-quotas}, owned by
 * it): one key per subject (a hash; the value is the subject as {@code user=u,table=ns:t}). Keys are
 * added and removed with merge patches, so concurrent deletions never lose each other's entries.
 * Deleting a key by hand lets {@code unmanagedPolicy: Remove} remove that subject's quotas.
 */
public final class ConfigMapRetainedSubjects implements RetainedSubjects {
  static final String SUFFIX = "-retained-quotas";
  private final KubernetesClient client;

  public ConfigMapRetainedSubjects(KubernetesClient client) {
    this.client = client;
  }

  static String name(HBaseCluster hc) {
    return hc.getMetadata().getName() + SUFFIX;
  }

  static String keyOf(Subject s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(s.toString().getBytes(StandardCharsets.UTF_8));
      return "s-" + HexFormat.of().formatHex(d, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void retain(HBaseCluster hc, Subject subject) {
    var maps = client.configMaps().inNamespace(hc.getMetadata().getNamespace());
    String patch = "{\"data\":{\"" + keyOf(subject) + "\":" + json(subject.toString()) + "}}";
    try {
      maps.withName(name(hc)).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName(name(hc))
          .withNamespace(hc.getMetadata().getNamespace())
          .addToLabels("app.kubernetes.io/managed-by", "hbase-qos-operator")
          .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion(hc.getApiVersion()).withKind(hc.getKind())
              .withName(hc.getMetadata().getName()).withUid(hc.getMetadata().getUid()).build())
          .endMetadata().withData(Map.of(keyOf(subject), subject.toString())).build();
      try {
        maps.resource(cm).create();
      } catch (KubernetesClientException conflict) {
        if (conflict.getCode() != 409) {
          throw conflict;
        }
        maps.withName(name(hc)).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      }
    }
  }

  @Override
  public void forget(HBaseCluster hc, Subject subject) {
    try {
      client.configMaps().inNamespace(hc.getMetadata().getNamespace()).withName(name(hc))
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"" + keyOf(subject) + "\":null}}");
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  @Override
  public Set<Subject> retained(Collection<HBaseCluster> clusters) {
    Set<Subject> out = new HashSet<>();
    for (HBaseCluster hc : clusters) {
      ConfigMap cm = client.configMaps().inNamespace(hc.getMetadata().getNamespace()).withName(name(hc)).get();
      if (cm != null && cm.getData() != null) {
        cm.getData().values().forEach(v -> {
          Subject s = parse(v);
          if (s != null) {
            out.add(s);
          }
        });
      }
    }
    return out;
  }

  /** The inverse of {@link Subject#toString()}. */
  static Subject parse(String text) {
    String user = null;
    String ns = null;
    String table = null;
    for (String part : text.split(",")) {
      int i = part.indexOf('=');
      if (i < 0) {
        return null;
      }
      String v = part.substring(i + 1);
      switch (part.substring(0, i)) {
        case "user" -> user = v;
        case "namespace" -> ns = v;
        case "table" -> table = v;
        default -> {
          return null;
        }
      }
    }
    return Subject.storable(user, ns, table);
  }

  private static String json(String s) {
    return io.fabric8.kubernetes.client.utils.Serialization.asJson(s);
  }
}
