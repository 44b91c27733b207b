package io.hbaseqos.operator.support;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.cluster.ClusterRegistry;
import io.hbaseqos.operator.hbase.BackendFactory;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.reconciler.EventRecorder;
import io.hbaseqos.operator.reconciler.HBaseClusterReconciler;
import io.hbaseqos.operator.reconciler.TenantQuotaReconciler;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;

/**
 * The operator's reconcilers, wired by hand into a plain JOSDK {@link Operator} against the test
 * API server: the same classes the Quarkus application runs, without its container.
 */
public final class OperatorHarness implements AutoCloseable {
  public final OperatorMetrics metrics = new OperatorMetrics(new SimpleMeterRegistry());
  public final ClusterRegistry registry;
  private final EventRecorder events;
  private final Operator operator;

  public OperatorHarness(KubernetesClient client) {
    this(client, BackendFactory.HBASE);
  }

  public OperatorHarness(KubernetesClient client, BackendFactory factory) {
    Clock clock = Clock.systemUTC();
    registry = new ClusterRegistry(factory, metrics, clock);
    events = new EventRecorder(client, clock, metrics::eventDropped);
    operator = new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false)
        .withConcurrentReconciliationThreads(20).withStopOnInformerErrorDuringStartup(true)
        .withUseSSAToPatchPrimaryResource(false));
    operator.register(new HBaseClusterReconciler(registry, events, metrics, clock));
    operator.register(new TenantQuotaReconciler(registry, events, metrics, clock,
        new io.hbaseqos.operator.calibration.CalibrationLoops()));
    operator.start();
  }

  public long hbaseCalls(String clusterKey, String call) {
    return metrics.hbaseCalls(clusterKey, call);
  }

  @Override
  public void close() {
    operator.stop();
    registry.close();
    events.close();
  }
}
