package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.TopologyStatus;
import io.hbaseqos.operator.support.ControlPlane;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.Kubectl;
import io.hbaseqos.operator.support.Nodes;
import io.hbaseqos.operator.support.OperatorHarness;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Placement with a real scheduler: the real kube-scheduler and kube-controller-manager
 * (StatefulSet controller, garbage collector) place the RegionServer pods the operator declares on
 * kwok nodes of different sizes. The assertions read the pods' nodes as the scheduler chose them.
 */
class TopologySchedulingIT {
  static KubernetesClient k8s;
  static ControlPlane controlPlane;
  static OperatorHarness operator;
  static String ns;

  @BeforeAll
  static void start() {
    k8s = KubeApi.client();
    controlPlane = ControlPlane.start();
    operator = new OperatorHarness(k8s);
    ns = KubeApi.newNamespace("sched");
  }

  @AfterAll
  static void stop() {
    KubeApi.cleanUp(Set.of(ns));
    operator.close();
    Nodes.deletePool(k8s, ns);
    controlPlane.close();
  }

  /** RegionServer pods per node as scheduled (from the pods themselves), "" for unscheduled ones. */
  static Map<String, Integer> scheduled() {
    Map<String, Integer> m = new TreeMap<>();
    for (Pod p : k8s.pods().inNamespace(ns).withLabel("app.kubernetes.io/component", "regionserver").list().getItems()) {
      if (p.getMetadata().getDeletionTimestamp() == null) {
        m.merge(p.getSpec().getNodeName() == null ? "" : p.getSpec().getNodeName(), 1, Integer::sum);
      }
    }
    return m;
  }

  static List<Pod> regionServerPods() {
    return k8s.pods().inNamespace(ns).withLabel("app.kubernetes.io/component", "regionserver").list().getItems()
        .stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
  }

  static boolean ready(Pod p) {
    return p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  static Set<String> configHashOfPods() {
    return regionServerPods().stream().map(p -> p.getMetadata().getAnnotations().get("hbaseqos.io/config-hash"))
        .collect(java.util.stream.Collectors.toSet());
  }

  static HBaseCluster get() {
    return k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").get();
  }

  static String condition(String type, boolean reason) {
    HBaseCluster hc = get();
    return hc.getStatus() == null ? null : hc.getStatus().condition(type)
        .map(c -> reason ? c.getReason() : c.getStatus()).orElse(null);
  }

  @Test
  void regionServersLandExactlyReplicasPerNodeScaleOutBalancedAndACordonIsReported() {
    String pool = ns;
    Nodes.createKwok(k8s, ns + "-a", pool, "64Gi");
    Nodes.createKwok(k8s, ns + "-b", pool, "64Gi");
    Nodes.createKwok(k8s, ns + "-c", pool, "128Gi");
    // a RegionServer pod of another namespace's cluster of the same name must not count here
    String other = KubeApi.newNamespace("sched-other");
    k8s.pods().inNamespace(other).resource(new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata()
        .withName("hb-regionserver-0").withLabels(io.hbaseqos.operator.topology.ClusterObjects.labels(
            TopologyIT.cluster(other, "hb", pool, 1, rs -> { }), "regionserver")).endMetadata()
        .withNewSpec().withNodeSelector(Map.of("no-such-node", "x")).addNewContainer().withName("c").withImage("x")
        .endContainer().endSpec().build()).create();
    // (kwok's pods are Ready at once: a second between restarts instead of the 20 s a RegionServer needs to register)
    HBaseCluster hc = TopologyIT.cluster(ns, "hb", pool, 2, rs -> {
      rs.setTolerations(List.of(new TolerationBuilder()
          .withKey("kwok.x-k8s.io/node").withOperator("Exists").withEffect("NoSchedule").build()));
      rs.setMinReadySeconds(1);
    });
    k8s.resource(hc).create();

    await().atMost(120, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(scheduled()).as(() -> "status " + io.fabric8.kubernetes.client.utils.Serialization.asJson(
          get().getStatus()) + "\nnodes " + k8s.nodes().list().getItems().stream().map(n -> n.getMetadata().getName()
          + n.getMetadata().getLabels() + n.getSpec().getTaints()).toList() + "\n" + controlPlane.logTails(15))
          .isEqualTo(
          Map.of(ns + "-a", 2, ns + "-b", 2, ns + "-c", 2));
      assertThat(condition("Balanced", false)).isEqualTo("True");
      assertThat(condition("RegionServersReady", false)).isEqualTo("True");
      TopologyStatus ts = get().getStatus().getTopology();
      assertThat(ts.getRegionServersPerNode()).isEqualTo(Map.of(ns + "-a", 2, ns + "-b", 2, ns + "-c", 2));
      assertThat(ts.getReadyRegionServers()).isEqualTo(6);
    });
    TopologyStatus ts = get().getStatus().getTopology();
    assertThat(ts.getWarnings()).singleElement().asString().contains("node sizes differ");

    // a configuration change rolls the RegionServers, never more than one of them down at a time
    String before = configHashOfPods().iterator().next();
    TopologyIT.edit(ns, h -> h.getSpec().getTopology().getRegionServers().setHandlerCount(45));
    int worst = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    Set<String> hashes;
    do {
      List<Pod> rs = regionServerPods();
      int ready = (int) rs.stream().filter(TopologySchedulingIT::ready).count();
      worst = Math.max(worst, 6 - ready);
      hashes = configHashOfPods();
      assertThat(System.nanoTime()).as("rollout not finished in 120 s").isLessThan(deadline);
    } while (hashes.size() != 1 || hashes.contains(before) || regionServerPods().stream().filter(TopologySchedulingIT::ready)
        .count() != 6);
    assertThat(worst).as("RegionServers down at once during the rollout").isLessThanOrEqualTo(1);

    // a node joins the pool: two more RegionServers, both on it
    Nodes.createKwok(k8s, ns + "-d", pool, "64Gi");
    await().atMost(120, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(scheduled()).isEqualTo(Map.of(ns + "-a", 2, ns + "-b", 2, ns + "-c", 2, ns + "-d", 2));
      assertThat(condition("Balanced", false)).isEqualTo("True");
      assertThat(get().getStatus().getTopology().getDesiredRegionServers()).isEqualTo(8);
      // pods pending during the scale-out were reported under ""; the status must drop that key again
      assertThat(get().getStatus().getTopology().getRegionServersPerNode())
          .isEqualTo(Map.of(ns + "-a", 2, ns + "-b", 2, ns + "-c", 2, ns + "-d", 2));
    });

