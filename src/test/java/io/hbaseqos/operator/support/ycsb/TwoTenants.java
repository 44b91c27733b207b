package io.hbaseqos.operator.support.ycsb;

import java.util.Properties;
import org.HdrHistogram.Histogram;
import org.apache.hadoop.conf.Configuration;

/**
 * The reference benchmark's setting at small scale: two tenants reading the same table with YCSB's
 * core workload, U (never throttled) and T (the one a TenantQuota governs), each as its own HBase
 * user. Measures both over a window: successful ops/s and latencies.
 */
public final class TwoTenants implements AutoCloseable {
  public final String uUser;
  public final String tUser;
  private final TenantLoad u;
  private final TenantLoad t;

  /** One measured window. Latencies are of successful operations, in microseconds. */
  public record Sample(double seconds, double uOps, double tOps, Histogram uLatency, Histogram tLatency) {
    public double totalOps() {
      return uOps + tOps;
    }

    static String ms(Histogram h) {
      return h.getTotalCount() == 0 ? "-" : String.format(java.util.Locale.ROOT, "%.1f / %.1f", h.getMean() / 1000,
          h.getValueAtPercentile(99) / 1000.0);
    }

    /** "mean / p99" in milliseconds. */
    public String uLatencyMs() {
      return ms(uLatency);
    }

    public String tLatencyMs() {
      return ms(tLatency);
    }
  }

  private TwoTenants(String uUser, String tUser, TenantLoad u, TenantLoad t) {
    this.uUser = uUser;
    this.tUser = tUser;
    this.u = u;
    this.t = t;
  }

  /**
   * Loads {@code table} with {@code records} rows (once) and starts {@code threads} reader threads
   * per tenant.
   */
  public static TwoTenants start(Configuration conf, String table, int records, String uUser, String tUser,
      int threads) throws Exception {
    return start(conf, table, records, uUser, tUser, threads, 0);
  }

  /**
   * The same, T scanning {@code scanLength} rows per operation instead of reading one (0: reads), as
   * the reference benchmark's analytical tenant does; U reads.
   */
  public static TwoTenants start(Configuration conf, String table, int records, String uUser, String tUser,
      int threads, int scanLength) throws Exception {
    Properties workload = TenantLoad.readWorkload(table, records);
    TenantLoad.load(conf, "loader", workload);
    TenantLoad u = TenantLoad.start(conf, uUser, workload, threads);
    TenantLoad t = TenantLoad.start(conf, tUser, scanLength > 0 ? TenantLoad.scanWorkload(workload, scanLength)
        : workload, threads);
    return new TwoTenants(uUser, tUser, u, t);
  }

  /** Measures both tenants over the next {@code seconds}. */
  public Sample measure(double seconds) throws InterruptedException {
    long u0 = u.ok();
    long t0 = t.ok();
    u.latencySinceLastCall();
    t.latencySinceLastCall();
    long start = System.nanoTime();
    Thread.sleep((long) (seconds * 1000));
    double s = (System.nanoTime() - start) / 1e9;
    return new Sample(s, (u.ok() - u0) / s, (t.ok() - t0) / s, u.latencySinceLastCall(), t.latencySinceLastCall());
  }

  /**
   * Both tenants' client-side counters in the Prometheus text format, as an application exposes its
   * own metrics: {@code ycsb_client_operations_total{tenant, result="ok"|"failed"}}.
   */
  public String clientMetrics() {
    StringBuilder b = new StringBuilder("# TYPE ycsb_client_operations_total counter\n");
    for (var e : java.util.Map.of(uUser, u, tUser, t).entrySet()) {
      b.append("ycsb_client_operations_total{tenant=\"").append(e.getKey()).append("\",result=\"ok\"} ")
          .append(e.getValue().ok()).append('\n');
      b.append("ycsb_client_operations_total{tenant=\"").append(e.getKey()).append("\",result=\"failed\"} ")
          .append(e.getValue().failed()).append('\n');
    }
    return b.toString();
  }

  /** Operations of T that failed (retries exhausted), so far. */
  public long tFailed() {
    return t.failed();
  }

  @Override
  public void close() throws Exception {
    u.close();
    t.close();
  }
}
