package io.hbaseqos.operator.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The packaged operator (target/quarkus-app/quarkus-run.jar) as its own process, outside a container. */
public final class OperatorProcess implements AutoCloseable {
  private final Process process;
  private final int httpPort;
  private final Path log;

  private OperatorProcess(Process process, int httpPort, Path log) {
    this.process = process;
    this.httpPort = httpPort;
    this.log = log;
  }

  public static Path jar() {
    return Paths.projectDir().resolve("target/quarkus-app/quarkus-run.jar");
  }

  /** Starts the operator with the given kubeconfig and extra environment; waits until it is ready. */
  /**
   * The JVM options the Helm chart runs the operator with (value {@code jvmOptions}): C1 only. On
   * the 2-core benchmark machine C2 compilation took 40% of the operator's CPU during a first sync
   * of 10,000 TenantQuotas; without it the operator used 34 CPU-s instead of 57.
   */
  public static final String DEFAULT_JVM_OPTIONS = "-XX:TieredStopAtLevel=1";

  public static OperatorProcess start(Path kubeconfig, Map<String, String> env) {
    return start(kubeconfig, env, "/q/health/ready");
  }

  /** As {@link #start(Path, Map)}, waiting for the given health endpoint (a standby replica is live, not ready). */
  public static OperatorProcess start(Path kubeconfig, Map<String, String> env, String healthPath) {
    Path jar = jar();
    if (!Files.exists(jar)) {
      throw new IllegalStateException(jar + " is missing: run ./mvnw package first");
    }
    int port = StandaloneHBase.freePort();
    try {
      Path log = Files.createTempFile("hbaseqos-operator", ".log");
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx" + env.getOrDefault("HBQ_OPERATOR_XMX", "512m")));
      String extra = env.getOrDefault("HBQ_OPERATOR_JAVA_OPTS",
          System.getenv().getOrDefault("HBQ_OPERATOR_JAVA_OPTS", DEFAULT_JVM_OPTIONS));
      for (String opt : extra.trim().split("\\s+")) {
        if (!opt.isEmpty()) {
          cmd.add(opt);
        }
      }
      cmd.addAll(List.of("-jar", jar.toString()));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      pb.environment().put("KUBECONFIG", kubeconfig.toString());
      pb.environment().put("QUARKUS_HTTP_PORT", String.valueOf(port));
      pb.environment().putAll(env);
      OperatorProcess op = new OperatorProcess(pb.start(), port, log);
      op.awaitHealthy(healthPath, Duration.ofSeconds(90));
      return op;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitHealthy(String healthPath, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("operator exited with " + process.exitValue() + ":\n" + logTail(60));
      }
      try {
        if (get(healthPath).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    throw new IllegalStateException("operator not ready within " + timeout + ":\n" + logTail(60));
  }

  /**
   * HTTP/1.1: with the client's default (HTTP/2, upgraded from a plain connection) a request once hung
   * for over ten minutes in a CI run although the operator answered curl in 12 ms, and its own
   * timeout never fired; the wait is bounded here whatever the client does.
   */
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  public HttpResponse<String> get(String path) throws IOException {
    java.util.concurrent.CompletableFuture<HttpResponse<String>> f = HTTP.sendAsync(HttpRequest.newBuilder(
        URI.create("http://localhost:" + httpPort + path)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    try {
      return f.get(40, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      f.cancel(true);
      Thread.currentThread().interrupt();
      throw new IOException(e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      f.cancel(true);
      throw new IOException("no answer from the operator's " + path + " within 40 s", e);
    }
  }

  /** The sum of every series of one metric on /q/metrics (e.g. {@code hbaseqos_quota_writes_total}). */
  public double metric(String name) throws IOException {
    double sum = 0;
    for (String line : get("/q/metrics").body().split("\n")) {
      if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  public long pid() {
    return process.pid();
  }

  public int httpPort() {
    return httpPort;
  }

  public Path log() {
    return log;
  }

  public String logTail(int lines) {
    return Processes.tail(log, lines);
  }

  /** Kills the process at once (SIGKILL), as a node failure would. */
  public void kill() {
    Processes.kill(process);
  }

  @Override
  public void close() {
    Processes.stop(process, Duration.ofSeconds(20));
  }
}
