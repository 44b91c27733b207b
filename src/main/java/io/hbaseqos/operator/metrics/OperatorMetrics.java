package io.hbaseqos.operator.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The operator's own metrics (beside the framework's reconcile metrics). Names follow Prometheus
 * conventions once exported: {@code hbaseqos_quota_writes_total}, {@code hbaseqos_hbase_call_seconds}, ...
 */
public class OperatorMetrics {
  private final MeterRegistry registry;

  public OperatorMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  public void quotaWrite(String cluster, String op) {
    Counter.builder("hbaseqos.quota.writes").description("setQuota calls made")
        .tag("cluster", cluster).tag("op", op).register(registry).increment();
  }

  public void driftCorrected(String cluster) {
    Counter.builder("hbaseqos.drift.corrections").description("Quota changes made outside the operator and undone")
        .tag("cluster", cluster).register(registry).increment();
  }

  public void conflict(String cluster) {
    Counter.builder("hbaseqos.conflicts").description("TenantQuotas refused because another one owns the subject")
        .tag("cluster", cluster).register(registry).increment();
  }

  public void eventDropped() {
    Counter.builder("hbaseqos.events.dropped").description("Kubernetes Events not sent (Normal-event budget spent or queue full); all are logged")
        .register(registry).increment();
  }

  public void invalidResource(String kind) {
    Counter.builder("hbaseqos.invalid.resources").description("Resources refused for invalid specs")
        .tag("kind", kind).register(registry).increment();
  }

  public void hbaseCall(String cluster, String call, long nanos, boolean ok) {
    Timer.builder("hbaseqos.hbase.call").description("HBase Admin calls")
        .tag("cluster", cluster).tag("call", call).tag("outcome", ok ? "success" : "error")
        .register(registry).record(nanos, TimeUnit.NANOSECONDS);
    if (!ok) {
      Counter.builder("hbaseqos.hbase.errors").description("Failed HBase Admin calls")
          .tag("cluster", cluster).tag("call", call).register(registry).increment();
    }
  }

  /** {@code hbaseqos_cluster_up{cluster}}: 1 while the cluster answers, 0 while it is in back-off. */
  public void clusterUp(String cluster, BooleanSupplier up) {
    Gauge.builder("hbaseqos.cluster.up", up, u -> u.getAsBoolean() ? 1 : 0)
        .description("1 while the HBase cluster answers, 0 while it is unreachable").tag("cluster", cluster)
        .register(registry);
  }

  /** Drops the per-cluster gauges of a cluster no longer managed. */
  public void forgetCluster(String cluster) {
    for (Meter m : registry.find("hbaseqos.cluster.up").tag("cluster", cluster).meters()) {
      registry.remove(m);
    }
  }

  /** Number of HBase calls of one kind so far (for benchmarks and tests). */
  public long hbaseCalls(String cluster, String call) {
    return registry.find("hbaseqos.hbase.call").tag("cluster", cluster).tag("call", call).timers().stream()
        .mapToLong(Timer::count).sum();
  }
}
