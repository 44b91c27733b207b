package io.hbaseqos.operator.bench;

import static io.hbaseqos.operator.support.Resources.cluster;
import static io.hbaseqos.operator.support.Resources.readsCalibration;
import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.ycsb.CalibrationRun;
import io.hbaseqos.operator.support.ycsb.TwoTenants;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.ThrottleType;

/**
 * The reference benchmark's read + read table at small scale, on a real standalone HBase 2.6.4 with
 * YCSB's core workload: U unthrottled, T under a static READ_NUMBER throttle at five levels, then
 * T under the calibration loop (the packaged reconcilers against a real API server) toward half
 * of its unthrottled rate (or {@code --target}), starting from the static limit a user would set
 * (target req/sec).
 * Prints the table and the loop's trajectory; asserts nothing.
 *
 * <p>Run: {@code bin/benchmark throttle [--threads 2] [--seconds 15] [--levels 0.7,0.55,0.4,0.27,0.14]
 * [--limiter fixed|average] [--period 10] [--tolerance 5] [--loop true] [--target OPS]}. The levels are fractions of
 * T's unthrottled ops/s (the reference's 2500..500 req/s against 3644 ops/s). {@code --limiter
 * average} runs HBase's default AverageIntervalRateLimiter instead of the FixedIntervalRateLimiter
 * with a 100 ms refill that docs/operations.md recommends.
 */
public final class ThrottleBenchmark {
  private ThrottleBenchmark() {}

  public static void main(String[] args) {
    SyncBenchmark.runAndExit(ThrottleBenchmark::run, args);
  }

  static void run(String[] args) throws Exception {
    Map<String, String> o = SyncBenchmark.options(args);
    int threads = Integer.parseInt(o.getOrDefault("threads", "2"));
    int seconds = Integer.parseInt(o.getOrDefault("seconds", "15"));
    List<Double> levels = Arrays.stream(o.getOrDefault("levels", "0.7,0.55,0.4,0.27,0.14").split(","))
        .filter(s -> !s.isBlank()).map(Double::parseDouble).toList();
    boolean average = "average".equals(o.getOrDefault("limiter", "fixed"));
    int period = Integer.parseInt(o.getOrDefault("period", "10"));
    double tolerance = Double.parseDouble(o.getOrDefault("tolerance", "5"));

    StandaloneHBase hbase = new StandaloneHBase(Files.createTempDirectory("bench-throttle"), average
        ? Map.of("hbase.quota.rate.limiter", "org.apache.hadoop.hbase.quotas.AverageIntervalRateLimiter")
        : Map.of());
    hbase.start();
    System.out.printf(Locale.ROOT, "# read + read, %d YCSB threads per tenant, %d s per row, limiter %s%n", threads,
        seconds, average ? "AverageIntervalRateLimiter (HBase default)" : "FixedIntervalRateLimiter, 100 ms refill");
    try (TwoTenants load = TwoTenants.start(hbase.clientConfiguration(), "bench_usertable", 5000, "bench-u",
        "bench-t", threads); Admin admin = hbase.admin()) {
      load.measure(10); // warm up: caches, JIT, connections
      System.out.println();
      System.out.println("| throttle on T (req/s) | total ops/s | U ops/s | T ops/s | U latency ms (mean / p99) "
          + "| T latency ms (mean / p99) |");
      System.out.println("|---|---|---|---|---|---|");
      TwoTenants.Sample free = load.measure(seconds);
      row("none", free);
      for (double f : levels) {
        long limit = Math.max(1, Math.round(f * free.tOps()));
        admin.setQuota(QuotaSettingsFactory.throttleUser(load.tUser, ThrottleType.READ_NUMBER, limit,
            TimeUnit.SECONDS));
        Thread.sleep(3000); // RegionServers reload quotas on change (2.6.3+)
        row(String.valueOf(limit), load.measure(seconds));
      }
      admin.setQuota(QuotaSettingsFactory.unthrottleUser(load.tUser));
      Thread.sleep(3000);
      if (Boolean.parseBoolean(o.getOrDefault("loop", "true"))) {
        long target = o.containsKey("target") ? Long.parseLong(o.get("target")) : Math.round(free.tOps() / 2);
        loop(hbase, load, target, period, tolerance);
      }
    } finally {
      hbase.close();
    }
  }

  static void row(String throttle, TwoTenants.Sample s) {
    System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %s | %s |%n", throttle, s.totalOps(), s.uOps(),
        s.tOps(), s.uLatencyMs(), s.tLatencyMs());
  }

  static void loop(StandaloneHBase hbase, TwoTenants load, long target, int period, double tolerance)
      throws Exception {
    KubernetesClient k8s = KubeApi.client();
    String ns = KubeApi.newNamespace("bench-throttle");
    try (OperatorHarness operator = new OperatorHarness(k8s)) {
      k8s.resource(cluster(ns, "hb", hbase.connectionSpec(), "30s")).create();
      KubeApi.awaitClusterReady(ns, "hb");
      TenantQuota tq = tenant(ns, "t", "hb", user(load.tUser), t(ThrottleKind.READ_NUMBER, target + "req/sec"));
      tq.getSpec().setCalibration(readsCalibration(target, period, tolerance));
      k8s.resource(tq).create();
      System.out.printf(Locale.ROOT, "%n# calibration loop: target %d ops/s for T, starting from the static limit "
          + "%d req/s, period %d s, tolerance %.0f%%%n", target, target, period, tolerance);
      List<CalibrationRun.Row> rows = CalibrationRun.follow(k8s, ns, "t", load, target, tolerance, period, 3, 30,
          System.out);
      CalibrationRun.Row last = rows.get(rows.size() - 1);
      System.out.println();
      System.out.println("| throttle on T (req/s) | total ops/s | U ops/s | T ops/s | U latency ms (mean / p99) "
          + "| T latency ms (mean / p99) |");
      System.out.println("|---|---|---|---|---|---|");
      row("calibrated: " + last.limit() + " (target " + target + " ops/s, " + last.state() + " after "
          + last.period() + " periods)", last.sample());
    } finally {
      KubeApi.cleanUp(java.util.Set.of(ns));
    }
  }

}
