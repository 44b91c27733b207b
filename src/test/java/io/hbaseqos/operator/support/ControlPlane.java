package io.hbaseqos.operator.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The rest of a control plane around the shared test API server: the real kube-scheduler, the
 * real kube-controller-manager (StatefulSet, disruption and garbage-collector controllers) and
 * kwok, which runs the pods scheduled to its fake nodes. Binaries from hack/k8s-binaries.sh.
 */
public final class ControlPlane implements AutoCloseable {
  private final List<Process> processes = new ArrayList<>();
  private final List<Path> logs = new ArrayList<>();

  public static ControlPlane start() {
    Path bin = Paths.k8sBinDir();
    Path kwok = Paths.cacheDir().resolve("tools/kwok");
    KubeApi.ensure("sched", List.of(bin.resolve("kube-scheduler"), bin.resolve("kube-controller-manager")));
    KubeApi.ensure("kwok", List.of(kwok));
    String kc = KubeApi.kubeconfig().toString();
    ControlPlane cp = new ControlPlane();
    cp.run("kube-scheduler", bin.resolve("kube-scheduler").toString(), "--kubeconfig=" + kc,
        "--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc, "--leader-elect=false",
        "--secure-port=0");
    cp.run("kube-controller-manager", bin.resolve("kube-controller-manager").toString(), "--kubeconfig=" + kc,
        "--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc, "--leader-elect=false",
        "--secure-port=0", "--use-service-account-credentials=false",
        "--controllers=statefulset-controller,disruption-controller,garbage-collector-controller");
    cp.run("kwok", kwok.toString(), "--kubeconfig=" + kc,
        "--manage-nodes-with-annotation-selector=" + Nodes.KWOK_ANNOTATION + "=fake", "--node-lease-duration-seconds=40");
    return cp;
  }

  /**
   * Only the kube-controller-manager's ClusterRole aggregation: Kubernetes' admin, edit and view
   * roles gain the rules of the ClusterRoles labelled to aggregate into them.
   */
  public static ControlPlane rbacAggregation() {
    return controllers("clusterrole-aggregation-controller");
  }

  /**
   * The kube-controller-manager's namespace controller and garbage collector: a deleted namespace
   * has its objects deleted (finalizers waited for) and then goes, and objects whose owner is gone
   * are deleted, as on a real cluster.
   */
  public static ControlPlane namespaceLifecycle() {
    return controllers("namespace-controller,garbage-collector-controller");
  }

  /** Only these controllers of the kube-controller-manager (its {@code --controllers} list). */
  private static ControlPlane controllers(String list) {
    Path bin = Paths.k8sBinDir();
    KubeApi.ensure("sched", List.of(bin.resolve("kube-scheduler"), bin.resolve("kube-controller-manager")));
    String kc = KubeApi.kubeconfig().toString();
    ControlPlane cp = new ControlPlane();
    cp.run("kube-controller-manager", bin.resolve("kube-controller-manager").toString(), "--kubeconfig=" + kc,
        "--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc, "--leader-elect=false",
        "--secure-port=0", "--use-service-account-credentials=false", "--controllers=" + list);
    return cp;
  }

  private void run(String name, String... cmd) {
    try {
      Path log = Files.createTempFile(name, ".log");
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      processes.add(p);
      logs.add(log);
      Thread.sleep(500);
      if (!p.isAlive()) {
        throw new IllegalStateException(name + " exited with " + p.exitValue() + ":\n" + Processes.tail(log, 30));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The last lines of every component's log, for failure messages. */
  public String logTails(int lines) {
    StringBuilder sb = new StringBuilder();
    for (Path l : logs) {
      sb.append("== ").append(l.getFileName()).append('\n').append(Processes.tail(l, lines)).append('\n');
    }
    return sb.toString();
  }

  @Override
  public void close() {
    processes.forEach(p -> Processes.stop(p, Duration.ofSeconds(10)));
  }
}
