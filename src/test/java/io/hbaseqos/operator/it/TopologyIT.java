package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.PodVolume;
import io.hbaseqos.operator.api.RegionServersSpec;
import io.hbaseqos.operator.api.TopologySpec;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.Nodes;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.StandaloneHBase;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HBaseCluster topology on a real API server: the objects created, updated and left alone as the
 * spec and the node pool change (no scheduler here; placement is TopologySchedulingE2E).
 */
class TopologyIT {
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static final Set<String> NAMESPACES = new java.util.HashSet<>();
  static final Set<String> POOLS = new java.util.HashSet<>();

  @BeforeAll
  static void start() {
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
  }

  @AfterAll
  static void stop() {
    KubeApi.cleanUp(NAMESPACES);
    operator.close();
    POOLS.forEach(p -> Nodes.deletePool(k8s, p));
  }

  static HBaseCluster cluster(String ns, String name, String pool, int perNode, Consumer<RegionServersSpec> more) {
    ConnectionSpec conn = StandaloneHBase.shared().connectionSpec();
    HBaseCluster hc = Resources.cluster(ns, name, conn, "2s");
    TopologySpec t = new TopologySpec();
    t.setImage("apache/hbase:2.6.4");
    t.setRootDir("hdfs://namenode:8020/hbase");
    RegionServersSpec rs = new RegionServersSpec();
    rs.setNodeSelector(Map.of("hbaseqos.io/test-pool", pool));
    rs.setReplicasPerNode(perNode);
    more.accept(rs);
    t.setRegionServers(rs);
    hc.getSpec().setTopology(t);
    return hc;
  }

  static StatefulSet sts(String ns, String name) {
    return k8s.apps().statefulSets().inNamespace(ns).withName(name).get();
  }

  static HBaseCluster get(String ns, String name) {
    return k8s.resources(HBaseCluster.class).inNamespace(ns).withName(name).get();
  }

  static String configHash(StatefulSet s) {
    return s.getSpec().getTemplate().getMetadata().getAnnotations().get("hbaseqos.io/config-hash");
  }

  /** A new namespace whose name is also the pool label of the nodes the test creates; both cleaned up after. */
  static String newPool(String prefix) {
    String ns = KubeApi.newNamespace(prefix);
    NAMESPACES.add(ns);
    POOLS.add(ns);
    return ns;
  }

  @Test
  void objectsFollowTheSpecAndTheNodePoolAndASettledClusterWritesNothing() throws Exception {
    String ns = newPool("topo");
    String pool = ns;
    Nodes.createReady(k8s, ns + "-n1", pool, "64Gi");
    Nodes.createReady(k8s, ns + "-n2", pool, "64Gi");
    k8s.resource(cluster(ns, "hb", pool, 2, rs -> rs.setHandlerCount(40))).create();

    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> objects(ns)); // all seven (StatefulSets after their ConfigMap and Service)
    StatefulSet rs = sts(ns, "hb-regionserver");
    assertThat(rs.getSpec().getReplicas()).as("2 nodes x 2").isEqualTo(4);
    var pod = rs.getSpec().getTemplate().getSpec();
    var c = pod.getContainers().get(0);
    // (64Gi - 4Gi reserve) / 2 = 30Gi per RegionServer: 25g heap + 5Gi off-heap
    assertThat(c.getEnv()).anySatisfy(e -> assertThat(e.getValue()).isEqualTo("-Xms25g -Xmx25g"));
    assertThat(c.getResources().getLimits().get("memory").toString()).isEqualTo("30Gi");
    assertThat(c.getResources().getRequests().get("memory").toString()).isEqualTo("30Gi");
    assertThat(pod.getNodeSelector()).containsEntry("hbaseqos.io/test-pool", pool);
    assertThat(pod.getTopologySpreadConstraints()).singleElement().satisfies(t -> {
      assertThat(t.getMaxSkew()).isEqualTo(1);
      assertThat(t.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
      assertThat(t.getWhenUnsatisfiable()).isEqualTo("DoNotSchedule");
    });
    assertThat(rs.getSpec().getUpdateStrategy().getType()).isEqualTo("RollingUpdate");
    ConfigMap cm = k8s.configMaps().inNamespace(ns).withName("hb-hbase-site").get();
    assertThat(cm.getData().get("hbase-site.xml"))
        .contains("<property><name>hbase.quota.refresh.period</name><value>30000</value></property>")
        .contains("<property><name>hbase.regionserver.handler.count</name><value>40</value></property>")
        .contains("<property><name>hbase.rootdir</name><value>hdfs://namenode:8020/hbase</value></property>")
        .contains("<property><name>hbase.regionserver.hostname.disable.master.reversedns</name><value>true</value>"
            + "</property>");
    assertThat(k8s.services().inNamespace(ns).withName("hb-regionserver").get().getSpec().getClusterIP()).isEqualTo("None");
    assertThat(k8s.policy().v1().podDisruptionBudget().inNamespace(ns).withName("hb-regionserver").get().getSpec()
        .getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(sts(ns, "hb-master").getSpec().getReplicas()).isEqualTo(2);
    HBaseCluster hc = get(ns, "hb");
    for (HasMetadata o : objects(ns)) {
      assertThat(o.getMetadata().getOwnerReferences()).as(o.getKind()).singleElement()
          .satisfies(r -> assertThat(r.getUid()).isEqualTo(hc.getMetadata().getUid()));
    }
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      var ts = get(ns, "hb").getStatus().getTopology();
      assertThat(ts.getDesiredRegionServers()).isEqualTo(4);
      assertThat(ts.getHeap()).isEqualTo("25g");
      assertThat(ts.getMemory()).isEqualTo("30Gi");
      assertThat(ts.getBlockCache()).isEqualTo("10Gi per RegionServer (40% of the heap), 40Gi in all");
      assertThat(ts.getNodes()).isEqualTo(2);
    });

