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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reading RegionServer {@code /jmx} over real HTTP: servers are read in parallel, each within its
 * own short timeout, so slow info ports cost a measurement (MetricsUnavailable), never minutes.
 */
class RegionServerJmxTest {
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
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    s.setExecutor(Executors.newCachedThreadPool());
    s.createContext("/jmx", ex -> {
      try {
        Thread.sleep(delayMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      String q = ex.getRequestURI().getRawQuery();
      String body = q.contains("sub%3DUsers")
          ? "{\"beans\":[{\"User_alice_metric_get_num_ops\":120}]}"
          : "{\"beans\":[{}]}";
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
    RegionServerJmx jmx = new RegionServerJmx(new InfoServerHttp(false, Duration.ofSeconds(1)), Clock.systemUTC(), pool);
    Map<String, Map.Entry<String, Integer>> servers = new LinkedHashMap<>();
    servers.put("rs1", Map.entry("127.0.0.1", fast.getAddress().getPort()));
    servers.put("rs2", Map.entry("127.0.0.1", slow.getAddress().getPort()));
    servers.put("rs3", Map.entry("127.0.0.1", slow.getAddress().getPort()));
    long t0 = System.nanoTime();
    CounterReading r = jmx.userCounters(servers, "alice", Set.of("get"));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(r.servers()).hasSize(3);
    assertThat(r.servers().get("rs1").ops()).isEqualTo(120);
    // two beans per server at 800 ms each: 1.6 s in parallel, 4.8 s one after another
    assertThat(ms).as("servers read in parallel").isLessThan(4_000);
  }

  @Test
  void aServerSlowerThanTheTimeoutMakesTheMetricsUnavailableAndNamesIt() throws Exception {
    fast = server(0);
    slow = server(10_000);
    RegionServerJmx jmx = new RegionServerJmx(new InfoServerHttp(false, Duration.ofSeconds(1)), Clock.systemUTC(), pool);
    Map<String, Map.Entry<String, Integer>> servers = new LinkedHashMap<>();
    servers.put("rs1", Map.entry("127.0.0.1", fast.getAddress().getPort()));
    servers.put("rs-slow", Map.entry("127.0.0.1", slow.getAddress().getPort()));
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> jmx.userCounters(servers, "alice", Set.of("get")))
        .isInstanceOf(MetricsUnavailableException.class).hasMessageContaining("rs-slow");
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(ms).as("bounded by the read timeout (%s), not by the slow server", RegionServerJmx.TIMEOUT)
        .isLessThan(RegionServerJmx.TIMEOUT.toMillis() * 2 + 1_500);
  }
}
