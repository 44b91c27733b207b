package io.hbaseqos.operator.support;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A second kube-apiserver on the shared etcd, with the shared one's flags and certificates but a
 * port of its own that stays the same across restarts: the API server a client talks to can be
 * killed and started again (an API server restart as an operator sees it) without disturbing the
 * API server the rest of the suite uses. Both serve the same objects, as replicas of one control
 * plane do.
 */
public final class ApiServerReplica implements AutoCloseable {
  private final List<String> command;
  private final int port;
  private final Path kubeconfig;
  private final Path log;
  private Process process;

  private ApiServerReplica(List<String> command, int port, Path kubeconfig, Path log) {
    this.command = command;
    this.port = port;
    this.kubeconfig = kubeconfig;
    this.log = log;
  }

  public static ApiServerReplica start() {
    List<String> shared = KubeApi.apiServerCommand();
    int port = StandaloneHBase.freePort();
    List<String> cmd = new ArrayList<>(shared);
    int i = cmd.indexOf("--secure-port");
    if (i < 0) {
      throw new IllegalStateException("the shared API server has no --secure-port flag: " + shared);
    }
    String sharedPort = cmd.get(i + 1);
    cmd.set(i + 1, String.valueOf(port));
    try {
      String yaml = Files.readString(KubeApi.kubeconfig());
      if (!yaml.contains(":" + sharedPort)) {
        throw new IllegalStateException("the kubeconfig does not name port " + sharedPort);
      }
      Path kc = Files.createTempFile("replica-kubeconfig", ".yaml");
      Files.writeString(kc, yaml.replace(":" + sharedPort, ":" + port));
      ApiServerReplica r = new ApiServerReplica(cmd, port, kc, Files.createTempFile("replica-apiserver", ".log"));
      r.launch();
      return r;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void launch() throws IOException {
    process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    awaitServing(Duration.ofSeconds(90));
  }

  private void awaitServing(Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    Exception last = null;
    try (KubernetesClient c = client()) {
      while (Instant.now().isBefore(deadline)) {
        if (!process.isAlive()) {
          throw new IllegalStateException("the API server replica exited:\n" + Processes.tail(log, 30));
        }
        try {
          if (c.namespaces().withName("default").get() != null
              && c.apiextensions().v1().customResourceDefinitions().withName("tenantquotas.hbaseqos.io").get() != null) {
            return;
          }
        } catch (Exception e) {
          last = e;
        }
        try {
          Thread.sleep(300);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
    throw new IllegalStateException("the API server replica did not serve within " + timeout + " (" + last + ")");
  }

  /** A client of this replica only. Close it after use. */
  public KubernetesClient client() {
    try {
      return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  public int port() {
    return port;
  }

  /** SIGKILL: clients see refused connections and broken watches. */
  public void kill() {
    Processes.kill(process);
  }

  /** Starts it again on the same port, with the same flags. */
  public void restart() {
    try {
      launch();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    if (process != null) {
      kill();
    }
  }
}
