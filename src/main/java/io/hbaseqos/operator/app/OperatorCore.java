package io.hbaseqos.operator.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.calibration.CalibrationLoops;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.cluster.WriteFence;
import io.hbaseqos.operator.hbase.BackendFactory;
import io.hbaseqos.operator.limit.TenantLimits;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.ownership.Ownership;
import io.hbaseqos.operator.ownership.RetainedSubjects;
import io.hbaseqos.operator.qos.ProtectionLoops;
import io.hbaseqos.operator.reconciler.ConfigMapRetainedSubjects;
import io.hbaseqos.operator.reconciler.EventRecorder;
import io.hbaseqos.operator.reconciler.HBaseClusterReconciler;
import io.hbaseqos.operator.reconciler.TenantQuotaReconciler;
import io.hbaseqos.operator.reconciler.Triggers;
import io.hbaseqos.operator.sync.QuotaSync;
import io.hbaseqos.operator.sync.Resync;
import java.time.Clock;
import java.time.Duration;

/**
 * The operator's parts, wired once: connections, ownership, the quota-sync use case, the resync
 * loops and the reconcilers' triggers. The Quarkus application ({@link OperatorBeans}) and the
 * tests' harness build the same graph from here.
 */
public final class OperatorCore implements AutoCloseable {
  public final ClusterConnections connections;
  public final Ownership ownership;
  public final QuotaSync sync = new QuotaSync();
  public final RetainedSubjects retained;
  public final Triggers triggers;
  public final Resync resync;
  public final CalibrationLoops loops;
  public final ProtectionLoops protection = new ProtectionLoops();
  /** The tenant's limit from both loops, their memory kept per cluster and tenant. */
  public final TenantLimits limits;
  private final EventRecorder events;
  private final OperatorMetrics metrics;
  private final Clock clock;
  private final io.hbaseqos.operator.topology.TopologyPolicy topologyPolicy;

  public OperatorCore(KubernetesClient client, BackendFactory factory, OperatorMetrics metrics, EventRecorder events,
      Clock clock, Duration callTimeout, CalibrationLoops loops) {
    this(client, factory, metrics, events, clock, callTimeout, loops, WriteFence.NONE);
  }

  /** @param fence checked before every write to HBase (only the leader writes) */
  public OperatorCore(KubernetesClient client, BackendFactory factory, OperatorMetrics metrics, EventRecorder events,
      Clock clock, Duration callTimeout, CalibrationLoops loops, WriteFence fence) {
    this(client, factory, metrics, events, clock, callTimeout, loops, fence,
        io.hbaseqos.operator.topology.TopologyPolicy.DEFAULT);
  }

  /** @param topologyPolicy where the platform lets HBaseClusters run pods, and with which volumes */
  public OperatorCore(KubernetesClient client, BackendFactory factory, OperatorMetrics metrics, EventRecorder events,
      Clock clock, Duration callTimeout, CalibrationLoops loops, WriteFence fence,
      io.hbaseqos.operator.topology.TopologyPolicy topologyPolicy) {
    this.topologyPolicy = topologyPolicy;
    this.events = events;
    this.metrics = metrics;
    this.clock = clock;
    this.loops = loops;
    this.connections = new ClusterConnections(factory, metrics, clock, callTimeout, fence);
    this.ownership = new Ownership(connections::identity);
    // the records of retained quotas live in the operator's own namespace (the pod's, as the chart
    // passes it; else the client's), beyond any tenant's
    this.retained = new ConfigMapRetainedSubjects(client, java.util.Optional.ofNullable(System.getenv("POD_NAMESPACE"))
        .or(() -> java.util.Optional.ofNullable(client.getNamespace())).filter(n -> !n.isBlank()).orElse("default"));
    this.triggers = new Triggers(events, ownership);
    // a cluster the informer no longer lists is gone only if the API server says so too (a watch may lag)
    this.resync = new Resync(connections, ownership, sync, retained, metrics, key -> {
      try {
        String[] nsName = key.split("/", 2);
        return client.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(nsName[0])
            .withName(nsName[1]).get() != null;
      } catch (RuntimeException e) {
        return true; // not known: it stays
      }
    });
    this.limits = new TenantLimits(loops, protection, TenantQuotaReconciler.peers(ownership));
    resync.bind(triggers);
  }

  public TenantQuotaReconciler tenantQuotaReconciler() {
    return new TenantQuotaReconciler(connections, ownership, sync, retained, triggers, events, metrics, clock, limits);
  }

  public HBaseClusterReconciler hbaseClusterReconciler() {
    return new HBaseClusterReconciler(connections, ownership, resync, triggers, events, metrics, clock, topologyPolicy);
  }

  @Override
  public void close() {
    resync.close();
    triggers.close();
    connections.close();
  }
}
