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
import io.hbaseqos.operator.support.UserRecords;
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
 * (target req/sec, or {@code --start-limit}).
 * Prints the table and the loop's trajectory; asserts nothing.
 *
 * <p>Run: {@code bin/benchmark throttle [--threads 2] [--seconds 15] [--levels 0.7,0.55,0.4,0.27,0.14]
 * [--limiter fixed|average] [--period 10] [--tolerance 5] [--loop true] [--target OPS] [--start-limit REQ]}. The levels are fractions of
 * T's unthrottled ops/s (the reference's 2500..500 req/s against 3644 ops/s). {@code --limiter
 * average} runs HBase's default AverageIntervalRateLimiter instead of the FixedIntervalRateLimiter
 * with a 100 ms refill that docs/operations.md recommends. {@code --scan-length N} makes T scan N
 * rows per operation (the reference's read + scan table, where it scanned 100); its levels then
 * default to multiples of T's unthrottled ops/s, since a scan costs HBase several requests.
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
    int scanLength = Integer.parseInt(o.getOrDefault("scan-length", "0"));
    List<Double> levels = Arrays.stream(o.getOrDefault("levels", scanLength > 0 ? "8,4,2,1,0.5,0.25"
            : "0.7,0.55,0.4,0.27,0.14").split(","))
        .filter(s -> !s.isBlank()).map(Double::parseDouble).toList();
    String limiter = o.getOrDefault("limiter", "fixed");
    int period = Integer.parseInt(o.getOrDefault("period", "10"));
    double tolerance = Double.parseDouble(o.getOrDefault("tolerance", "5"));

    StandaloneHBase hbase = new StandaloneHBase(Files.createTempDirectory("bench-throttle"),
        StandaloneHBase.limiterSite(limiter));
    hbase.start();
    System.out.printf(Locale.ROOT, "# read + %s, %d YCSB threads per tenant, %d s per row, limiter %s%n",
        scanLength > 0 ? "scan of " + scanLength + " rows per op (T)" : "read", threads, seconds,
        StandaloneHBase.limiterName(limiter));
    try (TwoTenants load = TwoTenants.start(hbase.clientConfiguration(), "bench_usertable", 5000, "bench-u",
        "bench-t", threads, scanLength); Admin admin = hbase.admin()) {
      load.measure(10); // warm up: caches, JIT, connections
      System.out.println();
      System.out.println("| throttle on T (req/s) | total ops/s | U ops/s | T ops/s | U latency ms (mean / p99) "
          + "| T latency ms (mean / p99) | HBase for T, per s: gets / scans recorded / refused |");
      System.out.println("|---|---|---|---|---|---|---|");
      int info = hbase.regionServerInfoPort();
      UserRecords c0 = UserRecords.read(info, load.tUser);
      TwoTenants.Sample free = load.measure(seconds);
      row("none", free, c0, UserRecords.read(info, load.tUser));
      for (double f : levels) {
        long limit = Math.max(1, Math.round(f * free.tOps()));
        admin.setQuota(QuotaSettingsFactory.throttleUser(load.tUser, ThrottleType.READ_NUMBER, limit,
            TimeUnit.SECONDS));
        Thread.sleep(3000); // RegionServers reload quotas on change (2.6.3+)
        UserRecords before = UserRecords.read(info, load.tUser);
        TwoTenants.Sample s = load.measure(seconds);
        row(String.valueOf(limit), s, before, UserRecords.read(info, load.tUser));
      }
      admin.setQuota(QuotaSettingsFactory.unthrottleUser(load.tUser));
      Thread.sleep(3000);
      if (Boolean.parseBoolean(o.getOrDefault("loop", "true"))) {
        long target = o.containsKey("target") ? Long.parseLong(o.get("target")) : Math.round(free.tOps() / 2);
        long start = o.containsKey("start-limit") ? Long.parseLong(o.get("start-limit")) : target;
        loop(hbase, load, target, start, period, tolerance);
      }
    } finally {
      hbase.close();
    }
  }

  static void row(String throttle, TwoTenants.Sample s) {
    System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %s | %s |%n", throttle, s.totalOps(), s.uOps(),
        s.tOps(), s.uLatencyMs(), s.tLatencyMs());
  }

  static void row(String throttle, TwoTenants.Sample s, UserRecords before, UserRecords after) {
    System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %s | %s | %s |%n", throttle, s.totalOps(), s.uOps(),
        s.tOps(), s.uLatencyMs(), s.tLatencyMs(), after.ratesSince(before, s.seconds()));
  }

  static void loop(StandaloneHBase hbase, TwoTenants load, long target, long start, int period, double tolerance)
      throws Exception {
    KubernetesClient k8s = KubeApi.client();
    String ns = KubeApi.newNamespace("bench-throttle");
    try (OperatorHarness operator = new OperatorHarness(k8s)) {
      k8s.resource(cluster(ns, "hb", hbase.connectionSpec(), "30s")).create();
      KubeApi.awaitClusterReady(ns, "hb");
      TenantQuota tq = tenant(ns, "t", "hb", user(load.tUser), t(ThrottleKind.READ_NUMBER, start + "req/sec"));
      tq.getSpec().setCalibration(readsCalibration(target, period, tolerance));
      k8s.resource(tq).create();
      System.out.printf(Locale.ROOT, "%n# calibration loop: target %d ops/s for T, starting from the static limit "
          + "%d req/s, period %d s, tolerance %.0f%%%n", target, start, period, tolerance);
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
