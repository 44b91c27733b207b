package io.hbaseqos.operator.support.ycsb;

import java.util.Locale;
import java.util.Properties;
import org.HdrHistogram.Histogram;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ipc.NettyRpcClientConfigHelper;

/**
 * The reference benchmark's other question at small scale: a real-time tenant U reading at its own
 * steady pace (an application serving users), and a batch tenant T reading as fast as its threads
 * can, started and stopped on demand. Each runs YCSB's core read workload as its own HBase user.
 * Measures U's client-side latency and both tenants' successful ops/s over a window.
 */
public final class LatencyTenants implements AutoCloseable {
  public final String uUser;
  public final String tUser;
  private final Configuration conf;
  private final Properties workload;
  private final int tThreads;
  private final TenantLoad u;
  private TenantLoad t;

  /** One measured window. U's latencies are of successful operations, in microseconds. */
  public record Sample(double seconds, double uOps, double tOps, Histogram uLatency) {
    /** U's client-side latency at {@code percentile}, in milliseconds (0 without operations). */
    public double uMs(double percentile) {
      return uLatency.getTotalCount() == 0 ? 0 : uLatency.getValueAtPercentile(percentile) / 1000.0;
    }

    public String uLatencyMs() {
      return uLatency.getTotalCount() == 0 ? "-" : String.format(Locale.ROOT, "%.2f / %.2f",
          uLatency.getMean() / 1000, uMs(99));
    }
  }

  private LatencyTenants(String uUser, String tUser, Configuration conf, Properties workload, int tThreads,
      TenantLoad u) {
    this.uUser = uUser;
    this.tUser = tUser;
    this.conf = conf;
    this.workload = workload;
    this.tThreads = tThreads;
    this.u = u;
  }

  /**
   * Loads {@code table} with {@code records} rows (once) and starts U: {@code uThreads} threads
   * issuing {@code uOpsPerSecond} together. T waits for {@link #startBatch()}.
   *
   * @param ownClientLoops each tenant's connection gets its own client event loops, as two
   *     applications in two processes have; otherwise both share this JVM's default group, and
   *     whether U's channel lands on T's loop changes with every connection T opens
   */
  public static LatencyTenants start(Configuration conf, String table, int records, String uUser, int uThreads,
      double uOpsPerSecond, String tUser, int tThreads, boolean ownClientLoops) throws Exception {
    Properties workload = TenantLoad.readWorkload(table, records);
    TenantLoad.load(conf, "loader", workload);
    Configuration tenants = new Configuration(conf);
    if (ownClientLoops) {
      NettyRpcClientConfigHelper.createEventLoopPerClient(tenants);
    }
    TenantLoad u = TenantLoad.start(tenants, uUser, workload, uThreads, uOpsPerSecond);
    return new LatencyTenants(uUser, tUser, tenants, workload, tThreads, u);
  }

  /** Starts T's threads (reading as fast as they can). */
  public synchronized void startBatch() throws Exception {
    if (t == null) {
      t = TenantLoad.start(conf, tUser, workload, tThreads);
    }
  }

  /** Stops T's threads. */
  public synchronized void stopBatch() throws Exception {
    if (t != null) {
      t.close();
      t = null;
    }
  }

  private synchronized long tOk() {
    return t == null ? 0 : t.ok();
  }

  /** Measures both tenants over the next {@code seconds} (T's rate is 0 when it is stopped). */
  public Sample measure(double seconds) throws InterruptedException {
    long u0 = u.ok();
    long t0 = tOk();
    u.latencySinceLastCall();
    long start = System.nanoTime();
    Thread.sleep((long) (seconds * 1000));
    double s = (System.nanoTime() - start) / 1e9;
    return new Sample(s, (u.ok() - u0) / s, Math.max(0, tOk() - t0) / s, u.latencySinceLastCall());
  }

  /**
   * U's client-side latency as a Prometheus histogram, as the application would export it:
   * {@code ycsb_client_latency_seconds_bucket{tenant="<u>",le="..."}}.
   */
  public String clientMetrics() {
    return "# TYPE ycsb_client_latency_seconds histogram\n"
        + u.latencyHistogram("ycsb_client_latency_seconds", "tenant=\"" + uUser + "\"");
  }

  /** Operations of U that failed (retries exhausted), so far. */
  public long uFailed() {
    return u.failed();
  }

  @Override
  public void close() throws Exception {
    stopBatch();
    u.close();
  }
}
