package io.hbaseqos.operator.reconciler;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Retained subjects in one ConfigMap per HBase, in the operator's own namespace
 * ({@code hbaseqos-retained-<hash of the HBase cluster id>}, annotated with the cluster id, owned by
 * nothing): it outlives the tenant's namespace, the HBaseCluster and its namespace, so a Retain in a
 * namespace being deleted always finishes (a terminating namespace refuses new objects) and a later
 * {@code unmanagedPolicy: Remove} on that HBase still keeps what was retained. One key per subject
 * (a hash; the value is the subject as {@code user=u,table=ns:t}), added and removed with merge
 * patches, so concurrent deletions never lose each other's entries. Deleting a key by hand lets
 * {@code Remove} remove that subject's quotas.
 *
 * <p>While a cluster's HBase was never reached (its id unknown), its record is kept there too, named
 * after the HBaseCluster and annotated with it. Records that earlier versions wrote in
 * {@code <cluster>-retained-quotas} beside the HBaseCluster are still read; the operator edits them
 * only where it still may (the chart grants it no writes there).
 */
public final class ConfigMapRetainedSubjects implements RetainedSubjects {
  private static final Logger LOG = Logger.getLogger(ConfigMapRetainedSubjects.class);

  static final String SUFFIX = "-retained-quotas";
  static final String PREFIX = "hbaseqos-retained-";
  static final String CLUSTER_ID = "hbaseqos.io/hbase-cluster-id";
  /** On the record of a cluster whose HBase was never reached: that HBaseCluster, namespace/name. */
  static final String UNREACHED_CLUSTER = "hbaseqos.io/hbase-cluster";
  private final KubernetesClient client;
  private final String namespace;

  /** @param namespace the operator's own namespace, where the records are kept */
  public ConfigMapRetainedSubjects(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  static String name(HBaseCluster hc) {
    return hc.getMetadata().getName() + SUFFIX;
  }

  /**
   * The record of a cluster whose HBase was never reached (its identity unknown), also in the
   * operator's namespace: the chart lets the operator write ConfigMaps there only.
   */
  static String unreachedName(HBaseCluster hc) {
    return nameFor("unreached:" + hc.getMetadata().getNamespace() + "/" + hc.getMetadata().getName());
  }

  static String nameFor(String hbase) {
    return PREFIX + hash(hbase);
  }

  private static String hash(String s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String keyOf(Subject s) {
    return "s-" + hash(s.toString());
  }

  @Override
  public void retain(String hbase, HBaseCluster hc, Subject subject) {
    if (hbase != null) {
      put(namespace, nameFor(hbase), new ConfigMapBuilder().withNewMetadata().withName(nameFor(hbase))
          .withNamespace(namespace).addToLabels("app.kubernetes.io/managed-by", "hbase-qos-operator")
          .addToAnnotations(CLUSTER_ID, hbase).endMetadata(), subject);
      return;
    }
    put(namespace, unreachedName(hc), new ConfigMapBuilder().withNewMetadata().withName(unreachedName(hc))
        .withNamespace(namespace).addToLabels("app.kubernetes.io/managed-by", "hbase-qos-operator")
        .addToAnnotations(UNREACHED_CLUSTER, hc.getMetadata().getNamespace() + "/" + hc.getMetadata().getName())
        .endMetadata(), subject);
  }

  private void put(String ns, String name, ConfigMapBuilder fresh, Subject subject) {
    var maps = client.configMaps().inNamespace(ns);
    String patch = "{\"data\":{\"" + keyOf(subject) + "\":" + json(subject.toString()) + "}}";
    try {
      maps.withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      ConfigMap cm = fresh.withData(Map.of(keyOf(subject), subject.toString())).build();
      try {
        maps.resource(cm).create();
      } catch (KubernetesClientException conflict) {
        if (conflict.getCode() != 409) {
          throw conflict;
        }
        maps.withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      }
    }
  }

  @Override
  public void forget(String hbase, HBaseCluster hc, Subject subject) {
    if (hbase != null) {
      drop(namespace, nameFor(hbase), subject);
    }
    drop(namespace, unreachedName(hc), subject);
    dropLegacy(hc.getMetadata().getNamespace(), name(hc), subject);
  }

  /**
   * A record earlier versions kept beside the HBaseCluster: read (the operator may read ConfigMaps
   * where it watches), and edited only when it names the subject and the operator still may (the
   * chart no longer grants it): otherwise the subject stays retained there until the platform
   * deletes that ConfigMap, which keeps its quota out of {@code Remove}'s reach, never the reverse.
   */
  private void dropLegacy(String ns, String name, Subject subject) {
    ConfigMap cm = client.configMaps().inNamespace(ns).withName(name).get();
    if (cm == null || cm.getData() == null || !cm.getData().containsKey(keyOf(subject))) {
      return;
    }
    try {
      drop(ns, name, subject);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 403) {
        throw e;
      }
      LOG.warnf("%s stays in the record of retained quotas %s/%s that an earlier version kept: the operator may no "
          + "longer edit it; delete that ConfigMap once its tenants are gone", subject, ns, name);
    }
  }

  private void drop(String ns, String name, Subject subject) {
    try {
      client.configMaps().inNamespace(ns).withName(name)
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"data\":{\"" + keyOf(subject) + "\":null}}");
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  @Override
  public Set<Subject> retained(Collection<String> hbases, Collection<HBaseCluster> clusters) {
    Set<Subject> out = new HashSet<>();
    List<ConfigMap> maps = new java.util.ArrayList<>();
    for (String hbase : new java.util.TreeSet<>(hbases)) {
      maps.add(client.configMaps().inNamespace(namespace).withName(nameFor(hbase)).get());
    }
    for (HBaseCluster hc : clusters) {
      maps.add(client.configMaps().inNamespace(namespace).withName(unreachedName(hc)).get());
      maps.add(client.configMaps().inNamespace(hc.getMetadata().getNamespace()).withName(name(hc)).get());
    }
    for (ConfigMap cm : maps) {
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
