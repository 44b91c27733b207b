package io.hbaseqos.operator.topology;

import static io.hbaseqos.operator.topology.Memory.GIB;
import static io.hbaseqos.operator.topology.Memory.MIB;
import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.topology.TopologyPlanner.Input;
import io.hbaseqos.operator.topology.TopologyPlanner.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TopologyPlannerTest {
  static final long GB = 1_000_000_000L;

  static Input auto(int perNode) {
    return new Input(perNode, "auto", 4 * GIB, 0.4, 0.4, Map.of(), List.of());
  }

  static List<PoolNode> nodes(int n, long memory) {
    List<PoolNode> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new PoolNode("w" + i, memory, true, false));
    }
    return out;
  }

  @Test
  void seedLayoutFourWorkersOf180GbWithTwoRegionServersEach() {
    Plan p = TopologyPlanner.plan(auto(2), nodes(4, 180 * GB));
    assertThat(p.ok()).isTrue();
    assertThat(p.replicas()).isEqualTo(8);
    assertThat(p.heap()).as("capped at 30g, the seed's 'near 30 GB'").isEqualTo(30 * GIB);
    assertThat(p.containerMemory()).isEqualTo(36 * GIB);
    assertThat(2 * p.containerMemory() + 4 * GIB).as("two fit on a node").isLessThanOrEqualTo(180 * GB);
    assertThat(p.warnings()).isEmpty();
    assertThat(p.blockCache()).as("the default blockCacheFraction of each 30g heap").isEqualTo(12 * GIB);
  }

  @Test
  void aBigNodeAskedForOneRegionServerGetsACappedHeapNot200Gb() {
    Plan p = TopologyPlanner.plan(auto(1), nodes(1, 256 * GB));
    assertThat(p.heap()).isEqualTo(30 * GIB);
    assertThat(p.replicas()).isEqualTo(1);
  }

  @Test
  void fractionsAboveEightyPercentAreRefusedWithTheReason() {
    Plan p = TopologyPlanner.plan(new Input(1, "auto", 4 * GIB, 0.5, 0.4, Map.of(), List.of()), nodes(3, 64 * GIB));
    assertThat(p.ok()).isFalse();
    assertThat(p.replicas()).isZero();
    assertThat(p.errors()).singleElement().asString().contains("blockCacheFraction + memstoreFraction = 0.90")
        .contains("refuses to start above 0.8");
    assertThat(TopologyPlanner.plan(new Input(1, "auto", 4 * GIB, 0.4, 0.4, Map.of(), List.of()), nodes(1, 64 * GIB))
        .ok()).as("0.8 exactly is accepted").isTrue();
  }

  @ParameterizedTest
  @CsvSource({"32, 1", "64, 2", "180, 4", "400, 8", "96, 3", "24, 2"})
  void autoHeapIsTheLargestThatFitsWithItsOverheadAndIsMostlyHeap(long nodeGib, int perNode) {
    Plan p = TopologyPlanner.plan(auto(perNode), nodes(2, nodeGib * GIB));
    assertThat(p.ok()).as(p.errors().toString()).isTrue();
    long budget = (nodeGib * GIB - 4 * GIB) / perNode;
    assertThat(p.heap()).isPositive().isLessThanOrEqualTo(30 * GIB);
    assertThat(p.heap() % (256 * MIB)).isZero();
    assertThat(p.containerMemory()).isEqualTo(p.heap() + TopologyPlanner.overhead(p.heap())).isLessThanOrEqualTo(budget);
    assertThat((double) p.heap() / p.containerMemory()).as("heap share of the limit").isLessThanOrEqualTo(0.84);
    if (p.heap() < 30 * GIB) {
      long next = p.heap() + 256 * MIB;
      assertThat(next + TopologyPlanner.overhead(next)).as("the next step would not fit").isGreaterThan(budget);
    }
  }

  @Test
  void replicasFollowTheSchedulableNodesAndCordonedOnesAreNamed() {
    List<PoolNode> pool = new ArrayList<>(nodes(3, 64 * GIB));
    pool.add(new PoolNode("w3", 64 * GIB, false, true));
    pool.add(new PoolNode("w4", 64 * GIB, false, false)); // NotReady
    Plan p = TopologyPlanner.plan(auto(2), pool);
    assertThat(p.nodes()).isEqualTo(3);
    assertThat(p.replicas()).isEqualTo(6);
    assertThat(p.cordoned()).containsExactly("w3");
  }

  @Test
  void anEmptyPoolPlansNothingAndSaysWhy() {
    Plan p = TopologyPlanner.plan(auto(2), List.of());
    assertThat(p.ok()).isTrue();
    assertThat(p.replicas()).isZero();
    assertThat(p.warnings()).singleElement().asString().contains("no schedulable node");
  }

  @Test
  void aNodeTooSmallForReplicasPerNodeIsRefusedNamingIt() {
    List<PoolNode> pool = new ArrayList<>(nodes(2, 64 * GIB));
    pool.add(new PoolNode("tiny", 8 * GIB, true, false));
    Plan p = TopologyPlanner.plan(auto(4), pool);
    assertThat(p.ok()).isFalse();
    assertThat(p.errors()).singleElement().asString().contains("node tiny has 8Gi allocatable")
        .contains("replicasPerNode=4");
  }

  @Test
  void mixedNodeSizesAreWarnedAndTheSmallestDecides() {
    List<PoolNode> pool = List.of(new PoolNode("small", 64 * GIB, true, false), new PoolNode("big", 256 * GIB, true, false));
    Plan p = TopologyPlanner.plan(auto(2), pool);
    assertThat(p.heap() + TopologyPlanner.overhead(p.heap())).isLessThanOrEqualTo(30 * GIB);
    assertThat(p.warnings()).singleElement().asString().contains("node sizes differ");
  }

  @Test
  void explicitHeaps() {
    Plan ok = TopologyPlanner.plan(new Input(2, "24g", 4 * GIB, 0.4, 0.4, Map.of(), List.of()), nodes(2, 96 * GIB));
    assertThat(ok.ok()).isTrue();
    assertThat(ok.heap()).isEqualTo(24 * GIB);
    assertThat(ok.containerMemory()).isEqualTo(24 * GIB + TopologyPlanner.overhead(24 * GIB));

    Plan warned = TopologyPlanner.plan(new Input(1, "31g", 4 * GIB, 0.4, 0.4, Map.of(), List.of()), nodes(1, 128 * GIB));
    assertThat(warned.ok()).isTrue();
    assertThat(warned.warnings()).singleElement().asString().contains("above 30g");

    Plan tooBig = TopologyPlanner.plan(new Input(1, "48g", 4 * GIB, 0.4, 0.4, Map.of(), List.of()), nodes(1, 256 * GIB));
    assertThat(tooBig.errors()).singleElement().asString().contains("compressed object pointers");

    Plan noFit = TopologyPlanner.plan(new Input(4, "16g", 4 * GIB, 0.4, 0.4, Map.of(), List.of()), nodes(1, 64 * GIB));
    assertThat(noFit.errors()).singleElement().asString().contains("does not fit 4 times");

    Plan garbage = TopologyPlanner.plan(new Input(1, "lots", 4 * GIB, 0.4, 0.4, Map.of(), List.of()), nodes(1, 64 * GIB));
    assertThat(garbage.errors()).singleElement().asString().contains("not a size");
  }

  @Test
  void settingsOwnedByOtherFieldsAreRefusedNamingTheField() {
    Plan p = TopologyPlanner.plan(new Input(1, "auto", 4 * GIB, 0.4, 0.4,
        Map.of("hbase.quota.refresh.period", "1000", "hfile.block.cache.size", "0.6", "hbase.hregion.max.filesize", "1",
            "hbase.quota.rate.limiter", "x", "hbase.quota.default.user.machine.read.num", "5"),
        List.of("-XX:+UseG1GC", "-Xmx64g")), nodes(1, 64 * GIB));
    assertThat(p.errors()).containsExactly(
        "spec.topology.regionServers.siteProperties[hbase.quota.default.user.machine.read.num]: set by spec.quotas.defaultUserQuotas",
        "spec.topology.regionServers.siteProperties[hbase.quota.rate.limiter]: set by spec.quotas.rateLimiter.type",
        "spec.topology.regionServers.siteProperties[hbase.quota.refresh.period]: set by spec.quotas.refreshPeriod",
        "spec.topology.regionServers.siteProperties[hfile.block.cache.size]: set by spec.topology.regionServers.blockCacheFraction",
        "spec.topology.regionServers.jvmOptions[1]: '-Xmx64g' sizes the heap; use spec.topology.regionServers.heap");
  }

  @ParameterizedTest
  @CsvSource({"30g, 32212254720", "512m, 536870912", "30Gi, 32212254720", "512Mi, 536870912"})
  void memorySizes(String text, long bytes) {
    assertThat(Memory.parse(text)).isEqualTo(bytes);
  }

  @Test
  void memoryRendering() {
    assertThat(Memory.jvm(30 * GIB)).isEqualTo("30g");
    assertThat(Memory.jvm(30 * GIB + 256 * MIB)).isEqualTo("30976m");
    assertThat(Memory.quantity(36 * GIB)).isEqualTo("36Gi");
    assertThat(Memory.quantity(1536 * MIB)).isEqualTo("1536Mi");
  }
}
