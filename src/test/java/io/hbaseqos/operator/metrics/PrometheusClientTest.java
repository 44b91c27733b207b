package io.hbaseqos.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Reading /api/v1/query answers (the real server is exercised in CalibrationIT). */
class PrometheusClientTest {
  @Test
  void scalarsAndOneSampleVectorsAreNumbersAndNoSampleIsNaN() throws IOException {
    assertThat(PrometheusClient.value(200,
        "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1700000000.1,\"42.5\"]}}"))
        .isEqualTo(42.5);
    assertThat(PrometheusClient.value(200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
        + "[{\"metric\":{},\"value\":[1700000000.1,\"6079.3\"]}]}}")).isEqualTo(6079.3);
    assertThat(PrometheusClient.value(200,
        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}")).isNaN();
  }

  @Test
  void whatCannotBeOneNumberIsAClearError() {
    assertThatThrownBy(() -> PrometheusClient.value(200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
        + "\"result\":[{\"metric\":{\"a\":\"1\"},\"value\":[1,\"1\"]},{\"metric\":{\"a\":\"2\"},\"value\":[1,\"2\"]}]}}"))
        .hasMessageContaining("returns 2 series; wrap it in sum(...)");
    assertThatThrownBy(() -> PrometheusClient.value(200,
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}"))
        .hasMessageContaining("an instant vector or scalar is needed");
    assertThatThrownBy(() -> PrometheusClient.value(400, "{\"status\":\"error\",\"errorType\":\"bad_data\","
        + "\"error\":\"parse error at char 5\"}")).hasMessageContaining("bad_data: parse error at char 5");
    assertThatThrownBy(() -> PrometheusClient.value(502, "<html>bad gateway</html>"))
        .hasMessageContaining("HTTP 502 without JSON");
  }

  @Test
  void aServersErrorTextReachesStatusShortAndPrintable() {
    String long_ = "x".repeat(5000);
    assertThatThrownBy(() -> PrometheusClient.value(400, "{\"status\":\"error\",\"errorType\":\"bad\\u0000\\n\","
        + "\"error\":\"" + long_ + "\"}")).satisfies(e -> assertThat(e.getMessage())
            .startsWith("Prometheus refused the query: bad  : xxx").endsWith("...").doesNotContain("\n", "\u0000")
            .hasSizeLessThan(PrometheusClient.MAX_ERROR_TEXT + 80));
  }

  /** An answer far larger than one number is refused after 4 MiB, not read into memory whole. */
  @Test
  void aHugeAnswerIsRefused() throws Exception {
    com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", ex -> {
      ex.sendResponseHeaders(200, 0);
      try (var out = ex.getResponseBody()) {
        byte[] chunk = new byte[64 * 1024];
        for (int i = 0; i < 200; i++) {
          out.write(chunk);
        }
      } catch (java.io.IOException ignored) {
        // the client stopped reading
      }
    });
    server.start();
    try {
      assertThatThrownBy(() -> new PrometheusClient().query("http://127.0.0.1:" + server.getAddress().getPort(), "up"))
          .hasMessageContaining("with more than 4 MiB");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aPrometheusThatDoesNotAnswerIsNotAskedAgainDuringItsQuietTime() throws Exception {
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0)) {
      Thread acceptor = new Thread(() -> {
        java.util.List<java.net.Socket> held = new java.util.ArrayList<>();
        try {
          while (true) {
            held.add(silent.accept()); // accepted, never answered
            connections.incrementAndGet();
          }
        } catch (IOException e) {
          // closed
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      PrometheusClient client = new PrometheusClient(java.time.Duration.ofMillis(300), now::get);
      String base = "http://127.0.0.1:" + silent.getLocalPort();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.query(base, "up"))
          .hasMessageContaining("Prometheus at " + base + " did not answer (HttpTimeoutException")
          .hasCauseInstanceOf(java.net.http.HttpTimeoutException.class);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.query(base + "/", "up"))
          .isInstanceOf(IOException.class).hasMessageContaining("Prometheus at " + base + " did not answer")
          .hasMessageContaining("not asked again");
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> connections.get() >= 1);
      assertThat(connections.get()).as("one connection, for the first query only").isEqualTo(1);
      now.addAndGet(PrometheusClient.QUIET.toNanos()); // the quiet time is over: asked again
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.query(base, "up"))
          .hasCauseInstanceOf(java.net.http.HttpTimeoutException.class);
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> connections.get() == 2);
    }
  }
}
