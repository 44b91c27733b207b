package io.hbaseqos.operator.support;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real single-node Kubernetes (hack/node.sh: its own API server with RBAC and service-account
 * tokens, containerd, the kubelet, kube-proxy, CoreDNS), started on first use and stopped, with
 * the machine restored, by {@link #down} (a test class's last step) or when the JVM exits. Its pods are real containers, from the images
 * hack/images.sh builds and loads into its containerd.
 *
 * <p>A machine has room for one such node (its directory, ports, bridge and iptables rules are the
 * machine's), so a test run holds a lock on it from start to {@link #down}: a second run on the
 * same machine waits for the first to be done with it instead of installing into its cluster.
 */
public final class RealNode {
  private static final Duration LOCK_WAIT = Duration.ofMinutes(30);
  private static Path kubeconfig;
  private static KubernetesClient client;
  /** Open while this run holds the node's lock; closing it releases the lock. */
  private static FileChannel lockFile;

  private RealNode() {}

  /** Starts the node (first call), and returns the kubeconfig of its API server. */
  public static synchronized Path kubeconfig() {
    if (kubeconfig == null) {
      if (!"0".equals(run(List.of("id", "-u")).output().trim())) {
        throw new IllegalStateException("the real-node tests need root: containerd, the kubelet and iptables");
      }
      acquire();
      Kubectl.Result up = run(List.of("bash", script("node.sh"), "up"));
      if (up.exit() != 0) {
        release();
        throw new IllegalStateException("hack/node.sh up failed:\n" + up.output());
      }
      String[] lines = up.output().trim().split("\n");
      kubeconfig = Path.of(lines[lines.length - 1].trim());
      Runtime.getRuntime().addShutdownHook(new Thread(RealNode::down));
    }
    return kubeconfig;
  }

  public static synchronized KubernetesClient client() {
    if (client == null) {
      try {
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig())))
            .build();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return client;
  }

  /** containerd's socket of the node, where hack/images.sh loads images. */
  public static Path containerdSocket() {
    return kubeconfig().getParent().resolve("containerd/containerd.sock");
  }

  /** Builds the project's images (hack/images.sh: operator, hbase) and loads them into the node. */
  public static void loadImages(String... images) {
    List<String> cmd = new ArrayList<>(List.of("bash", script("images.sh"), "--containerd",
        containerdSocket().toString()));
    cmd.addAll(List.of(images));
    Kubectl.Result r = run(cmd);
    if (r.exit() != 0) {
      throw new IllegalStateException("hack/images.sh failed:\n" + r.output());
    }
  }

  /** The operator's namespace and Helm release name on the node. */
  public static final String OPERATOR_NS = "hbq-system";
  public static final String RELEASE = "hbq";

  /**
   * Builds and loads the operator and HBase images, and installs the chart with the operator's
   * image as built (helm install --wait: its pod is Ready).
   */
  public static void installOperator(String... values) {
    loadImages("operator", "hbase");
    List<String> args = new java.util.ArrayList<>(List.of("install", RELEASE, Helm.chart().toString(), "--namespace",
        OPERATOR_NS, "--create-namespace", "--wait", "--timeout", "3m"));
    args.addAll(List.of(values));
    Kubectl.Result install = helm(args.toArray(String[]::new));
    if (install.exit() != 0) {
      throw new IllegalStateException("helm install failed:\n" + install.output() + podReport(OPERATOR_NS));
    }
  }

  /** Creates a namespace and applies one of src/test/resources/realnode's manifests in it. */
  public static void createNamespaceWith(String ns, String manifest) {
    for (List<String> args : List.of(List.of("create", "namespace", ns), List.of("-n", ns, "apply", "-f",
        Paths.projectDir().resolve("src/test/resources/realnode").resolve(manifest).toString()))) {
      Kubectl.Result r = kubectl(args.toArray(String[]::new));
      if (r.exit() != 0) {
        throw new IllegalStateException("kubectl " + String.join(" ", args) + " failed:\n" + r.output());
      }
    }
  }

  /** The pods and events of a namespace, for a failure's message. */
  public static String podReport(String ns) {
    return "\n" + kubectl("-n", ns, "get", "pods", "-o", "wide").output()
        + kubectl("-n", ns, "get", "events", "--sort-by=.lastTimestamp").output();
  }

  /** The real kubectl against the node's API server. */
  public static Kubectl.Result kubectl(String... args) {
    return Kubectl.on(kubeconfig(), args);
  }

  /** The real helm against the node's API server. */
  public static Kubectl.Result helm(String... args) {
    return Helm.on(kubeconfig(), args);
  }

  /** Stops the node and restores the machine (hack/node.sh down); the next use starts it again. */
  public static synchronized void down() {
    if (kubeconfig == null) {
      return;
    }
    if (client != null) {
      client.close();
      client = null;
    }
    kubeconfig = null;
    Kubectl.Result r = run(List.of("bash", script("node.sh"), "down"));
    if (r.exit() != 0) {
      System.err.println("hack/node.sh down failed:\n" + r.output());
    }
    release();
  }

  /** The machine's node lock (beside hack/node.sh's directory), waited for up to {@link #LOCK_WAIT}. */
  private static void acquire() {
    Path path = Path.of(System.getenv().getOrDefault("HBQ_NODE_DIR", "/var/tmp/hbq-node") + ".lock");
    try {
      lockFile = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
      boolean said = false;
      while (lockFile.tryLock() == null) {
        if (System.nanoTime() > deadline) {
          release();
          throw new IllegalStateException("another run held the real node (" + path + ") for " + LOCK_WAIT);
        }
        if (!said) {
          System.err.println("the real node is in use by another run on this machine (" + path + "): waiting");
          said = true;
        }
        Thread.sleep(2000);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void release() {
    try {
      if (lockFile != null) {
        lockFile.close();
      }
    } catch (IOException e) {
      System.err.println("could not release the real node's lock: " + e);
    }
    lockFile = null;
  }

  private static String script(String name) {
    return Paths.projectDir().resolve("hack").resolve(name).toString();
  }

  private static Kubectl.Result run(List<String> cmd) {
    return Processes.run(cmd, Map.of());
  }
}
