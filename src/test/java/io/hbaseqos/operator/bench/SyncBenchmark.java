package io.hbaseqos.operator.bench;

import static io.hbaseqos.operator.support.Resources.cluster;
import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorProcess;
import io.hbaseqos.operator.support.StandaloneHBase;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.apache.hadoop.hbase.quotas.QuotaSettings;
import org.apache.hadoop.hbase.quotas.ThrottleSettings;

/**
 * Benchmark of the TenantQuota core on real parts: the packaged operator process, a real
 * kube-apiserver and a real standalone HBase. Prints numbers; asserts nothing.
 *
 * <ul>
 *   <li>apply latency: TenantQuota change to the row written in {@code hbase:quota}, p50/p99 over N changes;
 *   <li>scale: with 1,000 and 10,000 TenantQuotas, time to first full sync, HBase calls and status
 *       writes during idle resyncs, and the operator's heap.
 * </ul>
 * With {@code --space true} every other TenantQuota is a table with a space quota instead of a
 * user with a throttle, and every fourth a namespace with a throttle and namespace limits (the
 * namespaces are created in HBase first), so the idle resync also reads every space quota's usage
 * and lists the namespaces.
 * With {@code --calibrated 300} the first 300 tenants are calibrated users (a reads target, no throttle of their
 * own); with {@code --hung-port true} a second RegionServer joins, and after the idle measurement its process
 * is stopped (its info port hangs) and plain tenants are created one after another, each timed to its row in
 * {@code hbase:quota}.
 * Run: {@code bin/benchmark sync [--changes 200] [--tenants 1000,10000] [--resync 10] [--space false]
 * [--calibrated 0] [--hung-port false]}
 */
public final class SyncBenchmark {
  private SyncBenchmark() {}

  static boolean space;
  /** How many of the tenants are calibrated (--calibrated): users with a reads target, no throttle of their own. */
  static int calibrated;
  /** Whether a second RegionServer joins and its info port is hung after the sync (--hung-port). */
  static boolean hungPort;

  /** The HBase namespace of tenant i when it is a namespace tenant (--space). */
  static String hbaseNamespace(int n, int i) {
    return "bn" + n + "x" + i;
  }

  static boolean namespaceTenant(int i) {
    return space && i % 4 == 2;
  }

