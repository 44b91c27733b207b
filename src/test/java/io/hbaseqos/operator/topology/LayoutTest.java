package io.hbaseqos.operator.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.topology.Layout.PodPlacement;
import java.util.List;
import org.junit.jupiter.api.Test;

class LayoutTest {
  static final long G = Memory.GIB;
  static final List<PoolNode> POOL = List.of(new PoolNode("a", 64 * G, true, false),
      new PoolNode("b", 64 * G, true, false));

  static PodPlacement on(String node) {
    return new PodPlacement(node, true);
  }

  @Test
  void exactlyReplicasPerNodeEverywhereIsBalanced() {
    var r = Layout.analyze(POOL, 2, 4, List.of(on("a"), on("a"), on("b"), on("b")));
    assertThat(r.balanced()).isTrue();
    assertThat(r.ready()).isEqualTo(4);
    assertThat(r.perNode()).containsEntry("a", 2).containsEntry("b", 2);
  }

  @Test
  void threeAndOneIsUnbalancedAndSaysWhere() {
    var r = Layout.analyze(POOL, 2, 4, List.of(on("a"), on("a"), on("a"), on("b")));
    assertThat(r.balanced()).isFalse();
    assertThat(r.reason()).isEqualTo("Unbalanced");
    assertThat(r.message()).contains("should be 2").contains("a=3").contains("b=1");
  }

  @Test
  void podsWaitingForTheSchedulerArePending() {
    var r = Layout.analyze(POOL, 2, 4, List.of(on("a"), on("a"), on("b"), new PodPlacement("", false)));
    assertThat(r.balanced()).isFalse();
    assertThat(r.reason()).isEqualTo("Pending");
    assertThat(r.ready()).isEqualTo(3);
    assertThat(r.perNode()).containsEntry("", 1);
  }

  @Test
  void aScaleOutWhosePodsAreNotCreatedYetIsPendingNotUnbalanced() {
    var r = Layout.analyze(POOL, 2, 4, List.of(on("a"), on("a")));
    assertThat(r.reason()).isEqualTo("Pending");
    assertThat(r.message()).contains("b=0").contains("2 not created yet");
  }

  @Test
  void everyNodeFullButPodsLeftOverOrPendingIsNotBalanced() {
    var extra = Layout.analyze(POOL, 1, 2, List.of(on("a"), on("b"), new PodPlacement("", false)));
    assertThat(extra.balanced()).isFalse();
    assertThat(extra.reason()).isEqualTo("Pending");
    assertThat(extra.message()).contains("3 exist for 2 planned (1 pending)");
  }

  @Test
  void podsOutsideThePoolAreUnbalanced() {
    var r = Layout.analyze(POOL, 1, 2, List.of(on("a"), on("elsewhere")));
    assertThat(r.reason()).isEqualTo("Unbalanced");
    assertThat(r.message()).contains("elsewhere=1 (not in the pool)").contains("b=0");
  }

  @Test
  void aCordonedNodeWithRegionServersIsReported() {
    List<PoolNode> pool = List.of(new PoolNode("a", 64 * G, true, false), new PoolNode("b", 64 * G, false, true));
    var r = Layout.analyze(pool, 1, 1, List.of(on("a"), on("b")));
    assertThat(r.balanced()).isFalse();
    assertThat(r.reason()).isEqualTo("NodeCordoned");
    assertThat(r.message()).contains("node(s) b cordoned").contains("plans 1 RegionServer(s) on 1 node(s)");
  }

  @Test
  void noNodes() {
    assertThat(Layout.analyze(List.of(), 1, 0, List.of()).reason()).isEqualTo("NoNodes");
  }
}
