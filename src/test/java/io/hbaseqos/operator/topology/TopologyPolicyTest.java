package io.hbaseqos.operator.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.HBaseClusterSpec;
import io.hbaseqos.operator.api.PodVolume;
import io.hbaseqos.operator.api.TopologySpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where the platform lets HBaseClusters run pods, and the pods' security. */
class TopologyPolicyTest {

  static TopologySpec withVolume(PodVolume v) {
    TopologySpec t = TopologyChecksTest.topology();
    t.setVolumes(List.of(v));
    return t;
  }

  @Test
  void topologyOnlyInTheNamespacesTheChartListsAndHostPathsOnlyWhenAllowed() {
    TopologySpec hostPath = withVolume(new PodVolume("root", Map.of("hostPath", Map.of("path", "/"))));
    TopologySpec claim = withVolume(new PodVolume("root", Map.of("persistentVolumeClaim", Map.of("claimName", "r"))));
    TopologyPolicy chart = new TopologyPolicy(Optional.of(Set.of("hbase")), false);
    assertThat(chart.refusals("hbase", claim)).isEmpty();
    assertThat(chart.refusals("hbase", hostPath)).containsExactly("spec.topology.volumes[0].hostPath: this operator's "
        + "installation does not allow host paths (Helm value topology.allowHostPath); use a persistentVolumeClaim");
    assertThat(chart.refusals("kube-system", claim)).containsExactly("spec.topology: this operator does not run HBase "
        + "in namespace kube-system (the platform lists the namespaces it may in the Helm value topology.namespaces: "
        + "hbase)");
    assertThat(new TopologyPolicy(Optional.of(Set.of()), true).refusals("hbase", hostPath)).singleElement().asString()
        .endsWith("topology.namespaces, empty here)");
    assertThat(new TopologyPolicy(Optional.of(Set.of("hbase")), true).refusals("hbase", hostPath)).isEmpty();
    // an operator started without the chart: its RBAC is the bound; still no host paths
    assertThat(TopologyPolicy.DEFAULT.refusals("anywhere", claim)).isEmpty();
    assertThat(TopologyPolicy.DEFAULT.refusals("anywhere", hostPath)).hasSize(1);
    assertThat(chart.refusals("kube-system", null)).as("no topology, nothing asked").isEmpty();
  }

  @Test
  void theHBasePodsMeetTheRestrictedPodSecurityStandard() {
    HBaseCluster hc = new HBaseCluster();
    hc.setMetadata(new ObjectMetaBuilder().withName("hb").withNamespace("hbase").withUid("u").build());
    HBaseClusterSpec spec = new HBaseClusterSpec();
    ConnectionSpec conn = new ConnectionSpec();
    conn.setZookeeperQuorum("zk-0");
    spec.setConnection(conn);
    spec.setTopology(TopologyChecksTest.topology());
    hc.setSpec(spec);
    TopologyPlanner.Plan plan = new TopologyPlanner.Plan(2, List.of(), 2, 1L << 30, 5L << 29, List.of(), List.of());
    assertThat(statefulSets(hc, plan)).hasSize(2);
    for (StatefulSet s : statefulSets(hc, plan)) {
      var pod = s.getSpec().getTemplate().getSpec();
      assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
      assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
      assertThat(pod.getSecurityContext().getRunAsUser()).as("the image's user").isNull();
      assertThat(pod.getHostNetwork()).isNull();
      var c = pod.getContainers().get(0).getSecurityContext();
      assertThat(c.getAllowPrivilegeEscalation()).isFalse();
      assertThat(c.getCapabilities().getDrop()).containsExactly("ALL");
      assertThat(c.getPrivileged()).isNull();
    }
    spec.getTopology().setRunAsUser(1000L);
    assertThat(statefulSets(hc, plan)).allSatisfy(s -> {
      var sc = s.getSpec().getTemplate().getSpec().getSecurityContext();
      assertThat(List.of(sc.getRunAsUser(), sc.getRunAsGroup(), sc.getFsGroup())).containsOnly(1000L);
    });
  }

  static List<StatefulSet> statefulSets(HBaseCluster hc, TopologyPlanner.Plan plan) {
    return ClusterObjects.desired(hc, plan).stream().filter(o -> o instanceof StatefulSet).map(o -> (StatefulSet) o)
        .toList();
  }
}