  /**
   * Tenant i: a user with a throttle, or with --space every other one a table with a space quota
   * and every fourth a namespace with a throttle and namespace limits.
   */
  static TenantQuota benchTenant(String ns, int n, int i) {
    if (namespaceTenant(i)) {
      TenantQuota tq = tenant(ns, "t" + i, "hb", io.hbaseqos.operator.support.Resources.namespace(hbaseNamespace(n, i)),
          t(ThrottleKind.REQUEST_NUMBER, "100req/sec"));
      tq.getSpec().setNamespaceLimits(new io.hbaseqos.operator.api.NamespaceLimitsSpec(100L, 1000L));
      return tq;
    }
    if (space && i % 2 == 1) {
      TenantQuota tq = tenant(ns, "t" + i, "hb", io.hbaseqos.operator.support.Resources.table("default:bench" + n + "_" + i));
      tq.getSpec().setSpace(new io.hbaseqos.operator.api.SpaceSpec("1G",
          io.hbaseqos.operator.quota.SpaceLimit.Policy.NO_INSERTS));
      return tq;
    }
    if (i < calibrated) {
      TenantQuota tq = tenant(ns, "t" + i, "hb", user("b" + n + "-" + i));
      tq.getSpec().setCalibration(io.hbaseqos.operator.support.Resources.readsCalibration(100, resyncSeconds, 5));
      return tq;
    }
    return tenant(ns, "t" + i, "hb", user("b" + n + "-" + i), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"));
  }

  static int resyncSeconds = 10;

  /** How many of the benchmark's subjects HBase holds. */
  static int inHBase(Admin admin, int n) throws java.io.IOException {
    int users = admin.getQuota(new QuotaFilter().setUserFilter("b" + n + "-.*")).size();
    return space ? users + admin.getQuota(new QuotaFilter().setTableFilter("bench" + n + "_.*")).size()
        + admin.getQuota(new QuotaFilter().setNamespaceFilter("bn" + n + "x.*")).size() : users;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = options(args);
    int changes = Integer.parseInt(opts.getOrDefault("changes", "200"));
    int resync = Integer.parseInt(opts.getOrDefault("resync", "10"));
    space = Boolean.parseBoolean(opts.getOrDefault("space", "false"));
    calibrated = Integer.parseInt(opts.getOrDefault("calibrated", "0"));
    hungPort = Boolean.parseBoolean(opts.getOrDefault("hung-port", "false"));
    resyncSeconds = resync;
    List<Integer> sizes = Arrays.stream(opts.getOrDefault("tenants", "1000,10000").split(","))
        .filter(s -> !s.isBlank()).map(Integer::parseInt).toList();
    KubernetesClient k8s = KubeApi.client();
    if (changes > 0) {
      latency(k8s, changes, resync);
    }
    for (int n : sizes) {
      scale(k8s, n, resync);
    }
    System.exit(0);
  }

  static void latency(KubernetesClient k8s, int changes, int resync) throws Exception {
    StandaloneHBase hbase = new StandaloneHBase(Files.createTempDirectory("bench-hbase"), Map.of());
    hbase.start();
    String ns = KubeApi.newNamespace("bench-latency");
    try (OperatorProcess op = OperatorProcess.start(KubeApi.kubeconfig(), Map.of(
        "QUARKUS_OPERATOR_SDK_NAMESPACES", ns))) {
      k8s.resource(cluster(ns, "hb", hbase.connectionSpec(), resync + "s")).create();
      String u = "bench-latency";
      k8s.resource(tenant(ns, "lat", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "999req/sec"))).create();
      try (Admin admin = hbase.admin()) {
        waitForLimit(admin, u, 999, 60_000);
        long[] ms = new long[changes];
        for (int i = 0; i < changes; i++) {
          long want = 1000 + i;
          long t0 = System.nanoTime();
          k8s.resources(TenantQuota.class).inNamespace(ns).withName("lat").patch(
              io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
              "{\"spec\":{\"throttles\":[{\"type\":\"REQUEST_NUMBER\",\"limit\":\"" + want + "req/sec\"}]}}");
          waitForLimit(admin, u, want, 30_000);
          ms[i] = (System.nanoTime() - t0) / 1_000;
        }
        Arrays.sort(ms);
        System.out.printf("apply latency (TenantQuota change -> row in hbase:quota), %d changes: "
                + "p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms%n", changes, ms[changes / 2] / 1e3,
            ms[(int) (changes * 0.9)] / 1e3, ms[(int) Math.min(changes - 1, Math.ceil(changes * 0.99) - 1)] / 1e3,
            ms[changes - 1] / 1e3);
      }
    } finally {
      hbase.close();
    }
  }

  static void waitForLimit(Admin admin, String user, long want, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    QuotaFilter f = new QuotaFilter().setUserFilter(Pattern.quote(user));
    while (System.currentTimeMillis() < deadline) {
      for (QuotaSettings s : admin.getQuota(f)) {
        if (s instanceof ThrottleSettings ts && ts.getSoftLimit() == want) {
          return;
        }
      }
      Thread.sleep(1);
    }
    throw new IllegalStateException("limit " + want + " not in HBase after " + timeoutMs + " ms");
  }

