package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.support.SettableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reading RegionServer metrics over real HTTP: servers are read in parallel, each within its own
 * short timeout, so slow info ports cost a measurement (MetricsUnavailable), never minutes;
 * {@code /prometheus} is read, and {@code /jmx} only where it is not served. HBase's own
 * endpoints are read by CalibrationIT.
 */
class RegionServerMetricsTest {
  final ExecutorService pool = Executors.newCachedThreadPool();
  HttpServer fast;
  HttpServer slow;

  @AfterEach
  void stop() {
    if (fast != null) {
      fast.stop(0);
    }
    if (slow != null) {
      slow.stop(0);
    }
    pool.shutdownNow();
  }

  static HttpServer server(long delayMillis) throws Exception {
    return server(delayMillis, true);
  }

  static HttpServer server(long delayMillis, boolean prometheus) throws Exception {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    s.setExecutor(Executors.newCachedThreadPool());
    s.createContext("/prometheus", ex -> {
      try {
        Thread.sleep(delayMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      String q = java.net.URLDecoder.decode(ex.getRequestURI().getRawQuery(), StandardCharsets.UTF_8);
      String body = !prometheus ? "" : q.equals("qry=_user_")
          ? "# TYPE users_user_alice_metric_get_num_ops counter\n"
              + "users_user_alice_metric_get_num_ops{context=\"regionserver\",hostname=\"h\"} 120\n"
              + "users_user_alice_metric_get_time_range_count_0_1{context=\"regionserver\"} 4\n"
              + "users_user_alice_metric_get_time_range_count_3_10{context=\"regionserver\"} 1\n"
              + "users_user_alice_metric_get_99th_percentile{context=\"regionserver\"} 6\n"
              + "server_rpc_throttling_exception_type_num_read_requests_exceeded_user_alice_table_t1{context=\"r\"} 7\n"
              + "server_rpc_throttling_exception_type_write_size_exceeded_user_alice_table_t1{context=\"r\"} 3\n"
          : "";
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(prometheus ? 200 : 404, prometheus ? b.length : -1);
      if (prometheus) {
        ex.getResponseBody().write(b);
      }
      ex.close();
    });
    s.createContext("/jmx", ex -> {
      try {
        Thread.sleep(delayMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      String q = ex.getRequestURI().getRawQuery();
      String body = q.contains("sub%3DUsers")
          ? "{\"beans\":[{\"User_alice_metric_get_num_ops\":110}]}"
          : "{\"beans\":[{\"RpcThrottlingException_Type_NumReadRequestsExceeded_User_alice_Table_t1\":5}]}";
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    s.start();
    return s;
  }

  @Test
  void healthyServersAreReadInParallel() throws Exception {
    fast = server(0);
    slow = server(800);
    RegionServerMetrics jmx = new RegionServerMetrics(new InfoServerHttp(false, Duration.ofSeconds(1), Negotiator.NONE), Clock.systemUTC(), pool);
    Map<String, Map.Entry<String, Integer>> servers = new LinkedHashMap<>();
    servers.put("rs1", Map.entry("127.0.0.1", fast.getAddress().getPort()));
    servers.put("rs2", Map.entry("127.0.0.1", slow.getAddress().getPort()));
    servers.put("rs3", Map.entry("127.0.0.1", slow.getAddress().getPort()));
    long t0 = System.nanoTime();
    CounterReading r = jmx.read(servers, false, false, false).counters("alice", Set.of("get"));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(r.servers()).hasSize(3);
    assertThat(r.servers().get("rs1").ops()).isEqualTo(120);
    assertThat(r.sampled()).as("read from /prometheus").isTrue();
    assertThat(r.servers().get("rs1").throttled()).as("read and write throttles").isEqualTo(10);
    assertThat(r.servers().get("rs1").throttledCountedAsOps()).as("a throttled Get is counted twice as a Get")
        .isEqualTo(14);
    // one request per server at 800 ms each: 0.8 s in parallel, 2.4 s one after another
    assertThat(ms).as("servers read in parallel").isLessThan(2_000);
  }

  @Test
  void aServerSlowerThanTheTimeoutMakesTheMetricsUnavailableAndNamesIt() throws Exception {
    fast = server(0);
    slow = server(10_000);
    RegionServerMetrics jmx = new RegionServerMetrics(new InfoServerHttp(false, Duration.ofSeconds(1), Negotiator.NONE), Clock.systemUTC(), pool);
    Map<String, Map.Entry<String, Integer>> servers = new LinkedHashMap<>();
    servers.put("rs1", Map.entry("127.0.0.1", fast.getAddress().getPort()));
    servers.put("rs-slow", Map.entry("127.0.0.1", slow.getAddress().getPort()));
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> jmx.read(servers, false, false, false).counters("alice", Set.of("get")))
        .isInstanceOf(MetricsUnavailableException.class).hasMessageContaining("rs-slow");
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(ms).as("bounded by the read timeout (%s), not by the slow server", RegionServerMetrics.TIMEOUT)
        .isLessThan(RegionServerMetrics.TIMEOUT.toMillis() * 2 + 1_500);
  }

  /**
   * A server that stops answering costs one timeout: after it, reads fail for it at once, naming it,
   * while one probe at a time asks it off the read path; once it answers the probe, it is read again.
   */
  @Test
  void aServerThatStopsAnsweringIsSkippedUntilItAnswersAProbe() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean hang = new java.util.concurrent.atomic.AtomicBoolean(true);
    java.util.concurrent.atomic.AtomicInteger probes = new java.util.concurrent.atomic.AtomicInteger();
    fast = server(0);
    slow = server(0);
    // the same server, hung on every path while asked to be
    HttpServer hung = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    ExecutorService handlers = Executors.newCachedThreadPool();
    hung.setExecutor(handlers);
    hung.createContext("/", ex -> {
      if (ex.getRequestURI().getPath().equals("/jmx")) {
        probes.incrementAndGet();
      }
      while (hang.get()) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          return;
        }
      }
      java.net.HttpURLConnection c = (java.net.HttpURLConnection) java.net.URI.create("http://127.0.0.1:"
          + slow.getAddress().getPort() + ex.getRequestURI()).toURL().openConnection();
      byte[] b = c.getInputStream().readAllBytes();
      ex.sendResponseHeaders(c.getResponseCode(), b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    hung.start();
    try {
      SettableClock clock = new SettableClock(java.time.Instant.parse("2026-11-27T03:00:00Z"));
      RegionServerMetrics m = new RegionServerMetrics(new InfoServerHttp(false, Duration.ofSeconds(1),
          Negotiator.NONE), clock, pool);
      Map<String, Map.Entry<String, Integer>> servers = new LinkedHashMap<>();
      servers.put("rs1", Map.entry("127.0.0.1", fast.getAddress().getPort()));
      servers.put("rs-hung", Map.entry("127.0.0.1", hung.getAddress().getPort()));
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> m.read(servers, false, false, false).counters("alice", Set.of("get")))
          .isInstanceOf(MetricsUnavailableException.class).hasMessageContaining("rs-hung");
      long first = (System.nanoTime() - t0) / 1_000_000;
      assertThat(m.skips("rs-hung")).isTrue();
      // a reading newer than the last is asked for (as after a quota write): the hung server is not waited for
      clock.now = clock.now.plusSeconds(1);
      t0 = System.nanoTime();
      assertThatThrownBy(() -> m.read(servers, false, false, false).counters("alice", Set.of("get")))
          .isInstanceOf(MetricsUnavailableException.class).hasMessageContaining("rs-hung")
          .hasMessageContaining("circuit open");
      long second = (System.nanoTime() - t0) / 1_000_000;
      assertThat(second).as("not waited for again (the first read took %d ms)", first).isLessThan(first / 2);
      assertThat(probes.get()).as("no probe before its time").isZero();
      // it answers again; the next read after 5 s starts a probe and still skips it, the probe closes the breaker
      hang.set(false);
      clock.now = clock.now.plusSeconds(5);
      assertThatThrownBy(() -> m.read(servers, false, false, false).counters("alice", Set.of("get")))
          .hasMessageContaining("circuit open");
      org.awaitility.Awaitility.await().atMost(10, java.util.concurrent.TimeUnit.SECONDS)
          .until(() -> !m.skips("rs-hung"));
      assertThat(probes.get()).isEqualTo(1);
      clock.now = clock.now.plusSeconds(1);
      CounterReading r = m.read(servers, false, false, false).counters("alice", Set.of("get"));
      assertThat(r.servers().get("rs-hung").ops()).isEqualTo(120);
    } finally {
      hang.set(false);
      hung.stop(0);
      handlers.shutdownNow();
    }
  }

  @Test
  void wherePrometheusIsNotServedTheJmxBeansAreRead() throws Exception {
    fast = server(0, false);
    RegionServerMetrics m = new RegionServerMetrics(new InfoServerHttp(false, Duration.ofSeconds(1), Negotiator.NONE),
        Clock.systemUTC(), pool);
    CounterReading r = m.read(Map.of("rs1", Map.entry("127.0.0.1", fast.getAddress().getPort())), false, false, false)
        .counters("alice", Set.of("get"));
    assertThat(r.servers().get("rs1").ops()).isEqualTo(110);
    assertThat(r.servers().get("rs1").throttled()).isEqualTo(5);
    assertThat(r.sampled()).as("the /jmx cache lags: not a reading of the moment").isFalse();
  }

  /** A stub info server answering each path with what {@code handlers} give it. */
  static HttpServer stub(Map<String, com.sun.net.httpserver.HttpHandler> handlers) throws java.io.IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    s.setExecutor(Executors.newCachedThreadPool());
    handlers.forEach(s::createContext);
    s.start();
    return s;
  }

  /** Status 200 with {@code body} (no body when empty). */
  static void answer(com.sun.net.httpserver.HttpExchange ex, String body) throws java.io.IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(200, b.length == 0 ? -1 : b.length);
    if (b.length > 0) {
      ex.getResponseBody().write(b);
    }
    ex.close();
  }

  /** alice's counters on {@code server}, read by a reader of its own. */
  CounterReading alice(String name, HttpServer server) throws java.io.IOException {
    return new RegionServerMetrics(new InfoServerHttp(false, Duration.ofSeconds(1), Negotiator.NONE), Clock.systemUTC(),
        pool).read(Map.of(name, Map.entry("127.0.0.1", server.getAddress().getPort())), false, false, false)
        .counters("alice", Set.of("get"));
  }

  /**
   * HBase registers its per-user bean again when users come and go, and /jmx answers without it
   * meanwhile: one more look, half a second later, finds it; a server that never has it is named.
   */
  @Test
  void aPerUserBeanMissingFromOneJmxAnswerIsAskedForOnceMore() throws Exception {
    java.util.concurrent.atomic.AtomicInteger usersAsked = new java.util.concurrent.atomic.AtomicInteger();
    com.sun.net.httpserver.HttpHandler notServed = ex -> {
      ex.sendResponseHeaders(404, -1);
      ex.close();
    };
    fast = stub(Map.of("/prometheus", notServed, "/jmx", ex -> answer(ex,
        ex.getRequestURI().getRawQuery().contains("sub%3DUsers") && usersAsked.incrementAndGet() > 1
            ? "{\"beans\":[{\"User_alice_metric_get_num_ops\":110}]}" : "{\"beans\":[]}")));
    assertThat(alice("rs1", fast).servers().get("rs1").ops()).isEqualTo(110);
    assertThat(usersAsked.get()).isEqualTo(2);

    slow = stub(Map.of("/prometheus", notServed, "/jmx", ex -> answer(ex, "{\"beans\":[]}")));
    assertThatThrownBy(() -> alice("rs-off", slow)).isInstanceOf(MetricsUnavailableException.class)
        .hasMessageContaining("rs-off").hasMessageContaining("set hbase.regionserver.user.metrics.enabled=true");
  }

  /** The same over /prometheus: an answer without any per-user metric is asked for once more. */
  @Test
  void perUserMetricsMissingFromOnePrometheusAnswerAreAskedForOnceMore() throws Exception {
    java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
    fast = stub(Map.of("/prometheus", ex -> answer(ex, java.net.URLDecoder.decode(ex.getRequestURI().getRawQuery(),
        StandardCharsets.UTF_8).equals("qry=_user_") && asked.incrementAndGet() > 1
            ? "users_user_alice_metric_get_num_ops{context=\"regionserver\"} 120\n" : "")));
    assertThat(alice("rs1", fast).servers().get("rs1").ops()).isEqualTo(120);
    assertThat(asked.get()).isEqualTo(2);
  }

  @Test
  void theWindowsOfSamplesLatenciesAreNotJudgedOnAreHandedToTheNextJudgement() throws Exception {
    fast = server(0);
    RegionServerMetrics m = new RegionServerMetrics(new InfoServerHttp(false, Duration.ofSeconds(1), Negotiator.NONE),
        Clock.systemUTC(), pool);
    Map<String, Map.Entry<String, Integer>> servers = Map.of("rs1", Map.entry("127.0.0.1",
        fast.getAddress().getPort()));
    assertThat(m.latencies(m.read(servers, false, false, false)).window("alice", Set.of("get"))).as("the first read hands over nothing")
        .isEqualTo(new UsersMetrics.Window(5, 0));
    m.read(servers, false, false, false).counters("alice", Set.of("get"));
    UsersMetrics all = m.latencies(m.read(servers, false, false, false));
    // every server answers 5 operations in its window and a p99 of 6 ms; the sample for another reader took one window
    assertThat(all.window("alice", Set.of("get"))).isEqualTo(new UsersMetrics.Window(5, 5));
    assertThat(all.latency("alice", Set.of("get"), "99th_percentile")).isEqualTo(6.0);
    assertThat(all.histogramOps("alice", Set.of("get"))).isEqualTo(120);
    assertThat(m.latencies(m.read(servers, false, false, false)).window("alice", Set.of("get"))).as("handed over once")
        .isEqualTo(new UsersMetrics.Window(5, 0));
    // a sample taken for another reader after a judgement: its window goes to the next one
    m.read(servers, false, false, false).counters("alice", Set.of("get"));
    assertThat(m.latencies(m.read(servers, false, false, false)).window("alice", Set.of("get"))).isEqualTo(new UsersMetrics.Window(5, 5));
  }

  /**
   * A sample judged after a newer one was taken (its wake came late): it is handed the windows of
   * the samples before it, and the newer one's go to the next judgement; none is handed over twice.
   */
  @Test
  void aSampleJudgedAfterANewerOneWasTakenHandsEachWindowOverOnce() throws Exception {
    fast = server(0);
    RegionServerMetrics m = new RegionServerMetrics(new InfoServerHttp(false, Duration.ofSeconds(1), Negotiator.NONE),
        Clock.systemUTC(), pool);
    Map<String, Map.Entry<String, Integer>> servers = Map.of("rs1", Map.entry("127.0.0.1",
        fast.getAddress().getPort()));
    m.latencies(m.read(servers, false, false, false));
    m.read(servers, false, false, false); // for calibration
    MetricsSample judged = m.read(servers, false, false, false);
    m.read(servers, false, false, false); // taken before `judged` is judged
    UsersMetrics first = m.latencies(judged);
    assertThat(first.window("alice", Set.of("get"))).as("the one before it").isEqualTo(new UsersMetrics.Window(5, 5));
    assertThat(m.latencies(judged)).as("judged again: the same").isSameAs(first);
    assertThat(m.latencies(m.read(servers, false, false, false)).window("alice", Set.of("get")))
        .as("the newer one's window only").isEqualTo(new UsersMetrics.Window(5, 5));
  }

  @Test
  void windowsAreKeptForALatencyReaderAsLongAsThreeOfItsIntervalsAndNotForOneThatStopped() throws Exception {
    fast = server(0);
    SettableClock clock = new SettableClock(java.time.Instant.parse("2026-01-01T00:00:00Z"));
    RegionServerMetrics m = new RegionServerMetrics(new InfoServerHttp(false, Duration.ofSeconds(1), Negotiator.NONE),
        clock, pool);
    Map<String, Map.Entry<String, Integer>> servers = Map.of("rs1", Map.entry("127.0.0.1",
        fast.getAddress().getPort()));
    // a protected tenant with a 30-minute window: its reader reads every 30 minutes
    m.latencies(m.read(servers, false, false, false));
    clock.now = clock.now.plus(Duration.ofMinutes(30));
    m.latencies(m.read(servers, false, false, false));
    clock.now = clock.now.plus(Duration.ofMinutes(25));
    m.read(servers, false, false, false).counters("alice", Set.of("get"));
    clock.now = clock.now.plus(Duration.ofMinutes(5));
    assertThat(m.latencies(m.read(servers, false, false, false)).window("alice", Set.of("get"))).as("kept past ten minutes for a slow reader")
        .isEqualTo(new UsersMetrics.Window(5, 5));
    // the reader stops: after three of its intervals nothing is kept
    clock.now = clock.now.plus(Duration.ofMinutes(91));
    m.read(servers, false, false, false).counters("alice", Set.of("get"));
    assertThat(m.latencies(m.read(servers, false, false, false)).window("alice", Set.of("get"))).isEqualTo(new UsersMetrics.Window(5, 0));
  }


  /** The names HBase's servlet gives, as read from HBase 2.6.4 under load. */
  @Test
  void prometheusNamesFollowHBasesServlet() {
    assertThat(RegionServerMetrics.prometheusName("Users", "User_bench-t_metric_get_num_ops"))
        .isEqualTo("users_user_bench_t_metric_get_num_ops");
    assertThat(RegionServerMetrics.prometheusName("Server",
        "RpcThrottlingException_Type_NumReadRequestsExceeded_User_bench-t_Table_bench_usertable"))
        .isEqualTo("server_rpc_throttling_exception_type_num_read_requests_exceeded_user_bench_t_table_bench_usertable");
    assertThat(RegionServerMetrics.userMarker("bench-t")).isEqualTo("_user_bench_t_");
    assertThat(RegionServerMetrics.parsePrometheus("# HELP x\nusers_num_users{a=\"b c\"} 3\nbad line\n"))
        .containsExactlyEntriesOf(Map.of("users_num_users", 3.0));
  }
}
