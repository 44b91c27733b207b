package io.hbaseqos.operator.bench;

import static io.hbaseqos.operator.support.Resources.cluster;
import static io.hbaseqos.operator.support.Resources.protectedReads;
import static io.hbaseqos.operator.support.Resources.sheddable;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.QosStatus;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.PrometheusServer;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.ycsb.LatencyTenants;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Latency protection on a real standalone HBase 2.6.4 with YCSB's core read workload: U, a
 * real-time tenant reading at a steady pace, and T, a batch tenant reading as fast as its threads
 * can. U's objective is its measured unloaded p99 times {@code --factor}, or a fixed
 * {@code --objective-ms} (the same objective across runs, whatever the machine's minute). Three runs:
 * <ol>
 *   <li>no policy: T unthrottled;</li>
 *   <li>the oracle: static REQUEST_NUMBER limits on T (T's TenantQuota's throttle), swept from
 *       high to low; the best is the highest under which U meets its objective in at least 90% of
 *       periods;</li>
 *   <li>the policy: U protected, T sheddable, U's p99 read from a real Prometheus scraping U's
 *       client-side latency histogram; T starts when the policy is in place.</li>
 * </ol>
 * The reconcilers, a real API server and Prometheus run through all three runs (U and T are
 * TenantQuotas from the start), so each run shares the machine with the same control plane.
 * U's p99 is judged per period from the client's own histogram (the ground truth, not what the
 * operator read). Settled: the first period from which U meets its objective in at least 90% of
 * the remaining periods. Prints the table and the policy's trajectory, writes an SVG chart;
 * asserts nothing.
 *
 * <p>Run: {@code bin/benchmark qos [--u-rate 400] [--u-threads 2] [--t-threads 32]
 * [--client-loops per-tenant|shared] [--placement apart|any] [--window 10]
 * [--factor 2 | --objective-ms 2.3] [--periods 24] [--levels 0.5,0.35,0.25,0.18,0.12,0.08] [--level-periods 6]
 * [--sweep first|last|both] [--chart target/bench-qos.svg] [--hbase-jvm "-Xmx768m -XX:+UseSerialGC"]}.
 * The levels are fractions of T's unthrottled ops/s. {@code --sweep last} runs the sweep after the
 * policy, with T started under each level's limit as it starts under the policy; {@code --sweep both}
 * runs it before and after (the second from the lowest limit up, so each limit is read at two times
 * since the start), and the oracle is the highest limit that met the goal over both sweeps' periods
 * pooled (the machine's drift between minutes is sampled on both sides of the policy run). Every
 * period is printed with the longest collector pause of the HBase JVM and of this one that fell in
 * it, and the run ends with the pauses set against the periods U met and missed.
 *
 * <p>The RegionServer serves each connection on one of its Netty event loops, taken in turn as
 * connections arrive, and T gets a new connection at each start. When T's lands on U's loop, U's
 * latency rises at any limit on T: a throttle rejects T's calls after the loop has carried them. With
 * {@code --placement apart} (the default) T is started again until its connection is served on
 * another loop, so the sweep's limits and the policy are judged on the same footing; {@code any}
 * keeps the draw. Every period prints the loops T and U were served on (from the loops' CPU).
 *
 * <p>{@code --warmup S} (20): seconds of U and T together before U is read alone for its unloaded p99;
 * a server that starts slow for minutes loosens an objective taken from the first ones.
 *
 * <p>{@code --control-plane-nice N}: the kube-apiserver, etcd and Prometheus the run starts, at nice N, so
 * that on a small machine they take only the CPU the RegionServer and the tenants leave, as a control plane
 * on hosts of its own would (the operator runs in this JVM and keeps its priority).
 *
 * <p>{@code --limiter fixed|average} (fixed): the RegionServer's rate limiter. {@code fixed} is the
 * FixedIntervalRateLimiter with a 100 ms refill that docs/operations.md recommends (every run so far ran on
 * it): a refused client waits for the next refill. {@code average} is HBase's default AverageIntervalRateLimiter,
 * whose tokens refill continuously: a refused client is told to retry within about a millisecond, and the
 * RegionServer answers every retry.
 *
 * <p>{@code --hbase-version V --refresh-ms MS}: another HBase release (2.5.12: no quota reload on a
 * write) and its RegionServer's {@code hbase.quota.refresh.period}, declared on the HBaseCluster too.
 * A limit written there is in force only after up to two refreshes (the chore refetches a cached
 * quota every other run), so each sweep level is measured from two refreshes after its write, and
 * the policy starts T only once the sweep's last limit has given way to the policy's ceiling: U is
 * read alone meanwhile, which also shows whether the server stayed as fast as it started.
 */
public final class QosBenchmark {
  static final double GOAL = 0.9;
  /** T's limit outside the sweep: far above what it can do on one machine. */
  static final long UNTHROTTLED = 1_000_000;

  private QosBenchmark() {}

  public static void main(String[] args) {
    SyncBenchmark.runAndExit(QosBenchmark::run, args);
  }

  /** {@code --control-plane-nice N}: the kube-apiserver, etcd and Prometheus this run started, reniced to N (1 to 19). */
  static void reniceControlPlane(int nice) throws Exception {
    if (nice < 1 || nice > 19) {
      throw new IllegalArgumentException("--control-plane-nice is 1 to 19, not " + nice);
    }
    Set<String> names = Set.of("kube-apiserver", "etcd", "prometheus");
    List<String> pids = ProcessHandle.current().descendants()
        .filter(p -> p.info().command().map(c -> names.contains(Path.of(c).getFileName().toString())).orElse(false))
        .map(p -> String.valueOf(p.pid())).toList();
    if (pids.isEmpty()) {
      throw new IllegalStateException("--control-plane-nice: no kube-apiserver, etcd or Prometheus of this run found");
    }
    List<String> cmd = new ArrayList<>(List.of("renice", "-n", String.valueOf(nice), "-p"));
    cmd.addAll(pids);
    int rc = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.INHERIT).start().waitFor();
    if (rc != 0) {
      throw new IllegalStateException("could not renice the control plane (" + pids + "): renice exited " + rc);
    }
    System.out.printf(Locale.ROOT, "# control plane (kube-apiserver, etcd, Prometheus: pids %s) at nice %d%n",
        String.join(" ", pids), nice);
  }

  /**
   * U and T as both latency benchmarks run them ({@code --u-rate 400 --u-threads 2 --t-threads 32}): U
   * reads at its own pace, T as fast as its threads can, on a table of 5000 rows.
   */
  record Tenants(double uRate, int uThreads, int tThreads, boolean ownClientLoops) {
    static Tenants of(Map<String, String> o) {
      String loops = o.getOrDefault("client-loops", "per-tenant");
      if (!List.of("per-tenant", "shared").contains(loops)) {
        throw new IllegalArgumentException("--client-loops is per-tenant or shared, not " + loops);
      }
      return new Tenants(Double.parseDouble(o.getOrDefault("u-rate", "400")),
          Integer.parseInt(o.getOrDefault("u-threads", "2")), Integer.parseInt(o.getOrDefault("t-threads", "32")),
          loops.equals("per-tenant"));
    }

    /** Loads the table, starts U and prints who runs how, per window of {@code window} seconds. */
    LatencyTenants start(StandaloneHBase hbase, int window) throws Exception {
      LatencyTenants load = LatencyTenants.start(hbase.clientConfiguration(), "qos_usertable", 5000, "qos-u",
          uThreads, uRate, "qos-t", tThreads, ownClientLoops);
      System.out.printf(Locale.ROOT, "# U: %d threads at %.0f reads/s together; T: %d threads as fast as they can; "
          + "client event loops %s; periods of %d s%n", uThreads, uRate, tThreads,
          ownClientLoops ? "per tenant" : "shared by U and T", window);
      return load;
    }
  }

  /**
   * One period: U's client-side p99 (ms) and the tenants' ops/s; the limit on T and its state where
   * known; when it ran (epoch ms), to find the collector pauses that fell in it.
   */
  record Period(int n, double uP99, double uOps, double tOps, Long limit, String state, Double operatorMs,
      long fromMillis, long toMillis, Map<Integer, Double> loops) {
    /** Where T's and U's connections were served in this period (null: T stopped, or no reading). */
    ServerLoops.Placement placement() {
      return tOps <= 0 ? null : ServerLoops.place(alone, loops);
    }
  }

  /** The collector logs of the HBase JVM and of this one (bin/benchmark starts it with one). */
  static Path hbaseGcLog;
  static Path clientGcLog = Path.of("target/gc-benchmark.log");
  /** The RegionServer's event loops, and their CPU per second with U alone (empty: not read yet). */
  static ServerLoops loops = new ServerLoops(-1);
  static Map<Integer, Double> alone = Map.of();
  /** Whether T is started again, on a new connection, until it is served on a loop other than U's. */
  static boolean apart = true;
  /** How long after a limit is in hbase:quota it is in force: 6 s (a reload on write), or two refreshes. */
  static long inForceMs = 6000;

  static void run(String[] args) throws Exception {
    Map<String, String> o = SyncBenchmark.options(args);
    Tenants tenants = Tenants.of(o);
    int window = Integer.parseInt(o.getOrDefault("window", "10"));
    double factor = Double.parseDouble(o.getOrDefault("factor", "2"));
    Double objective = o.containsKey("objective-ms") ? Double.valueOf(o.get("objective-ms")) : null;
    if (objective != null && o.containsKey("factor")) {
      throw new IllegalArgumentException("--factor and --objective-ms are two ways to set one objective: give one");
    }
    int periods = Integer.parseInt(o.getOrDefault("periods", "24"));
    int warmup = Integer.parseInt(o.getOrDefault("warmup", "20"));
    if (warmup < 1) {
      throw new IllegalArgumentException("--warmup is seconds, at least 1, not " + warmup);
    }
    int levelPeriods = Integer.parseInt(o.getOrDefault("level-periods", "6"));
    List<Double> levels = Arrays.stream(o.getOrDefault("levels", "0.5,0.35,0.25,0.18,0.12,0.08").split(","))
        .filter(s -> !s.isBlank()).map(Double::parseDouble).toList();
    Path chart = Path.of(o.getOrDefault("chart", "target/bench-qos.svg"));

    // --hbase-version 2.5.12 --refresh-ms 60000: an HBase that reloads quotas only at its refresh chore (before
    // 2.6.3), with that period declared on the HBaseCluster, as the loop must then wait for it
    String refreshMs = o.get("refresh-ms");
    if (refreshMs != null && (Long.parseLong(refreshMs) < 1000 || Long.parseLong(refreshMs) % 1000 != 0)) {
      throw new IllegalArgumentException("--refresh-ms is whole seconds of at least 1000 ms, not " + refreshMs);
    }
    if (refreshMs != null) {
      inForceMs = 2 * Long.parseLong(refreshMs) + 5000;
    }
    Map<String, String> site = new LinkedHashMap<>(StandaloneHBase.limiterSite(o.getOrDefault("limiter", "fixed")));
    if (refreshMs != null) {
      site.put("hbase.quota.refresh.period", refreshMs);
    }
    StandaloneHBase hbase = new StandaloneHBase(Files.createTempDirectory("bench-qos"), site, o.get("hbase-version"));
    if (o.containsKey("hbase-jvm")) {
      hbase.memory(Arrays.asList(o.get("hbase-jvm").trim().split("\\s+")));
    }
    hbaseGcLog = hbase.gcLog();
    hbase.start();
    loops = new ServerLoops(hbase.pid());
    String placement = o.getOrDefault("placement", "apart");
    if (!List.of("apart", "any").contains(placement)) {
      throw new IllegalArgumentException("--placement is apart or any, not " + placement);
    }
    apart = placement.equals("apart");
    KubernetesClient k8s = KubeApi.client();
    String ns = KubeApi.newNamespace("bench-qos");
    try (OperatorHarness operator = new OperatorHarness(k8s);
        LatencyTenants load = tenants.start(hbase, window);
        PrometheusServer prometheus = PrometheusServer.start(load::clientMetrics)) {
      io.hbaseqos.operator.api.HBaseCluster hc = cluster(ns, "hb", hbase.connectionSpec(), "30s");
      if (refreshMs != null) {
        hc.getSpec().getQuotas().setRefreshPeriod(Long.parseLong(refreshMs) / 1000 + "s");
      }
      k8s.resource(hc).create();
      KubeApi.awaitClusterReady(ns, "hb");
      System.out.printf(Locale.ROOT, "# HBase %s, quota refresh period %s, %s%n", o.getOrDefault("hbase-version",
          "2.6.4"), refreshMs == null ? "5 s (reloaded on every write since 2.6.3)" : refreshMs + " ms",
          "limiter " + StandaloneHBase.limiterName(o.getOrDefault("limiter", "fixed")));
      if (o.containsKey("control-plane-nice")) {
        reniceControlPlane(Integer.parseInt(o.get("control-plane-nice")));
      }
      // T's TenantQuota from the start, its limit far above what it can do until the sweep sets one
      k8s.resource(tenant(ns, "t", "hb", user(load.tUser), Resources.t(ThrottleKind.REQUEST_NUMBER,
          UNTHROTTLED + "req/sec"))).create();
      load.startBatch();
      // warm up every path (caches, JIT, connections) with T running: --warmup seconds, 20 by default
      load.measure(warmup);
      List<Period> alonePeriods = alone(load, window, 6);
      List<Double> aloneP99 = alonePeriods.stream().map(Period::uP99).toList();
      double unloaded = median(aloneP99);
      double bound = objective != null ? objective : Math.round(unloaded * factor * 10) / 10.0;
      System.out.printf(Locale.ROOT, "# U alone: p99 per period %s ms, median %.2f; objective p99 <= %.1f ms "
          + "(%s; %.1f x the unloaded p99)%n", fmt(aloneP99), unloaded, bound,
          objective != null ? "--objective-ms" : "--factor " + factor, bound / unloaded);
      print(alonePeriods, bound);
      alone = meanLoops(alonePeriods);
      System.out.printf(Locale.ROOT, "# the RegionServer's event loops with U alone, CPU s/s: %s; T's connection %s%n",
          alone, apart ? "is opened again until it is served on a loop other than U's (--placement apart)"
              : "stays on whichever loop it draws (--placement any)");

      // U protected from here on: with no sheddable tenant below it until run 3 its objective is read every
      // period and moves nothing
      String query = String.format(Locale.ROOT, "histogram_quantile(0.99, sum by (le) (rate("
          + "ycsb_client_latency_seconds_bucket{tenant=\"%s\"}[%ds]))) * 1000", load.uUser, window);
      TenantQuota u = tenant(ns, "u", "hb", user(load.uUser));
      u.getSpec().setQos(protectedReads(100, bound, window + "s", prometheus.url, query));
      k8s.resource(u).create();
      System.out.printf(Locale.ROOT, "# U protected (p99 <= %.1f ms, from Prometheus: %s)%n", bound, query);

      System.out.println("\n## run 1: no policy");
      startT(load);
      load.measure(5);
      List<Period> free = periods(load, window, periods / 2, null);
      double tFree = free.stream().mapToDouble(Period::tOps).average().orElse(0);
      print(free, bound);

      String sweepAt = o.getOrDefault("sweep", "first");
      if (!List.of("first", "last", "both").contains(sweepAt)) {
        throw new IllegalArgumentException("--sweep is first, last or both, not " + sweepAt);
      }
      boolean both = sweepAt.equals("both");
      List<Map<Long, List<Period>>> sweeps = new ArrayList<>();
      if (!sweepAt.equals("last")) {
        sweeps.add(sweep(both ? "the oracle sweep, before the policy" : "the oracle sweep", k8s, ns, hbase, load,
            window, levels, levelPeriods, tFree, bound, both));
      }
      System.out.println("\n## run 3: the operator's policy");
      List<Period> policy = policy(k8s, ns, hbase, load, window, periods, tFree, bound);
      print(policy, bound);
      if (!sweepAt.equals("first")) {
        load.stopBatch();
        // after a first sweep, from low to high: each limit is then read at another time since the start
        sweeps.add(sweep("the oracle sweep, after the policy" + (both ? ", lowest limit first" : ""), k8s, ns, hbase,
            load, window, both ? reversed(levels) : levels, levelPeriods, tFree, bound, true));
      }
      // the machine's own drift: U alone again, after everything (T stopped), against the same objective
      List<Period> aloneAfterPeriods = alone(load, window, 4);
      List<Double> aloneAfter = aloneAfterPeriods.stream().map(Period::uP99).toList();
      System.out.printf(Locale.ROOT, "%n# U alone again, after the runs: p99 per period %s ms (%.0f%% within the "
          + "objective)%n", fmt(aloneAfter), aloneAfter.stream().filter(x -> x <= bound).count() * 100.0
          / aloneAfter.size());
      print(aloneAfterPeriods, bound);
      Map<Long, List<Period>> pooled = pool(sweeps);
      if (sweeps.size() > 1) {
        System.out.println("\n## the sweeps pooled");
        printLevels(pooled, bound);
      }
      Oracle best = oracle(pooled, bound);
      long oracle = best.limit();
      double oracleT = best.tOps();
      double oracleMet = best.met();
      int settle = settle(policy, bound);
      // never settled: judged from the first period U met its objective, and said so
      int from = settle >= 0 ? settle : Math.max(0, firstMet(policy, bound));
      List<Period> after = policy.subList(from, policy.size());
      double policyT = after.stream().mapToDouble(Period::tOps).average().orElse(0);

      System.out.println("\n| run | T limit | U periods meeting p99 <= " + bound + " ms | T ops/s | T vs oracle |");
      System.out.println("|---|---|---|---|---|");
      System.out.printf(Locale.ROOT, "| no policy | none | %.0f%% | %.0f | %s |%n", met(free, bound) * 100, tFree,
          ratio(tFree, oracleT));
      if (oracle == 0) {
        // no limit reached the goal: name the ones that came nearest, so the policy can be set beside them
        double top = pooled.values().stream().mapToDouble(ps -> met(ps, bound)).max().orElse(0);
        pooled.forEach((limit, ps) -> {
          if (top > 0 && met(ps, bound) == top) {
            System.out.printf(Locale.ROOT, "| nearest static limit (sweep) | %d req/s | %.0f%% | %.0f | - |%n", limit,
                top * 100, ps.stream().mapToDouble(Period::tOps).average().orElse(0));
          }
        });
      }
      System.out.printf(Locale.ROOT, "| best static limit (sweep) | %s | %.0f%% | %.0f | %s |%n",
          oracle == 0 ? "none met the goal" : oracle + " req/s", oracleMet * 100, oracleT, oracle == 0 ? "-" : "1.00");
      System.out.printf(Locale.ROOT, "| policy, %s | %s | %.0f%% | %.0f | %s |%n", settle >= 0
          ? String.format(Locale.ROOT, "settled at period %d of %d", settle + 1, policy.size())
          : String.format(Locale.ROOT, "never settled (>= 90%%): periods %d..%d", from + 1, policy.size()),
          limits(after), met(after, bound) * 100, policyT, ratio(policyT, oracleT));
      Files.createDirectories(chart.toAbsolutePath().getParent());
      Files.writeString(chart, QosChart.svg(String.format(Locale.ROOT,
          "Latency protection: U's p99 objective %.1f ms, T sheddable (%s)", bound, oracle == 0
              ? "no static limit met the goal" : "oracle " + oracle + " req/s"), policy,
          bound, oracle));
      System.out.println("\nchart: " + chart);
      List<Period> judged = new ArrayList<>(policy);
      sweeps.forEach(sw -> sw.values().forEach(judged::addAll));
      System.out.println("\n# collector pauses in the sweeps' and the policy's periods");
      printPauses(judged, bound);
    } finally {
      KubeApi.cleanUp(Set.of(ns));
      hbase.close();
    }
  }

  /** The best static limit (0: none met the goal), T's ops/s and U's share of periods met under it. */
  record Oracle(long limit, double tOps, double met) {}

  /** Each limit's periods over all the sweeps, highest limit first. */
  static Map<Long, List<Period>> pool(List<Map<Long, List<Period>>> sweeps) {
    Map<Long, List<Period>> pooled = new TreeMap<>(Comparator.reverseOrder());
    sweeps.forEach(levels -> levels.forEach((limit, ps) -> pooled.computeIfAbsent(limit, k -> new ArrayList<>())
        .addAll(ps)));
    return pooled;
  }

  /**
   * The highest static limit under which U met its objective in at least {@link #GOAL} of its periods
   * (pooled over sweeps before and after the policy, they sample the machine's drift on both sides).
   */
  static Oracle oracle(Map<Long, List<Period>> levels, double bound) {
    for (Map.Entry<Long, List<Period>> e : levels.entrySet()) {
      double met = met(e.getValue(), bound);
      if (met >= GOAL) {
        return new Oracle(e.getKey(), e.getValue().stream().mapToDouble(Period::tOps).average().orElse(0), met);
      }
    }
    return new Oracle(0, 0, 0);
  }

  static void printLevels(Map<Long, List<Period>> levels, double bound) {
    System.out.println("| T limit (req/s) | T ops/s | U p99 per period (ms) | periods met | longest HBase GC pause "
        + "per period (ms) | periods T on U's server loop |");
    System.out.println("|---|---|---|---|---|---|");
    Function<Period, String> hbaseGc = longestPause(hbaseGcLog);
    levels.forEach((limit, ps) -> System.out.printf(Locale.ROOT, "| %d | %.0f | %s | %.0f%% | %s | %s |%n", limit,
        ps.stream().mapToDouble(Period::tOps).average().orElse(0), fmt(ps.stream().map(Period::uP99).toList()),
        met(ps, bound) * 100, String.join(" ", ps.stream().map(hbaseGc).toList()), shared(ps)));
  }

  /**
   * Starts T. With {@link #apart}, while T's connection is served on U's loop (read over 5 s), T is
   * stopped and started again: a new connection takes the RegionServer's next loop. Prints where T
   * landed at each start.
   */
  static void startT(LatencyTenants load) throws Exception {
    for (int start = 1; ; start++) {
      load.startBatch();
      Map<Integer, Double> before = loops.cpu();
      long t0 = System.nanoTime();
      Thread.sleep(5000);
      ServerLoops.Placement p = ServerLoops.place(alone, ServerLoops.rate(before, loops.cpu(),
          (System.nanoTime() - t0) / 1e9));
      System.out.println("# T started (" + start + "): " + (p == null ? "its loop not read" : p));
      if (!apart || p == null || !p.shared() || start >= 2 * Math.max(1, alone.size())) {
        return;
      }
      load.stopBatch();
    }
  }

  /** Each loop's mean CPU per second over {@code ps}. */
  static Map<Integer, Double> meanLoops(List<Period> ps) {
    Map<Integer, Double> sum = new TreeMap<>();
    ps.forEach(p -> p.loops().forEach((k, v) -> sum.merge(k, v / ps.size(), Double::sum)));
    sum.replaceAll((k, v) -> Math.round(v * 1000) / 1000.0);
    return sum;
  }

  /** {@code n} periods of U with T stopped. */
  static List<Period> alone(LatencyTenants load, int window, int n) throws Exception {
    load.stopBatch();
    load.measure(5);
    return periods(load, window, n, null);
  }

  static <T> List<T> reversed(List<T> xs) {
    List<T> r = new ArrayList<>(xs);
    Collections.reverse(r);
    return r;
  }

  /**
   * Run 2: static REQUEST_NUMBER limits on T, from high to low. With {@code restart} T is stopped
   * while each limit is written and starts under it, as it does in the policy run; otherwise T runs
   * through the changes.
   */
  static Map<Long, List<Period>> sweep(String title, KubernetesClient k8s, String ns, StandaloneHBase hbase,
      LatencyTenants load, int window, List<Double> levels, int levelPeriods, double tFree, double bound,
      boolean restart) throws Exception {
    System.out.println("\n## run 2: static limits on T (" + title + (restart ? ", T started under each limit)" : ")"));
    Map<Long, List<Period>> sweep = new LinkedHashMap<>();
    for (double f : levels) {
      long limit = Math.max(1, Math.round(f * tFree));
      if (restart) {
        load.stopBatch();
      }
      Resources.edit(k8s, TenantQuota.class, ns, "t", tq -> {
        tq.getSpec().setQos(null);
        tq.getSpec().setThrottles(new ArrayList<>(List.of(Resources.t(ThrottleKind.REQUEST_NUMBER, limit + "req/sec"))));
      });
      awaitInQuotaTable(hbase, load.tUser, limit, "T's limit");
      Thread.sleep(inForceMs); // RegionServers reload quotas on change (2.6.3+), or at their refresh
      startT(load);
      sweep.computeIfAbsent(limit, k -> new ArrayList<>()).addAll(periods(load, window, levelPeriods, null));
    }
    printLevels(sweep, bound);
    load.stopBatch();
    return sweep;
  }

  /** Waits until hbase:quota, read raw, holds {@code limit} req/sec for {@code user}. */
  static void awaitInQuotaTable(StandaloneHBase hbase, String user, long limit, String what) {
    await().alias(what + " of " + limit + " req/sec in hbase:quota").atMost(60, TimeUnit.SECONDS)
        .pollInterval(200, TimeUnit.MILLISECONDS)
        .until(() -> Long.valueOf(limit).equals(QuotaTableRaw.userLimit(hbase, user, "req_num")));
  }

  static List<Period> policy(KubernetesClient k8s, String ns, StandaloneHBase hbase, LatencyTenants load,
      int window, int periods, double tFree, double bound) throws Exception {
    long ceiling = Math.round(tFree * 1.5);
    long floor = Math.max(10, Math.round(tFree * 0.01));
    Resources.edit(k8s, TenantQuota.class, ns, "t", t -> {
      t.getSpec().setThrottles(new ArrayList<>());
      t.getSpec().setQos(sheddable(10, floor, ceiling));
    });
    awaitInQuotaTable(hbase, load.tUser, ceiling, "T's ceiling");
    // U alone until the ceiling is in force (the sweep's last limit no longer is): two periods at least
    int aloneFor = (int) Math.max(2, Math.ceil(inForceMs / (window * 1000.0)));
    List<Period> between = alone(load, window, aloneFor);
    System.out.printf(Locale.ROOT, "# U alone before the policy, T's ceiling written: p99 per period %s ms%n",
        fmt(between.stream().map(Period::uP99).toList()));
    print(between, bound);
    System.out.printf(Locale.ROOT, "# T sheddable below U, floor %d, ceiling %d req/s; T starts now%n", floor,
        ceiling);
    startT(load);
    return periods(load, window, periods, name -> k8s.resources(TenantQuota.class).inNamespace(ns).withName(name)
        .get());
  }

  /**
   * Measures {@code n} periods; with {@code tenants} (the policy run), also T's limit and state and the
   * reading of U's objective from their TenantQuotas {@code t} and {@code u}.
   */
  static List<Period> periods(LatencyTenants load, int window, int n,
      java.util.function.Function<String, TenantQuota> tenants) throws Exception {
    List<Period> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      Map<Integer, Double> cpu0 = loops.cpu();
      LatencyTenants.Sample s = load.measure(window);
      Map<Integer, Double> loopRates = ServerLoops.rate(cpu0, loops.cpu(), s.seconds());
      long to = System.currentTimeMillis();
      QosStatus t = tenants == null ? null : qos(tenants.apply("t"));
      QosStatus u = tenants == null ? null : qos(tenants.apply("u"));
      Double seen = u == null || u.getObjectives() == null || u.getObjectives().isEmpty() ? null
          : u.getObjectives().get(0).getObservedMillis();
      out.add(new Period(i, s.uMs(99), s.uOps(), s.tOps(), t == null ? null : t.getLimit(),
          t == null ? null : t.getState(), seen, to - Math.round(s.seconds() * 1000), to, loopRates));
    }
    return out;
  }

  static QosStatus qos(TenantQuota tq) {
    return tq == null || tq.getStatus() == null ? null : tq.getStatus().getQos();
  }

  static void print(List<Period> ps, double bound) {
    System.out.println("| period | U p99 ms (client) | met | U ops/s | T ops/s | T limit | T state | U p99 the operator "
        + "read | longest GC pause ms, HBase / client | server loops |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    Function<Period, String> hbaseGc = longestPause(hbaseGcLog);
    Function<Period, String> clientGc = longestPause(clientGcLog);
    for (Period p : ps) {
      System.out.printf(Locale.ROOT, "| %d | %.2f | %s | %.0f | %.0f | %s | %s | %s | %s / %s | %s |%n", p.n(), p.uP99(),
          p.uP99() <= bound ? "yes" : "no", p.uOps(), p.tOps(), p.limit() == null ? "-" : p.limit(),
          p.state() == null ? "-" : p.state(), p.operatorMs() == null ? "-" : String.format(Locale.ROOT, "%.2f",
              p.operatorMs()), hbaseGc.apply(p), clientGc.apply(p), java.util.Objects.toString(p.placement(), "-"));
    }
  }

  /** How many of {@code ps} had T on U's loop, of those read. */
  static String shared(List<Period> ps) {
    List<ServerLoops.Placement> read = ps.stream().map(Period::placement).filter(java.util.Objects::nonNull).toList();
    return read.isEmpty() ? "-" : read.stream().filter(ServerLoops.Placement::shared).count() + " of " + read.size();
  }

  /** A period's longest collector pause (ms) of the JVM logging to {@code log}, read once ("-": no log). */
  static Function<Period, String> longestPause(Path log) {
    if (log == null || !Files.isReadable(log)) {
      return p -> "-";
    }
    GcPauses gc = GcPauses.read(log);
    return p -> String.format(Locale.ROOT, "%.0f", gc.within(p.fromMillis(), p.toMillis()).longestMillis());
  }

  /**
   * Whether the periods U missed are the ones with long collector pauses: for each JVM, the median of
   * the longest pause per period, over the periods met and over the periods missed.
   */
  static void printPauses(List<Period> ps, double bound) {
    System.out.println("\n| JVM | pauses in the run | longest | median longest pause per period, U met / missed "
        + "(periods) |");
    System.out.println("|---|---|---|---|");
    for (String jvm : List.of("HBase", "client")) {
      Path log = jvm.equals("HBase") ? hbaseGcLog : clientGcLog;
      if (log == null || !Files.isReadable(log)) {
        continue;
      }
      GcPauses gc = GcPauses.read(log);
      long from = ps.stream().mapToLong(Period::fromMillis).min().orElse(0);
      long to = ps.stream().mapToLong(Period::toMillis).max().orElse(0);
      GcPauses.Within all = gc.within(from, to);
      List<Double> met = ps.stream().filter(p -> p.uP99() <= bound)
          .map(p -> gc.within(p.fromMillis(), p.toMillis()).longestMillis()).toList();
      List<Double> missed = ps.stream().filter(p -> p.uP99() > bound)
          .map(p -> gc.within(p.fromMillis(), p.toMillis()).longestMillis()).toList();
      System.out.printf(Locale.ROOT, "| %s | %d, %.0f ms in all | %.0f ms | %s (%d) / %s (%d) |%n", jvm,
          all.count(), all.totalMillis(), all.longestMillis(), met.isEmpty() ? "-" : String.format(Locale.ROOT,
              "%.0f ms", median(met)), met.size(), missed.isEmpty() ? "-" : String.format(Locale.ROOT, "%.0f ms",
              median(missed)), missed.size());
    }
  }

  /** The first period from which U meets its objective in at least {@link #GOAL} of the rest; -1: never. */
  static int settle(List<Period> ps, double bound) {
    for (int i = 0; i < ps.size() - 2; i++) {
      if (ps.get(i).uP99() <= bound && met(ps.subList(i, ps.size()), bound) >= GOAL) {
        return i;
      }
    }
    return -1;
  }

  static int firstMet(List<Period> ps, double bound) {
    for (int i = 0; i < ps.size(); i++) {
      if (ps.get(i).uP99() <= bound) {
        return i;
      }
    }
    return -1;
  }

  static double met(List<Period> ps, double bound) {
    return ps.isEmpty() ? 0 : (double) ps.stream().filter(p -> p.uP99() <= bound).count() / ps.size();
  }

  static String limits(List<Period> ps) {
    var s = ps.stream().map(Period::limit).filter(java.util.Objects::nonNull).mapToLong(Long::longValue)
        .summaryStatistics();
    return s.getCount() == 0 ? "-" : s.getMin() == s.getMax() ? s.getMin() + " req/s"
        : s.getMin() + ".." + s.getMax() + " req/s";
  }

  static String ratio(double v, double oracle) {
    return oracle <= 0 ? "-" : String.format(Locale.ROOT, "%.2f", v / oracle);
  }

  static double median(List<Double> xs) {
    List<Double> s = xs.stream().sorted().toList();
    return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
  }

  static String fmt(List<Double> xs) {
    return String.join(" ", xs.stream().map(x -> String.format(Locale.ROOT, "%.2f", x)).toList());
  }
}
