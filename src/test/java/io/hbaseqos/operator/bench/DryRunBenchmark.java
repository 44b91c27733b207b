package io.hbaseqos.operator.bench;

import static io.hbaseqos.operator.support.Resources.cluster;
import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.DryRunStatus;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.UsageStatus;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.TenantStatus;
import io.hbaseqos.operator.support.ycsb.TenantLoad;
import java.nio.file.Files;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The dry run's prediction against the real thing, on a real standalone HBase 2.6.4 with YCSB reads
 * and the reconcilers on a real API server: for each limit, a dry-run TenantQuota's prediction
 * (ops/s the tenant would get, share of its requests HBase would refuse), then the same limit
 * enforced: the ops/s the client got and the share HBase refused (its own throttling counters, as
 * {@code status.usage} reports them). Between limits the tenant is deleted, which removes the
 * enforced limit, so each dry run sees the tenant unthrottled. Prints a table; asserts nothing.
 *
 * <p>Run: {@code bin/benchmark dryrun [--threads 4] [--rate 0] [--levels 0.7,0.4,0.15] [--seconds 20]
 * [--resync 10]}. {@code --rate} paces the client (0: its threads go as fast as they can, a closed
 * loop that backs off when refused); the levels are fractions of its unthrottled ops/s.
 */
public final class DryRunBenchmark {
  private DryRunBenchmark() {}

  public static void main(String[] args) {
    SyncBenchmark.runAndExit(DryRunBenchmark::run, args);
  }

  static void run(String[] args) throws Exception {
    Map<String, String> o = SyncBenchmark.options(args);
    int threads = Integer.parseInt(o.getOrDefault("threads", "4"));
    double rate = Double.parseDouble(o.getOrDefault("rate", "0"));
    int seconds = Integer.parseInt(o.getOrDefault("seconds", "20"));
    int resync = Integer.parseInt(o.getOrDefault("resync", "10"));
    List<Double> levels = Arrays.stream(o.getOrDefault("levels", "0.7,0.4,0.15").split(","))
        .filter(s -> !s.isBlank()).map(Double::parseDouble).toList();

    StandaloneHBase hbase = new StandaloneHBase(Files.createTempDirectory("bench-dryrun"), Map.of());
    hbase.start();
    KubernetesClient k8s = KubeApi.client();
    String ns = KubeApi.newNamespace("bench-dryrun");
    Properties workload = TenantLoad.readWorkload("bench_dryrun", 5000);
    TenantLoad.load(hbase.clientConfiguration(), "loader", workload);
    String u = "bench_dry";
    try (OperatorHarness operator = new OperatorHarness(k8s);
        TenantLoad load = TenantLoad.start(hbase.clientConfiguration(), u, workload, threads, rate)) {
      k8s.resource(cluster(ns, "hb", hbase.connectionSpec(), resync + "s")).create();
      KubeApi.awaitClusterReady(ns, "hb");
      load.rate(10); // warm up: caches, JIT, connections
      double free = load.rate(seconds);
      System.out.printf(Locale.ROOT, "# YCSB reads as user %s, %d threads, %s; unthrottled %.0f ops/s; resync %d s%n",
          u, threads, rate > 0 ? "paced at " + Math.round(rate) + " ops/s" : "as fast as they can", free, resync);
      System.out.println();
      System.out.println("| READ_NUMBER limit | dry run: measured ops/s | predicted ops/s | predicted refused | "
          + "enforced: client ops/s | slowed down (1 - enforced / unthrottled) | HBase refused (its counters) "
          + "| ops/s error | refused vs slowed down (points) |");
      System.out.println("|---|---|---|---|---|---|---|---|---|");
      for (double f : levels) {
        long limit = Math.max(1, Math.round(f * free));
        String name = "dry-" + limit;
        TenantQuota tq = tenant(ns, name, "hb", user(u), t(ThrottleKind.READ_NUMBER, limit + "req/sec"));
        tq.getSpec().setEnforcement(TenantQuotaSpec.Enforcement.DryRun);
        Instant created = Instant.now();
        k8s.resource(tq).create();
        // two predictions made after its creation, the second one reported
        DryRunStatus d = await(() -> dryRun(k8s, ns, name), x -> x.getPredictedOpsPerSecond() != null
            && Instant.parse(x.getObservedTime()).isAfter(created), 6L * resync);
        Instant first = Instant.parse(d.getObservedTime());
        Thread.sleep(2000L * resync);
        d = Objects.requireNonNullElse(dryRun(k8s, ns, name), d);

        Resources.edit(k8s, TenantQuota.class, ns, name, x -> x.getSpec().setEnforcement(
            TenantQuotaSpec.Enforcement.Enforce));
        await(() -> QuotaTableRaw.userLimit(hbase, u, "read_num"), v -> v == limit, 60);
        Thread.sleep(3000); // the RegionServer reloads quotas on change (2.6.3+)
        Instant enforced = Instant.now();
        double client = load.rate(seconds);
        UsageStatus usage = await(() -> TenantStatus.usage(k8s, ns, name), x -> x.getObservedTime() != null
            && Instant.parse(x.getObservedTime()).isAfter(enforced) && x.getThrottledPercent() != null, 6L * resync);
        double slowed = Math.max(0, 1 - client / free) * 100;
        System.out.printf(Locale.ROOT, "| %d req/sec | %.0f | %.0f | %.1f%% | %.0f | %.1f%% | %.1f%% | %+.0f%% | %+.1f |%n",
            limit, d.getMeasuredOpsPerSecond(), d.getPredictedOpsPerSecond(), d.getRejectedPercent(), client, slowed,
            usage.getThrottledPercent(), (d.getPredictedOpsPerSecond() / client - 1) * 100,
            d.getRejectedPercent() - slowed);
        System.err.printf(Locale.ROOT, "  limit %d: first prediction at %s, %s%n", limit, first, d.getMessage());
        k8s.resource(TenantStatus.get(k8s, ns, name)).delete();
        await(() -> QuotaTableRaw.userRow(hbase, u) == null ? "gone" : null, Objects::nonNull, 60);
        await(() -> TenantStatus.get(k8s, ns, name) == null ? "gone" : null, Objects::nonNull, 60);
        Thread.sleep(3000);
      }
    } finally {
      KubeApi.cleanUp(Set.of(ns));
      hbase.close();
    }
  }

  static DryRunStatus dryRun(KubernetesClient k8s, String ns, String name) {
    TenantQuota tq = TenantStatus.get(k8s, ns, name);
    return tq == null || tq.getStatus() == null ? null : tq.getStatus().getDryRun();
  }

  /** Polls until {@code read} gives a value {@code done} accepts; fails after {@code seconds}. */
  static <T> T await(java.util.function.Supplier<T> read, Predicate<T> done, long seconds)
      throws InterruptedException {
    long until = System.nanoTime() + seconds * 1_000_000_000L;
    while (true) {
      T v = read.get();
      if (v != null && done.test(v)) {
        return v;
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException("not reached within " + seconds + " s; last: " + v);
      }
      Thread.sleep(500);
    }
  }
}
