package io.hbaseqos.operator.support;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

/**
 * A real Prometheus (built by {@code hack/k8s-binaries.sh prometheus}) scraping, every second, a
 * metrics endpoint this JVM serves: the load generator's own client-side counters in the Prometheus
 * text format, as an application would expose them.
 */
public final class PrometheusServer implements AutoCloseable {
  private final HttpServer exporter;
  private final Process process;
  private final Path dir;
  public final String url;

  private PrometheusServer(HttpServer exporter, Process process, Path dir, String url) {
    this.exporter = exporter;
    this.process = process;
    this.dir = dir;
    this.url = url;
  }

  public static Path binary() {
    Path p = Paths.cacheDir().resolve("tools/prometheus");
    KubeApi.ensure("prometheus", List.of(p));
    return p;
  }

  /** Starts the exporter (serving {@code metrics} at /metrics) and Prometheus scraping it every second. */
  public static PrometheusServer start(Supplier<String> metrics) throws IOException {
    HttpServer exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    exporter.createContext("/metrics", ex -> {
      byte[] body = metrics.get().getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
      ex.sendResponseHeaders(200, body.length);
      try (OutputStream o = ex.getResponseBody()) {
        o.write(body);
      }
    });
    exporter.start();
    return launch(exporter, "tenant-clients", "127.0.0.1:" + exporter.getAddress().getPort(), "/metrics");
  }

  /** Prometheus scraping one target ({@code host:port}) at {@code path} every second, as job {@code job}. */
  public static PrometheusServer scraping(String job, String target, String path) throws IOException {
    return launch(null, job, target, path);
  }

  private static PrometheusServer launch(HttpServer exporter, String job, String target, String path)
      throws IOException {
    Path bin = binary();
    Path dir = Files.createTempDirectory("hbaseqos-prometheus");
    Files.writeString(dir.resolve("prometheus.yml"), String.join("\n",
        "global:",
        "  scrape_interval: 1s",
        "  evaluation_interval: 1s",
        "scrape_configs:",
        "  - job_name: " + job,
        "    metrics_path: " + path,
        "    static_configs:",
        "      - targets: ['" + target + "']",
        ""));
    int port = StandaloneHBase.freePort();
    Process p = new ProcessBuilder(bin.toString(), "--config.file=" + dir.resolve("prometheus.yml"),
        "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
        .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
    PrometheusServer s = new PrometheusServer(exporter, p, dir, "http://127.0.0.1:" + port);
    s.awaitReady(Duration.ofSeconds(60));
    return s;
  }

  private void awaitReady(Duration timeout) {
    HttpClient http = HttpClient.newHttpClient();
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("prometheus exited:\n" + Processes.tail(dir.resolve("prometheus.log"), 30));
      }
      try {
        if (http.send(HttpRequest.newBuilder(URI.create(url + "/-/ready")).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("prometheus not ready within " + timeout);
  }

  @Override
  public void close() {
    Processes.stop(process, Duration.ofSeconds(10));
    if (exporter != null) {
      exporter.stop(0);
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