  static void scale(KubernetesClient k8s, int n, int resync) throws Exception {
    StandaloneHBase hbase = new StandaloneHBase(Files.createTempDirectory("bench-hbase"), Map.of());
    hbase.start();
    String ns = KubeApi.newNamespace("bench-" + n);
    // a second RegionServer, stopped after the sync: it must stay live to the master meanwhile (40 s session)
    StandaloneHBase.RegionServerProcess second = hungPort
        ? hbase.regionServerProcess(Map.of("zookeeper.session.timeout", "40000")) : null;
    try {
      if (second != null) {
        second.start();
        try (Admin admin = hbase.admin()) {
          admin.balancerSwitch(false, true);
          org.apache.hadoop.hbase.ServerName stays = admin.getRegionServers().stream()
              .filter(sn -> sn.getPort() != second.port()).findFirst().orElseThrow();
          for (var r : admin.getRegions(org.apache.hadoop.hbase.TableName.valueOf("hbase:quota"))) {
            admin.move(r.getEncodedNameAsBytes(), stays); // it measures the operator, not a region move
          }
        }
      }
      k8s.resource(cluster(ns, "hb", hbase.connectionSpec(), resync + "s")).create();
      if (space) {
        long n0 = System.nanoTime();
        int created = 0;
        try (Admin admin = hbase.admin()) {
          for (int i = 0; i < n; i++) {
            if (namespaceTenant(i)) {
              admin.createNamespace(org.apache.hadoop.hbase.NamespaceDescriptor.create(hbaseNamespace(n, i)).build());
              created++;
            }
          }
        }
        System.out.printf("scale %d: created %d HBase namespaces in %.1f s%n", n, created, (System.nanoTime() - n0) / 1e9);
      }
      long c0 = System.nanoTime();
      ExecutorService pool = Executors.newFixedThreadPool(16);
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int id = i;
        fs.add(pool.submit(() -> k8s.resource(benchTenant(ns, n, id)).create()));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      pool.shutdown();
      System.out.printf("scale %d: created %d TenantQuotas in %.1f s (operator not running yet)%n", n, n,
          (System.nanoTime() - c0) / 1e9);

      long s0 = System.nanoTime();
      Map<String, Double> cpu0 = CpuByProcess.now();
      try (OperatorProcess op = OperatorProcess.start(KubeApi.kubeconfig(), Map.of(
          "QUARKUS_OPERATOR_SDK_NAMESPACES", ns, "HBQ_OPERATOR_XMX", "1g"))) {
        double started = (System.nanoTime() - s0) / 1e9;
        int ready = 0;
        int inHBase = 0;
        while (ready < n || inHBase < n) {
          Thread.sleep(500);
          if ((System.nanoTime() - s0) / 1e9 > 900) {
            throw new IllegalStateException("not synced after 900 s: ready " + ready + ", in HBase " + inHBase);
          }
          // Cheap progress signal first: a full read of hbase:quota (or a list of every TenantQuota) each
          // poll would take CPU from the operator, HBase and the API server on this small machine.
          if (calls(op).getOrDefault("setQuota", 0.0) < n) {
            continue;
          }
          try (Admin admin = hbase.admin()) {
            inHBase = inHBase(admin, n);
          }
          if (inHBase < n) {
            continue;
          }
          ready = (int) k8s.resources(TenantQuota.class).inNamespace(ns).list().getItems().stream()
              .filter(tq -> tq.getStatus() != null && tq.getStatus().condition("Ready")
                  .map(c -> "True".equals(c.getStatus())).orElse(false)).count();
        }
        double synced = (System.nanoTime() - s0) / 1e9;
        System.out.printf("scale %d: operator ready %.1f s after start; all %d quotas in HBase and Ready %.1f s after "
            + "start (%.1f s after the operator was ready)%n", n, started, n, synced, synced - started);
        System.out.printf("scale %d: CPU during the sync (%.0f CPU-s available on %d cores): %s%n", n,
            synced * Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().availableProcessors(),
            CpuByProcess.delta(cpu0, CpuByProcess.now()));

        Map<String, Double> sums = sums(op);
        Map<String, Double> counts = calls(op);
        System.out.printf("scale %d: during the sync %.0f setQuota calls, mean %.1f ms each (%d reconcile threads)%n", n,
            counts.getOrDefault("setQuota", 0.0), 1000 * sums.getOrDefault("setQuota", 0.0)
                / Math.max(1, counts.getOrDefault("setQuota", 0.0)), 20);
        Thread.sleep(2L * resync * 1000); // let the first resyncs after the sync pass
        Map<String, Double> before = calls(op);
        Map<String, Double> infoBefore = infoServerRequests(op);
        Map<String, String> rv = versions(k8s, ns);
        int periods = 3;
        Thread.sleep((long) periods * resync * 1000);
        Map<String, Double> after = calls(op);
        Map<String, Double> infoAfter = infoServerRequests(op);
        System.out.printf("scale %d: idle, %d resync periods: RegionServer info-server requests /prometheus %.0f, "
            + "/jmx %.0f, /conf %.0f (%.1f per period, %d RegionServer(s))%n", n, periods,
            delta(infoBefore, infoAfter, "/prometheus"), delta(infoBefore, infoAfter, "/jmx"),
            delta(infoBefore, infoAfter, "/conf"), (delta(infoBefore, infoAfter, "/prometheus")
                + delta(infoBefore, infoAfter, "/jmx") + delta(infoBefore, infoAfter, "/conf")) / periods,
            second == null ? 1 : 2);
        Map<String, String> rv2 = versions(k8s, ns);
        long statusWrites = rv2.entrySet().stream().filter(e -> !e.getValue().equals(rv.get(e.getKey()))).count();
        System.out.printf("scale %d%s: idle, %d resync periods of %d s: hbase:quota scans %.0f, space usage reads %.0f, "
                + "namespace listings %.0f, setQuota %.0f, namespace descriptor reads %.0f and writes %.0f, "
                + "cluster-info calls %.0f, status writes %d%n", n,
            space ? " (half with space quotas, a quarter namespaces with limits)" : "",
            periods, resync, delta(before, after, "readAll"), delta(before, after, "spaceUsage"),
            delta(before, after, "namespaces"), delta(before, after, "setQuota"), delta(before, after, "namespaceLimits"),
            delta(before, after, "setNamespaceLimits"), delta(before, after, "describe"), statusWrites);
        System.out.printf("scale %d: operator heap after GC %.0f MiB%n", n, heapAfterGc(op) / 1048576.0);
        if (second != null) {
          hungInfoPort(k8s, ns, hbase, second, op, n);
        }
      }
    } finally {
      if (second != null) {
        second.close();
      }
      hbase.close();
    }
  }

