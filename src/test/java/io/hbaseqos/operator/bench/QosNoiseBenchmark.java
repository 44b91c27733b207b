package io.hbaseqos.operator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.ycsb.LatencyTenants;
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
import java.util.concurrent.TimeUnit;
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
 * second), so windows at identical server load can be compared. With {@code --restarts N} it instead
 * starts and stops T {@code N} times under the first limit, nothing else changing, to show what a
 * new connection of T alone does to U. Asserts nothing. The
 * RegionServer's /jmx counters move only every few seconds (a 5 s window read zeros): keep windows
 * of 10 s or more.
 *
 * <p>Run: {@code bin/benchmark qos-noise [--window 30] [--limits 6000,300] [--windows 3] [--restarts 0]
 * [--u-rate 400] [--u-threads 2] [--t-threads 32] [--client-loops per-tenant|shared] [--limiter fixed|average]}
 * ({@code --limiter} as for {@code bin/benchmark qos}).
 */
public final class QosNoiseBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private QosNoiseBenchmark() {}

  public static void main(String[] args) {
    SyncBenchmark.runAndExit(QosNoiseBenchmark::run, args);
  }

  /** The RegionServer's cumulative counters: calls, throttled calls and young-GC milliseconds. */
  record Server(double calls, double throttled, double youngGcMs) {}

  static void run(String[] args) throws Exception {
    Map<String, String> o = SyncBenchmark.options(args);
    int window = Integer.parseInt(o.getOrDefault("window", "30"));
    int windows = Integer.parseInt(o.getOrDefault("windows", "3"));
    List<Long> limits = Arrays.stream(o.getOrDefault("limits", "6000,300").split(",")).filter(s -> !s.isBlank())
        .map(Long::parseLong).toList();
    int restarts = Integer.parseInt(o.getOrDefault("restarts", "0"));

    StandaloneHBase hbase = new StandaloneHBase(Files.createTempDirectory("bench-qos-noise"),
        StandaloneHBase.limiterSite(o.getOrDefault("limiter", "fixed")));
    hbase.start();
    System.out.println("# limiter " + StandaloneHBase.limiterName(o.getOrDefault("limiter", "fixed")));
    Map<String, List<Double>> p99s = new LinkedHashMap<>();
    try (LatencyTenants load = QosBenchmark.Tenants.of(o).start(hbase, window)) {
      Probe probe = new Probe(hbase, load, window, p99s);
      System.out.println("| condition | U p99 ms | U p50 ms | U ops/s | T ops/s | RS calls/s | RS throttled/s "
          + "| RS young GC ms/s |");
      System.out.println("|---|---|---|---|---|---|---|---|");
      Thread.sleep(10_000); // warm up
      probe.measure("U alone", windows);
      if (restarts > 0) {
        limit(hbase, load.tUser, limits.get(0));
        for (int i = 1; i <= restarts; i++) {
          load.startBatch();
          probe.measure("T restarted under " + limits.get(0) + ", start " + i, windows);
          load.stopBatch();
        }
      } else {
        for (long limit : limits) {
          limit(hbase, load.tUser, limit);
          load.startBatch();
          probe.measure("T started under " + limit, windows);
          load.stopBatch();
          limit(hbase, load.tUser, 0);
          load.startBatch();
          probe.measure("T unthrottled", 1);
          limit(hbase, load.tUser, limit);
          probe.measure("T cut to " + limit + " while running", windows);
          load.stopBatch();
        }
      }
      probe.measure("U alone again", windows);
    } finally {
      hbase.close();
    }
    System.out.println("\n| condition | U p99 per window (ms) | max / min |");
    System.out.println("|---|---|---|");
    p99s.forEach((c, xs) -> System.out.printf(Locale.ROOT, "| %s | %s | %.2f |%n", c, QosBenchmark.fmt(xs),
        xs.stream().mapToDouble(x -> x).max().orElse(0) / xs.stream().mapToDouble(x -> x).min().orElse(1)));
  }

  /** Sets T's REQUEST_NUMBER limit (0: none) and waits for the RegionServer to reload quotas. */
  static void limit(StandaloneHBase hbase, String user, long limit) throws Exception {
    try (Admin admin = hbase.admin()) {
      admin.setQuota(limit <= 0 ? QuotaSettingsFactory.unthrottleUser(user)
          : QuotaSettingsFactory.throttleUser(user, ThrottleType.REQUEST_NUMBER, limit, TimeUnit.SECONDS));
    }
    Thread.sleep(8000); // RegionServers reload quotas on change (2.6.3+)
  }

  /** Measures windows and prints a row for each. */
  record Probe(StandaloneHBase hbase, LatencyTenants load, int window, Map<String, List<Double>> p99s) {
    void measure(String condition, int windows) throws Exception {
      for (int i = 0; i < windows; i++) {
        Server s0 = server();
        LatencyTenants.Sample s = load.measure(window);
        Server s1 = server();
        p99s.computeIfAbsent(condition, k -> new ArrayList<>()).add(s.uMs(99));
        System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f | %.1f |%n", condition,
            s.uMs(99), s.uMs(50), s.uOps(), s.tOps(), (s1.calls() - s0.calls()) / s.seconds(),
            (s1.throttled() - s0.throttled()) / s.seconds(), (s1.youngGcMs() - s0.youngGcMs()) / s.seconds());
      }
    }

    Server server() throws Exception {
      JsonNode ipc = bean("Hadoop:service=HBase,name=RegionServer,sub=IPC");
      JsonNode gc = bean("java.lang:type=GarbageCollector,name=Copy");
      return new Server(ipc.path("TotalCallTime_num_ops").asDouble(), ipc.path("exceptions.rpcThrottling").asDouble(),
          gc.path("CollectionTime").asDouble());
    }

    JsonNode bean(String query) throws Exception {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(
          "http://localhost:" + hbase.regionServerInfoPort() + "/jmx?qry=" + query)).build(),
          HttpResponse.BodyHandlers.ofString());
      return JSON.readTree(r.body()).path("beans").path(0);
    }
  }
}
