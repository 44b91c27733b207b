package io.hbaseqos.operator.topology;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Lifecycle;
import io.fabric8.kubernetes.api.model.LifecycleBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.HBaseClusterSpec;
import io.hbaseqos.operator.api.MastersSpec;
import io.hbaseqos.operator.api.PodVolume;
import io.hbaseqos.operator.api.DesiredQuotas;
import io.hbaseqos.operator.api.QuotaSettingsSpec;
import io.hbaseqos.operator.quota.RuntimeSetting;
import io.hbaseqos.operator.api.RegionServersSpec;
import io.hbaseqos.operator.api.TopologySpec;
import io.hbaseqos.operator.quota.Durations;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Kubernetes objects of an HBaseCluster's topology, from its spec and the plan. Pure: builds
 * objects, writes nothing. Every object carries the hash of its own content
 * ({@value #HASH}), so the writer skips objects already as desired; the pod templates carry the
 * hash of the configuration ({@value #CONFIG_HASH}), so a configuration change rolls the
 * RegionServers (one at a time) while a change of the replica count restarts none.
 */
public final class ClusterObjects {
  public static final String MANAGED_BY = "hbase-qos-operator";
  public static final String CLUSTER_LABEL = "hbaseqos.io/cluster";
  public static final String COMPONENT_LABEL = "app.kubernetes.io/component";
  public static final String HASH = "hbaseqos.io/desired-hash";
  public static final String CONFIG_HASH = "hbaseqos.io/config-hash";
  public static final String REGIONSERVER = "regionserver";
  public static final String MASTER = "master";
  public static final String HOSTNAME_KEY = "kubernetes.io/hostname";
  static final String MOVER_HEAP = "256m";
  static final String REVERSE_DNS_OFF = "hbase.regionserver.hostname.disable.master.reversedns";
  static final int MOVER_THREADS = 4;

  private ClusterObjects() {}

  public static String regionServers(HBaseCluster hc) {
    return hc.getMetadata().getName() + "-regionserver";
  }

  public static String masters(HBaseCluster hc) {
    return hc.getMetadata().getName() + "-master";
  }

  public static String config(HBaseCluster hc) {
    return hc.getMetadata().getName() + "-hbase-site";
  }

  public static Map<String, String> labels(HBaseCluster hc, String component) {
    Map<String, String> l = new LinkedHashMap<>();
    l.put("app.kubernetes.io/name", "hbase");
    l.put("app.kubernetes.io/instance", hc.getMetadata().getName());
    l.put(COMPONENT_LABEL, component);
    l.put("app.kubernetes.io/managed-by", MANAGED_BY);
    l.put(CLUSTER_LABEL, hc.getMetadata().getName());
    return l;
  }

  static Map<String, String> selector(HBaseCluster hc, String component) {
    return Map.of(CLUSTER_LABEL, hc.getMetadata().getName(), COMPONENT_LABEL, component);
  }

  /** hbase-site.xml properties of the cluster: the spec's fields, then siteProperties (validated not to overlap). */
  public static Map<String, String> siteProperties(HBaseClusterSpec spec) {
    TopologySpec t = spec.getTopology();
    RegionServersSpec rs = t.getRegionServers();
    QuotaSettingsSpec q = spec.getQuotas() == null ? new QuotaSettingsSpec() : spec.getQuotas();
    Map<String, String> p = new TreeMap<>();
    p.put("hbase.cluster.distributed", "true");
    p.put("hbase.rootdir", t.getRootDir());
    p.put("hbase.zookeeper.quorum", spec.getConnection().getZookeeperQuorum());
    p.put("zookeeper.znode.parent", spec.getConnection().getZnodeParent() == null ? "/hbase"
        : spec.getConnection().getZnodeParent());
    p.put("hbase.quota.enabled", String.valueOf(!Boolean.FALSE.equals(q.getEnabled())));
    p.put("hbase.quota.refresh.period", String.valueOf(Durations.parse(q.getRefreshPeriod(),
        QuotaSettingsSpec.DEFAULT_REFRESH).toMillis()));
    try {
      for (RuntimeSetting r : DesiredQuotas.runtimeSettings(q)) {
        if (r.value() != null) {
          p.put(r.key().key(), r.value());
        }
      }
    } catch (DesiredQuotas.Invalid e) {
      // the reconciler refuses an invalid spec before it plans the topology
    }
    p.put("hbase.regionserver.handler.count", String.valueOf(rs.getHandlerCount()));
    p.put("hfile.block.cache.size", String.valueOf(rs.getBlockCacheFraction()));
    p.put("hbase.regionserver.global.memstore.size", String.valueOf(rs.getMemstoreFraction()));
    Map<String, String> extra = rs.getSiteProperties() == null ? Map.of() : rs.getSiteProperties();
    if (!extra.containsKey("hbase.regionserver.hostname") && !extra.containsKey("hbase.unsafe.regionserver.hostname")) {
      // RegionServers register under their own name (the pod's DNS name), not the one the master's
      // reverse lookup of their IP gives: a new pod's DNS record can lag its first connection, and
      // HBase aborts a RegionServer the master renames ("Master passed us a different hostname")
      p.put(REVERSE_DNS_OFF, "true");
    }
    p.putAll(extra);
    return p;
  }

  public static String siteXml(Map<String, String> props) {
    StringBuilder sb = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
    new TreeMap<>(props).forEach((k, v) -> sb.append("  <property><name>").append(xml(k)).append("</name><value>")
        .append(xml(v)).append("</value></property>\n"));
    return sb.append("</configuration>\n").toString();
  }

  private static String xml(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  public static List<HasMetadata> desired(HBaseCluster hc, TopologyPlanner.Plan plan) {
    TopologySpec t = hc.getSpec().getTopology();
    String ns = hc.getMetadata().getNamespace();
    String site = siteXml(siteProperties(hc.getSpec()));
    List<HasMetadata> out = new ArrayList<>();
    ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName(config(hc)).withNamespace(ns)
        .withLabels(labels(hc, "config")).endMetadata().addToData("hbase-site.xml", site).build();
    out.add(cm);
    out.add(headless(hc, REGIONSERVER, regionServers(hc), 16020, 16030));
    out.add(headless(hc, MASTER, masters(hc), 16000, 16010));
    RegionServersSpec rs = t.getRegionServers();
    List<String> rsOpts = new ArrayList<>(List.of("-Xms" + Memory.jvm(plan.heap()), "-Xmx" + Memory.jvm(plan.heap())));
    if (rs.getJvmOptions() != null) {
      rsOpts.addAll(rs.getJvmOptions());
    }
    String configHash = hash(site + "\n" + String.join(" ", rsOpts) + "\n" + t.getImage());
    out.add(statefulSet(hc, REGIONSERVER, regionServers(hc), plan.replicas(), rsOpts, plan.containerMemory(),
        rs.getCpu(), configHash, 16020, 16030, rs.getNodeSelector(), rs.getTolerations(),
        // whole seconds, rounded up: 1500ms is a grace of 2s, never less than written
        (Durations.parse(rs.getGracefulShutdown(), java.time.Duration.ofSeconds(120)).toMillis() + 999) / 1000,
        rs.getMinReadySeconds() == null ? RegionServersSpec.DEFAULT_MIN_READY_SECONDS : rs.getMinReadySeconds(), true));
    MastersSpec m = t.getMasters() == null ? new MastersSpec() : t.getMasters();
    long mHeap = Memory.parse(m.getHeap());
    List<String> mOpts = List.of("-Xms" + Memory.jvm(mHeap), "-Xmx" + Memory.jvm(mHeap));
    out.add(statefulSet(hc, MASTER, masters(hc), m.getReplicas(), mOpts, mHeap + TopologyPlanner.overhead(mHeap),
        m.getCpu(), hash(site + "\n" + String.join(" ", mOpts) + "\n" + t.getImage()), 16000, 16010, Map.of(),
        List.of(), 60, 0, false));
    if (!Boolean.FALSE.equals(t.getPodDisruptionBudget())) {
      out.add(pdb(hc, REGIONSERVER, regionServers(hc)));
      out.add(pdb(hc, MASTER, masters(hc)));
    }
    OwnerReference owner = new OwnerReferenceBuilder().withApiVersion(hc.getApiVersion()).withKind(hc.getKind())
        .withName(hc.getMetadata().getName()).withUid(hc.getMetadata().getUid()).withController(true)
        .withBlockOwnerDeletion(true).build();
    for (HasMetadata o : out) {
      o.getMetadata().setOwnerReferences(List.of(owner));
      Map<String, String> ann = new LinkedHashMap<>();
      ann.put(HASH, hash(io.fabric8.kubernetes.client.utils.Serialization.asJson(o)));
      o.getMetadata().setAnnotations(ann);
    }
    return out;
  }

  private static Service headless(HBaseCluster hc, String component, String name, int rpc, int info) {
    return new ServiceBuilder().withNewMetadata().withName(name).withNamespace(hc.getMetadata().getNamespace())
        .withLabels(labels(hc, component)).endMetadata().withNewSpec().withClusterIP("None")
        .withPublishNotReadyAddresses(true).withSelector(selector(hc, component))
        .addNewPort().withName("rpc").withPort(rpc).withTargetPort(new IntOrString(rpc)).endPort()
        .addNewPort().withName("info").withPort(info).withTargetPort(new IntOrString(info)).endPort()
        .endSpec().build();
  }

  private static StatefulSet statefulSet(HBaseCluster hc, String component, String name, int replicas,
      List<String> jvmOpts, long memory, String cpu, String configHash, int rpc, int info,
      Map<String, String> nodeSelector, List<io.fabric8.kubernetes.api.model.Toleration> tolerations,
      long gracePeriod, int minReadySeconds, boolean spreadExactly) {
    TopologySpec t = hc.getSpec().getTopology();
    LabelSelector sel = new LabelSelectorBuilder().withMatchLabels(selector(hc, component)).build();
    Map<String, Quantity> requests = new LinkedHashMap<>();
    requests.put("memory", new Quantity(Memory.quantity(memory)));
    if (cpu != null) {
      requests.put("cpu", new Quantity(cpu));
    }
    // the restricted Pod Security Standard: non-root, no privilege escalation, no capabilities,
    // the runtime's seccomp profile (host paths, which it also forbids, only where the platform allows)
    PodSecurityContextBuilder security = new PodSecurityContextBuilder().withRunAsNonRoot(true)
        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile();
    if (t.getRunAsUser() != null) {
      security.withRunAsUser(t.getRunAsUser()).withRunAsGroup(t.getRunAsUser()).withFsGroup(t.getRunAsUser());
    }
    PodSpecBuilder pod = new PodSpecBuilder()
        .withSecurityContext(security.build())
        .withNodeSelector(nodeSelector == null || nodeSelector.isEmpty() ? null : new TreeMap<>(nodeSelector))
        .withTolerations(tolerations == null || tolerations.isEmpty() ? null : tolerations)
        .withTerminationGracePeriodSeconds(gracePeriod)
        .addNewContainer().withName(component).withImage(hc.getSpec().getTopology().getImage())
        .withCommand("hbase", component, "start")
        .addNewEnv().withName("HBASE_CONF_DIR").withValue("/etc/hbase").endEnv()
        .addNewEnv().withName(REGIONSERVER.equals(component) ? "HBASE_REGIONSERVER_OPTS" : "HBASE_MASTER_OPTS")
        .withValue(String.join(" ", jvmOpts)).endEnv()
        .addNewPort().withName("rpc").withContainerPort(rpc).endPort()
        .addNewPort().withName("info").withContainerPort(info).endPort()
        .withNewReadinessProbe().withNewTcpSocket().withPort(new IntOrString(rpc)).endTcpSocket()
        .withPeriodSeconds(10).endReadinessProbe()
        .withResources(new ResourceRequirementsBuilder().withRequests(requests)
            .withLimits(Map.of("memory", new Quantity(Memory.quantity(memory)))).build())
        .addNewVolumeMount().withName(PodVolume.CONF).withMountPath("/etc/hbase").withReadOnly(true).endVolumeMount()
        .addAllToVolumeMounts(t.getVolumeMounts() == null ? List.of() : t.getVolumeMounts())
        .withNewSecurityContext().withAllowPrivilegeEscalation(false).withNewCapabilities().withDrop("ALL")
        .endCapabilities().endSecurityContext()
        .withLifecycle(REGIONSERVER.equals(component) ? unloadBeforeStop(gracePeriod) : null)
        .endContainer()
        .addNewVolume().withName(PodVolume.CONF).withNewConfigMap().withName(config(hc)).endConfigMap().endVolume()
        .addAllToVolumes(t.getVolumes() == null ? List.of()
            : t.getVolumes().stream().map(PodVolume::toVolume).toList());
    if (spreadExactly) {
      // maxSkew 1 over the pool's nodes with replicas = nodes x replicasPerNode leaves only one layout:
      // exactly replicasPerNode on every node. Nodes outside the pool or tainted do not count.
      pod.withTopologySpreadConstraints(new TopologySpreadConstraintBuilder().withMaxSkew(1)
          .withTopologyKey(HOSTNAME_KEY).withWhenUnsatisfiable("DoNotSchedule").withLabelSelector(sel)
          .withNodeAffinityPolicy("Honor").withNodeTaintsPolicy("Honor").build());
    } else {
      pod.withNewAffinity().withNewPodAntiAffinity().addNewPreferredDuringSchedulingIgnoredDuringExecution()
          .withWeight(100).withNewPodAffinityTerm().withTopologyKey(HOSTNAME_KEY).withLabelSelector(sel)
          .endPodAffinityTerm().endPreferredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().endAffinity();
    }
    return new StatefulSetBuilder().withNewMetadata().withName(name).withNamespace(hc.getMetadata().getNamespace())
        .withLabels(labels(hc, component)).endMetadata()
        .withNewSpec().withReplicas(replicas).withServiceName(name).withPodManagementPolicy("Parallel")
        // a restarted RegionServer's port opens before it registers with the master; the next
        // pod's preStop can only move regions to RegionServers the master knows
        .withMinReadySeconds(minReadySeconds > 0 ? minReadySeconds : null)
        .withSelector(sel)
        .withNewUpdateStrategy().withType("RollingUpdate").endUpdateStrategy()
        .withNewTemplate().withNewMetadata().withLabels(labels(hc, component))
        .withAnnotations(Map.of(CONFIG_HASH, configHash)).endMetadata().withSpec(pod.build()).endTemplate()
        .endSpec().build();
  }

  /**
   * A RegionServer's preStop hook: HBase's RegionMover moves its regions to the other
   * RegionServers while it still serves them (what HBase's graceful_stop.sh does), so a deleted or
   * rolled pod leaves no region unassigned while the master notices it is gone. It runs in the
   * RegionServer's container, in a small JVM of its own ({@value #MOVER_HEAP} heap, inside the
   * planner's off-heap overhead), and gives up after three quarters of the grace period, leaving
   * the rest to the RegionServer's own shutdown (SIGTERM closes what is left). With no other
   * RegionServer online it moves nothing.
   */
  static Lifecycle unloadBeforeStop(long gracePeriodSeconds) {
    long timeout = Math.max(1, gracePeriodSeconds * 3 / 4);
    return new LifecycleBuilder().withNewPreStop().withNewExec().withCommand("sh", "-c",
        "HBASE_HEAPSIZE=" + MOVER_HEAP + " exec hbase org.apache.hadoop.hbase.util.RegionMover"
            + " -r \"$(hostname -f)\" -o unload -m " + MOVER_THREADS + " -t " + timeout)
        .endExec().endPreStop().build();
  }

  private static PodDisruptionBudget pdb(HBaseCluster hc, String component, String name) {
    return new PodDisruptionBudgetBuilder().withNewMetadata().withName(name)
        .withNamespace(hc.getMetadata().getNamespace()).withLabels(labels(hc, component)).endMetadata()
        .withNewSpec().withMaxUnavailable(new IntOrString(1))
        .withSelector(new LabelSelectorBuilder().withMatchLabels(selector(hc, component)).build()).endSpec().build();
  }

  static String hash(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)))
          .substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