    // settled (connected to HBase, RefreshPeriodMatches read): several resyncs later, nothing was written
    await().atMost(60, TimeUnit.SECONDS).until(() -> get(ns, "hb").getStatus().condition("Ready")
        .map(x -> "True".equals(x.getStatus())).orElse(false)
        && get(ns, "hb").getStatus().condition("RefreshPeriodMatches").isPresent());
    Thread.sleep(3000);
    Map<String, String> versions = versions(ns);
    String statusVersion = get(ns, "hb").getMetadata().getResourceVersion();
    Thread.sleep(6000);
    assertThat(versions(ns)).isEqualTo(versions);
    assertThat(get(ns, "hb").getMetadata().getResourceVersion()).isEqualTo(statusVersion);

    // a restarted operator takes the seven objects over as they are: after three resyncs, none rewritten
    operator = operator.restarted();
    OperatorHarness restarted = operator;
    await().atMost(60, TimeUnit.SECONDS).until(() -> restarted.hbaseCalls(
        io.hbaseqos.operator.cluster.ClusterConnections.key(ns, "hb"), "readAll") >= 3);
    assertThat(versions(ns)).as("nothing rewritten after a restart").isEqualTo(versions);

    // a node joins: two more RegionServers, running ones are not restarted (same pod template)
    String hash = configHash(sts(ns, "hb-regionserver"));
    Nodes.createReady(k8s, ns + "-n3", pool, "64Gi");
    await().atMost(30, TimeUnit.SECONDS).until(() -> sts(ns, "hb-regionserver").getSpec().getReplicas() == 6);
    assertThat(configHash(sts(ns, "hb-regionserver"))).isEqualTo(hash);

    // a configuration change rolls them (new template hash); the ConfigMap follows
    edit(ns, h -> h.getSpec().getTopology().getRegionServers().setHandlerCount(60));
    await().atMost(30, TimeUnit.SECONDS).until(() -> !configHash(sts(ns, "hb-regionserver")).equals(hash));
    assertThat(k8s.configMaps().inNamespace(ns).withName("hb-hbase-site").get().getData().get("hbase-site.xml"))
        .contains("<name>hbase.regionserver.handler.count</name><value>60</value>");

