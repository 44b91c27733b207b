package io.hbaseqos.operator.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.cluster.ClusterRegistry;
import io.hbaseqos.operator.hbase.BackendFactory;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.reconciler.EventRecorder;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;

/** Wires the operator's services for the Quarkus application. Tests wire the same classes by hand. */
public class OperatorBeans {

  @Produces
  @Singleton
  Clock clock() {
    return Clock.systemUTC();
  }

  @Produces
  @Singleton
  OperatorMetrics metrics(MeterRegistry registry) {
    return new OperatorMetrics(registry);
  }

  /**
   * The framework's reconcile metrics without per-resource series: with thousands of
   * TenantQuotas, per-resource meters (the extension's default) exhaust the heap.
   */
  @Produces
  @Singleton
  Metrics frameworkMetrics(MeterRegistry registry) {
    return MicrometerMetrics.withoutPerResourceMetrics(registry);
  }

  @Produces
  @Singleton
  EventRecorder events(KubernetesClient client, Clock clock, OperatorMetrics metrics) {
    return new EventRecorder(client, clock, metrics::eventDropped);
  }

  void closeEvents(@Disposes EventRecorder events) {
    events.close();
  }

  @Produces
  @Singleton
  ClusterRegistry registry(OperatorMetrics metrics, Clock clock) {
    return new ClusterRegistry(BackendFactory.HBASE, metrics, clock);
  }

  void closeRegistry(@Disposes ClusterRegistry registry) {
    registry.close();
  }
}
