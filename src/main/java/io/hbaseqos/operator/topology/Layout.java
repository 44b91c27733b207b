package io.hbaseqos.operator.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Where the RegionServer pods actually are, against the plan. Pure.
 */
public final class Layout {

  /** One RegionServer pod: its node ("" while pending) and whether it is ready. */
  public record PodPlacement(String node, boolean ready) {}

  /**
   * @param perNode pods per node ("" for pending ones)
   * @param balanced every schedulable pool node runs exactly replicasPerNode, and none elsewhere
   * @param reason Balanced, Unbalanced, Pending, NodeCordoned or NoNodes
   */
  public record Result(Map<String, Integer> perNode, int ready, boolean balanced, String reason, String message) {}

  private Layout() {}

  public static Result analyze(List<PoolNode> pool, int replicasPerNode, int desired, List<PodPlacement> pods) {
    Map<String, Integer> perNode = new TreeMap<>();
    int ready = 0;
    for (PodPlacement p : pods) {
      perNode.merge(p.node() == null ? "" : p.node(), 1, Integer::sum);
      ready += p.ready() ? 1 : 0;
    }
    Set<String> schedulable = pool.stream().filter(PoolNode::schedulable).map(PoolNode::name).collect(Collectors.toSet());
    List<String> cordonedWithPods = pool.stream().filter(n -> n.cordoned() && perNode.containsKey(n.name()))
        .map(PoolNode::name).sorted().toList();
    if (schedulable.isEmpty() && pods.isEmpty()) {
      return new Result(perNode, 0, false, "NoNodes", "no schedulable node in the pool");
    }
    if (!cordonedWithPods.isEmpty()) {
      return new Result(perNode, ready, false, "NodeCordoned", "node(s) " + String.join(", ", cordonedWithPods)
          + " cordoned with RegionServers on them; the pool now plans " + desired + " RegionServer(s) on "
          + schedulable.size() + " node(s): drain the node to move its regions");
    }
    int pending = perNode.getOrDefault("", 0);
    List<String> off = new ArrayList<>();
    boolean misplaced = false; // a node over replicasPerNode, or pods outside the pool
    for (String node : new java.util.TreeSet<>(schedulable)) {
      int n = perNode.getOrDefault(node, 0);
      if (n != replicasPerNode) {
        off.add(node + "=" + n);
        misplaced |= n > replicasPerNode;
      }
    }
    for (var e : perNode.entrySet()) {
      if (!e.getKey().isEmpty() && !schedulable.contains(e.getKey())) {
        off.add(e.getKey() + "=" + e.getValue() + " (not in the pool)");
        misplaced = true;
      }
    }
    if (!off.isEmpty()) {
      // fewer pods than planned (being created or waiting for the scheduler) and none misplaced: a scale-out in progress
      int missing = desired - pods.size();
      String reason = (pending > 0 || missing > 0) && !misplaced ? "Pending" : "Unbalanced";
      return new Result(perNode, ready, false, reason, "RegionServers per node should be " + replicasPerNode
          + ", are " + String.join(", ", off) + (pending > 0 ? "; " + pending + " pending" : "")
          + (missing > 0 ? "; " + missing + " not created yet" : ""));
    }
    if (pending > 0 || pods.size() != desired) {
      return new Result(perNode, ready, false, "Pending", replicasPerNode + " RegionServer(s) on each node, but "
          + pods.size() + " exist for " + desired + " planned" + (pending > 0 ? " (" + pending + " pending)" : ""));
    }
    return new Result(perNode, ready, true, "Balanced", replicasPerNode + " RegionServer(s) on each of "
        + schedulable.size() + " node(s)");
  }
}
