package io.hbaseqos.operator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.ycsb.TenantLoad;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.ThrottleType;

/**
 * How far U's client-side p99 moves from one window to the next when nothing the operator controls
 * changes: U and T of {@code bin/benchmark qos} on a real standalone HBase, T under fixed
 * REQUEST_NUMBER limits set straight through the Admin API (no operator). For each limit T is
 * started under it, then run unthrottled and cut to it while running (as the policy cuts it), each
 * for a few windows; U alone before and after. Per window it prints U's p99 and p50, both tenants'
 * ops/s and what the RegionServer saw (calls/s, throttled calls/s, young-GC milliseconds per
 * second), so windows at identical server load can be compared. Asserts nothing.
 *
 * <p>Run: {@code bin/benchmark qos-noise [--window 30] [--limits 6000,300] [--windows 3] [--u-rate 400]
 * [--u-threads 2] [--t-threads 32]}.
 */
public final class QosNoiseBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String USER_T = "qos-t";

  private QosNoiseBenchmark() {}

  public static void main(String[] args) {
    SyncBenchmark.runAndExit(QosNoiseBenchmark::run, args);
  }

  /** The RegionServer's cumulative counters: calls, throttled calls, young-GC count and milliseconds. */
  record Server(double calls, double throttled, double youngGcMs) {}

  static void run(String[] args) throws Exception {
    Map<String, String> o = SyncBenchmark.options(args);
    int window = Integer.parseInt(o.getOrDefault("window", "30"));
    int windows = Integer.parseInt(o.getOrDefault("windows", "3"));
    double uRate = Double.parseDouble(o.getOrDefault("u-rate", "400"));
    int uThreads = Integer.parseInt(o.getOrDefault("u-threads", "2"));
    int tThreads = Integer.parseInt(o.getOrDefault("t-threads", "32"));
    List<Long> limits = Arrays.stream(o.getOrDefault("limits", "6000,300").split(",")).filter(s -> !s.isBlank())
        .map(Long::parseLong).toList();

    StandaloneHBase hbase = new StandaloneHBase(Files.createTempDirectory("bench-qos-noise"), Map.of());
    hbase.start();
    Configuration conf = hbase.clientConfiguration();
    Properties workload = TenantLoad.readWorkload("qos_usertable", 5000);
    TenantLoad.load(conf, "loader", workload);
    Map<String, List<Double>> p99s = new LinkedHashMap<>();
    try (TenantLoad u = TenantLoad.start(conf, "qos-u", workload, uThreads, uRate)) {
      Probe probe = new Probe(hbase, u, window, p99s);
      System.out.printf(Locale.ROOT, "# U: %d threads at %.0f reads/s together; T: %d threads as fast as they can; "
          + "windows of %d s%n", uThreads, uRate, tThreads, window);
      System.out.println("| condition | U p99 ms | U p50 ms | U ops/s | T ops/s | RS calls/s | RS throttled/s "
          + "| RS young GC ms/s |");
      System.out.println("|---|---|---|---|---|---|---|---|");
      Thread.sleep(10_000); // warm up
      probe.measure("U alone", null, windows);
      for (long limit : limits) {
        limit(hbase, limit);
        try (TenantLoad t = TenantLoad.start(conf, USER_T, workload, tThreads)) {
          probe.measure("T started under " + limit, t, windows);
        }
        limit(hbase, 0);
        try (TenantLoad t = TenantLoad.start(conf, USER_T, workload, tThreads)) {
          probe.measure("T unthrottled", t, 1);
          limit(hbase, limit);
          probe.measure("T cut to " + limit + " while running", t, windows);
        }
      }
      probe.measure("U alone again", null, windows);
    } finally {
      hbase.close();
    }
    System.out.println("\n| condition | U p99 per window (ms) | max / min |");
    System.out.println("|---|---|---|");
    p99s.forEach((c, xs) -> System.out.printf(Locale.ROOT, "| %s | %s | %.2f |%n", c, QosBenchmark.fmt(xs),
        xs.stream().mapToDouble(x -> x).max().orElse(0) / xs.stream().mapToDouble(x -> x).min().orElse(1)));
  }

  /** Sets T's REQUEST_NUMBER limit (0: none) and waits for the RegionServer to reload quotas. */
  static void limit(StandaloneHBase hbase, long limit) throws Exception {
    try (Admin admin = hbase.admin()) {
      admin.setQuota(limit <= 0 ? QuotaSettingsFactory.unthrottleUser(USER_T)
          : QuotaSettingsFactory.throttleUser(USER_T, ThrottleType.REQUEST_NUMBER, limit, TimeUnit.SECONDS));
    }
    Thread.sleep(8000); // RegionServers reload quotas on change (2.6.3+)
  }

  /** Measures windows and prints a row for each. */
  record Probe(StandaloneHBase hbase, TenantLoad u, int window, Map<String, List<Double>> p99s) {
    void measure(String condition, TenantLoad t, int windows) throws Exception {
      for (int i = 0; i < windows; i++) {
        Server s0 = server();
        long u0 = u.ok();
        long t0 = t == null ? 0 : t.ok();
        u.latencySinceLastCall();
        long start = System.nanoTime();
        Thread.sleep(window * 1000L);
        double sec = (System.nanoTime() - start) / 1e9;
        Histogram h = u.latencySinceLastCall();
        Server s1 = server();
        double p99 = h.getValueAtPercentile(99) / 1000.0;
        p99s.computeIfAbsent(condition, k -> new ArrayList<>()).add(p99);
        System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f | %.1f |%n", condition, p99,
            h.getValueAtPercentile(50) / 1000.0, (u.ok() - u0) / sec, ((t == null ? 0 : t.ok()) - t0) / sec,
            (s1.calls() - s0.calls()) / sec, (s1.throttled() - s0.throttled()) / sec,
            (s1.youngGcMs() - s0.youngGcMs()) / sec);
      }
    }

    Server server() throws Exception {
      JsonNode ipc = bean("Hadoop:service=HBase,name=RegionServer,sub=IPC");
      JsonNode gc = bean("java.lang:type=GarbageCollector,name=Copy");
      return new Server(ipc.path("TotalCallTime_num_ops").asDouble(), ipc.path("exceptions.rpcThrottling").asDouble(),
          gc.path("CollectionTime").asDouble());
    }

    JsonNode bean(String query) throws Exception {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
          "http://localhost:" + hbase.regionServerInfoPort() + "/jmx?qry=" + query)).build(),
          HttpResponse.BodyHandlers.ofString());
      return JSON.readTree(r.body()).path("beans").path(0);
    }
  }
}
