package io.hbaseqos.operator.reconciler;

import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.HBaseClusterStatus;
import io.hbaseqos.operator.api.TopologyStatus;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.limit.Decision;
import io.hbaseqos.operator.ownership.Ownership;
import io.hbaseqos.operator.topology.Layout;
import io.hbaseqos.operator.topology.Memory;
import io.hbaseqos.operator.topology.TopologyManager;
import io.hbaseqos.operator.topology.TopologyPlanner;

/**
 * A topology pass as the HBaseCluster's status: {@code status.topology}, the Balanced,
 * RegionServersReady, ReconciliationPaused and BlockCacheFits conditions, and the Scaled and
 * TopologyWarning events. The Kubernetes half of the cluster's status; HBase's half stays in
 * {@link HBaseClusterReconciler}.
 */
final class TopologyStatuses {
  private TopologyStatuses() {}

  /** The topology was taken out of the spec: its status and conditions go. */
  static void clear(StatusAggregator<HBaseClusterStatus> status) {
    status.st.setTopology(null);
    for (String c : java.util.List.of(Conditions.BALANCED, Conditions.REGIONSERVERS_READY, Conditions.PAUSED,
        Conditions.BLOCK_CACHE_FITS)) {
      status.remove(c);
    }
  }

  /**
   * Whether the store files of the cluster's table and namespace tenants (as their usage last read
   * them; a table inside a namespace tenant counted once) fit the block cache the plan gives.
   */
  private static void blockCacheFit(HBaseCluster hc, StatusAggregator<HBaseClusterStatus> status, TopologyPlanner.Plan plan,
      Ownership ownership) {
    java.util.Map<io.hbaseqos.operator.quota.Subject, Long> data = new java.util.HashMap<>();
    for (io.hbaseqos.operator.api.TenantQuota t : ownership.tenantsOf(ClusterConnections.key(hc))) {
      io.hbaseqos.operator.quota.Subject s = Ownership.subjectOf(t);
      if (s != null && t.getStatus() != null && t.getStatus().getUsage() != null
          && t.getStatus().getUsage().getDataBytes() != null && ownership.owns(t)) {
        data.put(s, t.getStatus().getUsage().getDataBytes());
      }
    }
    io.hbaseqos.operator.usage.CacheReport.TenantsData d = io.hbaseqos.operator.usage.CacheReport.tenantsData(data);
    int tenants = d.tenants();
    if (tenants == 0) {
      status.remove(Conditions.BLOCK_CACHE_FITS);
      return;
    }
    String misfit = io.hbaseqos.operator.usage.CacheReport.planFit(plan.blockCache(), plan.replicas(), d.bytes(),
        tenants);
    if (misfit == null) {
      status.set(Conditions.BLOCK_CACHE_FITS, true, "Fits", io.hbaseqos.operator.usage.CacheReport.planFits(
          plan.blockCache(), plan.replicas(), tenants));
    } else {
      status.setNotingReason(Conditions.BLOCK_CACHE_FITS, false, "DoesNotFit", misfit,
          Decision.Note.warning("BlockCacheTooSmall", misfit));
    }
  }

  static void report(HBaseCluster hc, StatusAggregator<HBaseClusterStatus> status, TopologyManager.Outcome topo,
      Ownership ownership) {
    HBaseClusterStatus old = status.old;
    HBaseClusterStatus st = status.st;
    TopologyPlanner.Plan plan = topo.plan();
    Layout.Result layout = topo.layout();
    TopologyStatus ts = new TopologyStatus();
    ts.setNodes(plan.nodes());
    ts.setCordonedNodes(plan.cordoned().isEmpty() ? null : plan.cordoned());
    ts.setDesiredRegionServers(plan.ok() ? plan.replicas() : null);
    ts.setReadyRegionServers(layout.ready());
    ts.setRegionServersPerNode(layout.perNode().isEmpty() ? null : layout.perNode());
    ts.setHeap(plan.ok() && plan.heap() > 0 ? Memory.jvm(plan.heap()) : null);
    ts.setMemory(plan.ok() && plan.containerMemory() > 0 ? Memory.quantity(plan.containerMemory()) : null);
    ts.setWarnings(plan.warnings().isEmpty() ? null : plan.warnings());
    if (plan.ok() && plan.blockCache() > 0) {
      ts.setBlockCache(Memory.quantity(plan.blockCache()) + " per RegionServer ("
          + Math.round(100.0 * plan.blockCache() / plan.heap()) + "% of the heap), "
          + Memory.quantity(plan.blockCache() * plan.replicas()) + " in all");
      blockCacheFit(hc, status, plan, ownership);
    } else {
      status.remove(Conditions.BLOCK_CACHE_FITS);
    }
    TopologyStatus was = old.getTopology();
    Integer before = was == null ? null : was.getDesiredRegionServers();
    if (plan.ok() && before != null && !before.equals(plan.replicas())) {
      status.normal("Scaled", "RegionServers " + before + " -> " + plan.replicas() + " ("
          + plan.nodes() + " schedulable node(s) x " + hc.getSpec().getTopology().getRegionServers().getReplicasPerNode()
          + ")");
    }
    for (String w : plan.warnings()) {
      if (was == null || was.getWarnings() == null || !was.getWarnings().contains(w)) {
        status.warning("TopologyWarning", w);
      }
    }
    st.setTopology(ts);
    boolean paused = Boolean.TRUE.equals(hc.getSpec().getTopology().getPaused());
    if (paused) {
      status.set(Conditions.PAUSED, true, "Paused", "spec.topology.paused: Kubernetes objects are not changed");
    } else {
      status.set(Conditions.PAUSED, false, "Reconciling", "Kubernetes objects follow the spec");
    }
    // an imbalance is an event when it starts or its reason changes; a pending one is not yet
    status.setNotingReason(Conditions.BALANCED, layout.balanced(), layout.reason(), layout.message(),
        layout.balanced() || "Pending".equals(layout.reason()) ? null
            : Decision.Note.warning(layout.reason(), layout.message()));
    int desired = plan.ok() ? plan.replicas() : 0;
    boolean allReady = layout.ready() == desired && desired > 0;
    status.set(Conditions.REGIONSERVERS_READY, allReady, allReady ? "AllReady" : "NotReady",
        layout.ready() + " of " + desired + " RegionServer(s) ready");
  }}