    // declared quota settings go into hbase-site.xml and roll the RegionServers too; the servers
    // this cluster connects to (the standalone HBase, not these pods) run without the default user
    // quota, and the condition says the written values apply once the RegionServers restart
    String handlerHash = configHash(sts(ns, "hb-regionserver"));
    edit(ns, h -> {
      var rl = new io.hbaseqos.operator.api.RateLimiterSpec();
      rl.setType(io.hbaseqos.operator.api.RateLimiterSpec.Type.FixedInterval);
      rl.setRefillInterval("100ms");
      h.getSpec().getQuotas().setRateLimiter(rl);
      h.getSpec().getQuotas().setDefaultUserQuotas(List.of(
          io.hbaseqos.operator.api.ThrottleSpec.shell(io.hbaseqos.operator.quota.ThrottleKind.REQUEST_NUMBER, "500req/sec")));
    });
    await().atMost(30, TimeUnit.SECONDS).until(() -> !configHash(sts(ns, "hb-regionserver")).equals(handlerHash));
    assertThat(k8s.configMaps().inNamespace(ns).withName("hb-hbase-site").get().getData().get("hbase-site.xml"))
        .contains("<name>hbase.quota.rate.limiter</name><value>org.apache.hadoop.hbase.quotas.FixedIntervalRateLimiter</value>")
        .contains("<name>hbase.quota.rate.limiter.refill.interval.ms</name><value>100</value>")
        .contains("<name>hbase.quota.default.user.machine.request.num</name><value>500</value>")
        .doesNotContain("hbase.quota.default.user.machine.read.num");
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      var cond = get(ns, "hb").getStatus().condition("QuotaSettingsMatch").orElseThrow();
      assertThat(cond.getStatus()).isEqualTo("False");
      // (the standalone HBase runs the fixed-interval limiter with a 100 ms refill, as declared)
      assertThat(cond.getMessage()).startsWith("hbase.quota.default.user.machine.request.num is unset on ")
          .contains("declared 500 (spec.quotas.defaultUserQuotas REQUEST_NUMBER)")
          .endsWith("the operator has written the declared values to hbase-site.xml; RegionServers started before "
              + "still run with the old ones until they restart");
    });

    // paused: spec changes are not applied, and the condition says so
    edit(ns, h -> {
      h.getSpec().getTopology().setPaused(true);
      h.getSpec().getTopology().getRegionServers().setHandlerCount(80);
    });
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(get(ns, "hb").getStatus()
        .condition("ReconciliationPaused").get().getStatus()).isEqualTo("True"));
    assertThat(k8s.configMaps().inNamespace(ns).withName("hb-hbase-site").get().getData().get("hbase-site.xml"))
        .contains("<value>60</value>").doesNotContain("<value>80</value>");
  }

  static void edit(String ns, Consumer<HBaseCluster> change) {
    Resources.editCluster(KubeApi.client(), ns, "hb", change);
  }

  static List<HasMetadata> objects(String ns) {
    List<HasMetadata> out = new java.util.ArrayList<>();
    out.addAll(k8s.apps().statefulSets().inNamespace(ns).list().getItems());
    out.addAll(k8s.configMaps().inNamespace(ns).withLabel("hbaseqos.io/cluster").list().getItems());
    out.addAll(k8s.services().inNamespace(ns).withLabel("hbaseqos.io/cluster").list().getItems());
    out.addAll(k8s.policy().v1().podDisruptionBudget().inNamespace(ns).list().getItems());
    assertThat(out).hasSize(7);
    return out;
  }

  static Map<String, String> versions(String ns) {
    Map<String, String> v = new java.util.TreeMap<>();
    objects(ns).forEach(o -> v.put(o.getKind() + "/" + o.getMetadata().getName(), o.getMetadata().getResourceVersion()));
    return v;
  }

  /**
   * Each object is a dependent read from an informer of its kind: one deleted by hand comes back
   * as it was (the others are not written); a budget turned off is not written until it is on, and
   * one turned off again is kept (JOSDK would delete a dependent whose precondition stops holding).
   */
  @Test
  void eachObjectIsADependentThatComesBackWhenDeletedAndABudgetTurnedOffIsNotWritten() {
    String ns = newPool("topo-dep");
    Nodes.createReady(k8s, ns + "-n1", ns, "64Gi");
    HBaseCluster hc = cluster(ns, "hb", ns, 1, rs -> { });
    hc.getSpec().getTopology().setPodDisruptionBudget(false);
    k8s.resource(hc).create();
    await().atMost(60, TimeUnit.SECONDS).ignoreExceptions().untilAsserted(() -> {
      assertThat(sts(ns, "hb-regionserver")).isNotNull();
      assertThat(sts(ns, "hb-master")).isNotNull();
      assertThat(get(ns, "hb").getStatus().getTopology().getDesiredRegionServers()).isEqualTo(1);
    });
    assertThat(k8s.policy().v1().podDisruptionBudget().inNamespace(ns).list().getItems()).isEmpty();
    Service service = k8s.services().inNamespace(ns).withName("hb-regionserver").get();
    ConfigMap config = k8s.configMaps().inNamespace(ns).withName("hb-hbase-site").get();
    String rsVersion = sts(ns, "hb-regionserver").getMetadata().getResourceVersion();
    String masterVersion = sts(ns, "hb-master").getMetadata().getResourceVersion();

    k8s.resource(service).delete();
    k8s.resource(config).delete();
    await().atMost(30, TimeUnit.SECONDS).ignoreExceptions().untilAsserted(() -> {
      Service back = k8s.services().inNamespace(ns).withName("hb-regionserver").get();
      assertThat(back.getMetadata().getUid()).isNotEqualTo(service.getMetadata().getUid());
      assertThat(back.getMetadata().getAnnotations()).isEqualTo(service.getMetadata().getAnnotations());
      assertThat(back.getSpec().getPorts()).isEqualTo(service.getSpec().getPorts());
      assertThat(back.getMetadata().getManagedFields()).extracting(f -> f.getManager())
          .containsExactly("hbase-qos-operator");
      ConfigMap cm = k8s.configMaps().inNamespace(ns).withName("hb-hbase-site").get();
      assertThat(cm.getMetadata().getUid()).isNotEqualTo(config.getMetadata().getUid());
      assertThat(cm.getData()).isEqualTo(config.getData());
    });
    assertThat(sts(ns, "hb-regionserver").getMetadata().getResourceVersion()).as("not written").isEqualTo(rsVersion);
    assertThat(sts(ns, "hb-master").getMetadata().getResourceVersion()).as("not written").isEqualTo(masterVersion);

    edit(ns, h -> h.getSpec().getTopology().setPodDisruptionBudget(true));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(k8s.policy().v1().podDisruptionBudget()
        .inNamespace(ns).list().getItems()).extracting(b -> b.getMetadata().getName())
        .containsExactlyInAnyOrder("hb-regionserver", "hb-master"));
    Map<String, String> budgets = new java.util.TreeMap<>();
    k8s.policy().v1().podDisruptionBudget().inNamespace(ns).list().getItems()
        .forEach(b -> budgets.put(b.getMetadata().getName(), b.getMetadata().getUid()));

    // off again: kept as they are, and the cluster goes on (a handler count change still reaches the ConfigMap)
    edit(ns, h -> {
      h.getSpec().getTopology().setPodDisruptionBudget(false);
      h.getSpec().getTopology().getRegionServers().setHandlerCount(45);
    });
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(k8s.configMaps().inNamespace(ns)
        .withName("hb-hbase-site").get().getData().get("hbase-site.xml"))
        .contains("<name>hbase.regionserver.handler.count</name><value>45</value>"));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(get(ns, "hb").getStatus()
        .getObservedGeneration()).isEqualTo(get(ns, "hb").getMetadata().getGeneration()));
    assertThat(get(ns, "hb").getStatus().condition("Ready").map(c -> c.getReason()).orElse(""))
        .isNotEqualTo("InvalidSpec");
    Map<String, String> kept = new java.util.TreeMap<>();
    k8s.policy().v1().podDisruptionBudget().inNamespace(ns).list().getItems()
        .forEach(b -> kept.put(b.getMetadata().getName(), b.getMetadata().getUid()));
    assertThat(kept).as("the same budgets, not deleted").isEqualTo(budgets);
  }

  @Test
  void aPoolTooSmallIsRefusedNamingTheNodeAndNothingIsDeployed() {
    String ns = newPool("topo-bad");
    Nodes.createReady(k8s, ns + "-tiny", ns, "8Gi");
    k8s.resource(cluster(ns, "hb", ns, 4, rs -> { })).create();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      var ready = get(ns, "hb").getStatus().condition("Ready").get();
      assertThat(ready.getReason()).isEqualTo("InvalidSpec");
      assertThat(ready.getMessage()).contains("node " + ns + "-tiny has 8Gi allocatable").contains("replicasPerNode=4");
    });
    assertThat(k8s.apps().statefulSets().inNamespace(ns).list().getItems()).isEmpty();
    assertThat(k8s.configMaps().inNamespace(ns).withLabel("hbaseqos.io/cluster").list().getItems()).isEmpty();
  }

  @Test
  void volumesAreMountedInEveryPodAndOneTheApiServerRefusesBecomesTheClustersCondition() {
    String ns = newPool("topo-vol");
    Nodes.createReady(k8s, ns + "-n1", ns, "64Gi");
    HBaseCluster hc = cluster(ns, "hb", ns, 1, rs -> rs.setGracefulShutdown("80s"));
    hc.getSpec().getTopology().setVolumes(List.of(
        new PodVolume("hadoop-conf", Map.of("configMap", Map.of("name", "hadoop-conf"))),
        new PodVolume("root", Map.of("persistentVolumeClaim", Map.of("claimName", "hbase-root")))));
    hc.getSpec().getTopology().setVolumeMounts(List.of(
        new VolumeMountBuilder().withName("hadoop-conf").withMountPath("/opt/hbase/conf/hdfs-site.xml")
            .withSubPath("hdfs-site.xml").withReadOnly(true).build(),
        new VolumeMountBuilder().withName("root").withMountPath("/srv/hbase").build()));
    k8s.resource(hc).create();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> objects(ns));
    for (String name : List.of("hb-regionserver", "hb-master")) {
      var pod = sts(ns, name).getSpec().getTemplate().getSpec();
      assertThat(pod.getVolumes()).extracting(v -> v.getName()).containsExactly("conf", "hadoop-conf", "root");
      assertThat(pod.getVolumes().get(1).getConfigMap().getName()).isEqualTo("hadoop-conf");
      assertThat(pod.getVolumes().get(2).getPersistentVolumeClaim().getClaimName()).isEqualTo("hbase-root");
      assertThat(pod.getContainers().get(0).getVolumeMounts()).extracting(m -> m.getMountPath())
          .containsExactly("/etc/hbase", "/opt/hbase/conf/hdfs-site.xml", "/srv/hbase");
    }
    // RegionServers move their regions away before they stop, and a roll waits for a restarted one
    StatefulSet rs = sts(ns, "hb-regionserver");
    assertThat(rs.getSpec().getMinReadySeconds()).isEqualTo(20);
    assertThat(rs.getSpec().getTemplate().getSpec().getContainers().get(0).getLifecycle().getPreStop().getExec()
        .getCommand()).containsExactly("sh", "-c", "HBASE_HEAPSIZE=256m exec hbase org.apache.hadoop.hbase.util.RegionMover"
            + " -r \"$(hostname -f)\" -o unload -m 4 -t 60");
    assertThat(sts(ns, "hb-master").getSpec().getTemplate().getSpec().getContainers().get(0).getLifecycle()).isNull();

    // a source the CRD admits but the API server refuses (a claim without its name)
    edit(ns, h -> h.getSpec().getTopology().setVolumes(List.of(
        new PodVolume("hadoop-conf", Map.of("configMap", Map.of("name", "hadoop-conf"))),
        new PodVolume("root", Map.of("persistentVolumeClaim", Map.of("readOnly", true))))));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      var ready = get(ns, "hb").getStatus().condition("Ready").get();
      assertThat(ready.getReason()).isEqualTo("InvalidSpec");
      assertThat(ready.getMessage()).contains("the API server refused StatefulSet hb-regionserver")
          .contains("persistentVolumeClaim.claimName");
    });
    // a host path, which this operator's installation does not allow: refused before anything is written
    edit(ns, h -> h.getSpec().getTopology().setVolumes(List.of(
        new PodVolume("hadoop-conf", Map.of("configMap", Map.of("name", "hadoop-conf"))),
        new PodVolume("root", Map.of("hostPath", Map.of("path", "/srv/hbase", "type", "Directory"))))));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(get(ns, "hb").getStatus().condition("Ready")
        .get().getMessage()).isEqualTo("spec.topology.volumes[1].hostPath: this operator's installation does not "
            + "allow host paths (Helm value topology.allowHostPath); use a persistentVolumeClaim"));
    assertThat(sts(ns, "hb-regionserver").getSpec().getTemplate().getSpec().getVolumes().get(2)
        .getPersistentVolumeClaim().getClaimName()).isEqualTo("hbase-root");
  }
}