    // cordoning a node is reported (its RegionServers keep running until it is drained)
    Kubectl.Result r = Kubectl.run("cordon", ns + "-b");
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(condition("Balanced", true)).isEqualTo("NodeCordoned");
      assertThat(get().getStatus().getTopology().getCordonedNodes()).containsExactly(ns + "-b");
      assertThat(get().getStatus().getTopology().getDesiredRegionServers()).isEqualTo(6);
    });
    assertThat(k8s.v1().events().inNamespace(ns).list().getItems())
        .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("NodeCordoned"));
    assertThat(k8s.v1().events().inNamespace(ns).list().getItems()).filteredOn(e -> "Scaled".equals(e.getReason()))
        .extracting(e -> e.getMessage().replaceAll(" \\(.*", ""))
        .as("each change of the plan announced once").containsExactlyInAnyOrder("RegionServers 6 -> 8", "RegionServers 8 -> 6");

    // a node leaving the pool while its RegionServers stay: the layout is unbalanced, and said so
    r = Kubectl.run("uncordon", ns + "-b");
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(scheduled()).isEqualTo(Map.of(ns + "-a", 2, ns + "-b", 2, ns + "-c", 2, ns + "-d", 2));
      assertThat(condition("Balanced", false)).isEqualTo("True");
    });
    r = Kubectl.run("label", "node", ns + "-a", "hbaseqos.io/test-pool-");
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(condition("Balanced", true)).isEqualTo("Unbalanced");
      assertThat(k8s.v1().events().inNamespace(ns).list().getItems()).anySatisfy(e -> {
        assertThat(e.getReason()).isEqualTo("Unbalanced");
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getMessage()).contains(ns + "-a=2 (not in the pool)");
      });
    });

    // deleting the cluster removes its objects through their owner references (garbage collector)
    k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").delete();
    await().atMost(90, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(k8s.apps().statefulSets().inNamespace(ns).list().getItems()).isEmpty());
  }
}
