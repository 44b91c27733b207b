package io.hbaseqos.operator.support;

import io.hbaseqos.operator.api.QosSpec;
import java.io.IOException;

/**
 * A protected tenant's p99 read latency as its application would export it: a gauge the test sets,
 * served through a real Prometheus, so that a test reaches each phase of latency protection on
 * purpose. {@link Double#NaN} takes the series away (a lost reading).
 */
public final class LatencyGauge implements AutoCloseable {
  static final String METRIC = "app_read_latency_p99_milliseconds";
  private volatile double millis = 1;
  private final PrometheusServer prometheus;

  private LatencyGauge() throws IOException {
    prometheus = PrometheusServer.start(() -> Double.isNaN(millis) ? ""
        : "# TYPE " + METRIC + " gauge\n" + METRIC + " " + millis + "\n");
  }

  public static LatencyGauge start() throws IOException {
    return new LatencyGauge();
  }

  public void set(double p99Millis) {
    millis = p99Millis;
  }

  /** A protected tenant's qos: one p99 reads objective under {@code boundMillis}, read from this gauge. */
  public QosSpec protectedReads(int priority, double boundMillis, String window) {
    return Resources.protectedReads(priority, boundMillis, window, prometheus.url, "max(" + METRIC + ")");
  }

  @Override
  public void close() {
    prometheus.close();
  }
}