  /**
   * One RegionServer's info port hung (the process stopped: the kernel accepts, nobody answers) under
   * the calibrated tenants: once they say MetricsUnavailable, plain tenants are created one after another,
   * each timed from its creation to its row in hbase:quota (a Get of that row every 5 ms).
   */
  static void hungInfoPort(KubernetesClient k8s, String ns, StandaloneHBase hbase,
      StandaloneHBase.RegionServerProcess second, OperatorProcess op, int n) throws Exception {
    Map<String, Double> info0 = infoServerRequests(op);
    second.pause(true);
    long p0 = System.nanoTime();
    try (org.apache.hadoop.hbase.client.Connection c = org.apache.hadoop.hbase.client.ConnectionFactory
        .createConnection(hbase.clientConfiguration());
        org.apache.hadoop.hbase.client.Table quota = c.getTable(org.apache.hadoop.hbase.TableName.valueOf("hbase:quota"))) {
      int sample = Math.min(calibrated, 10);
      while (true) {
        int unavailable = 0;
        for (int i = 0; i < sample; i++) {
          TenantQuota tq = k8s.resources(TenantQuota.class).inNamespace(ns).withName("t" + i).get();
          if (tq.getStatus() != null && tq.getStatus().getCalibration() != null
              && "MetricsUnavailable".equals(tq.getStatus().getCalibration().getState())) {
            unavailable++;
          }
        }
        if (unavailable == sample) {
          break;
        }
        if ((System.nanoTime() - p0) / 1e9 > 300) {
          throw new IllegalStateException("the calibrated tenants did not say MetricsUnavailable within 300 s");
        }
        Thread.sleep(1000);
      }
      System.out.printf("scale %d, hung info port: %d calibrated tenants, MetricsUnavailable %.1f s after the stop "
          + "(%d of them sampled)%n", n, calibrated, (System.nanoTime() - p0) / 1e9, sample);
      int tries = 20;
      long[] ms = new long[tries];
      for (int i = 0; i < tries; i++) {
        String u = "bplain" + n + "-" + i;
        long t0 = System.nanoTime();
        k8s.resource(tenant(ns, "plain" + i, "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "77req/sec"))).create();
        byte[] row = org.apache.hadoop.hbase.util.Bytes.toBytes("u." + u);
        while (quota.get(new org.apache.hadoop.hbase.client.Get(row)).isEmpty()) {
          if ((System.nanoTime() - t0) / 1e9 > 60) {
            throw new IllegalStateException(u + " not in hbase:quota after 60 s");
          }
          Thread.sleep(5);
        }
        ms[i] = (System.nanoTime() - t0) / 1_000_000;
        Thread.sleep(500);
      }
      Arrays.sort(ms);
      Map<String, Double> info1 = infoServerRequests(op);
      System.out.printf("scale %d, hung info port: a plain tenant's creation -> its row in hbase:quota, %d tenants one "
          + "after another: p50 %d ms, p90 %d ms, max %d ms; info-server requests while hung (%.0f s, 2 "
          + "RegionServers): /prometheus %.0f, /jmx %.0f%n", n, tries, ms[tries / 2], ms[(int) (tries * 0.9)],
          ms[tries - 1], (System.nanoTime() - p0) / 1e9, delta(info0, info1, "/prometheus"),
          delta(info0, info1, "/jmx"));
    } finally {
      second.pause(false);
    }
  }

  static double delta(Map<String, Double> a, Map<String, Double> b, String call) {
    return b.getOrDefault(call, 0.0) - a.getOrDefault(call, 0.0);
  }

  /** HBase call counts by call name, from the operator's Prometheus endpoint. */
  /** Requests the operator sent to RegionServer info servers, by path. */
  static Map<String, Double> infoServerRequests(OperatorProcess op) throws Exception {
    Pattern line = Pattern.compile("^hbaseqos_infoserver_requests_total\\{[^}]*path=\"([^\"]+)\"[^}]*\\}\\s+([0-9.Ee+-]+)$");
    Map<String, Double> out = new HashMap<>();
    for (String l : op.get("/q/metrics").body().split("\n")) {
      Matcher m = line.matcher(l.trim());
      if (m.matches()) {
        out.merge(m.group(1), Double.parseDouble(m.group(2)), Double::sum);
      }
    }
    return out;
  }

  static Map<String, Double> calls(OperatorProcess op) throws Exception {
    return byCall(op, "count");
  }

  /** Total seconds spent in HBase calls, by call name. */
  static Map<String, Double> sums(OperatorProcess op) throws Exception {
    return byCall(op, "sum");
  }

  private static Map<String, Double> byCall(OperatorProcess op, String stat) throws Exception {
    Pattern line = Pattern.compile("^hbaseqos_hbase_call_seconds_" + stat + "\\{([^}]*)\\}\\s+([0-9.Ee+-]+)$");
    Pattern call = Pattern.compile("call=\"([^\"]+)\"");
    Map<String, Double> out = new HashMap<>();
    for (String l : op.get("/q/metrics").body().split("\n")) {
      Matcher m = line.matcher(l.trim());
      if (m.matches()) {
        Matcher c = call.matcher(m.group(1));
        if (c.find()) {
          out.merge(c.group(1), Double.parseDouble(m.group(2)), Double::sum);
        }
      }
    }
    return out;
  }

  static Map<String, String> versions(KubernetesClient k8s, String ns) {
    Map<String, String> out = new HashMap<>();
    for (TenantQuota tq : k8s.resources(TenantQuota.class).inNamespace(ns).list().getItems()) {
      out.put(tq.getMetadata().getName(), tq.getMetadata().getResourceVersion());
    }
    return out;
  }

  static double heapAfterGc(OperatorProcess op) throws Exception {
    Process p = new ProcessBuilder("jcmd", String.valueOf(op.pid()), "GC.run").redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    p.waitFor(30, TimeUnit.SECONDS);
    Thread.sleep(1500);
    double sum = 0;
    for (String line : op.get("/q/metrics").body().split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** A benchmark body that may throw. */
  interface Body {
    void run(String[] args) throws Exception;
  }

  /**
   * Runs a benchmark and exits with 0, or 1 after printing what it threw: its load threads and API
   * server must not keep the JVM alive.
   */
  static void runAndExit(Body body, String[] args) {
    int rc = 0;
    try {
      body.run(args);
    } catch (Throwable t) {
      t.printStackTrace();
      rc = 1;
    }
    System.exit(rc);
  }

  static Map<String, String> options(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      m.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    return m;
  }
}
