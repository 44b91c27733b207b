package io.hbaseqos.operator.support;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.support.ycsb.InClusterClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A tenant's application as a pod on the real node: the HBase image's JRE running
 * {@link InClusterClient} from this test JVM's own classpath (mounted read-only from the host),
 * so that it reaches ZooKeeper and the RegionServers by their cluster DNS names, as any
 * application in the cluster does. The test JVM on the host does not use the cluster's DNS.
 */
public final class ClientPod {
  public static final String NAME = "tenant-app";
  private final String namespace;

  private ClientPod(String namespace) {
    this.namespace = namespace;
  }

  /** Creates the pod (idle until commands are run in it) and waits until it runs. */
  public static ClientPod start(KubernetesClient k8s, String namespace, String image, String zookeeperQuorum) {
    Set<String> roots = new LinkedHashSet<>();
    Path m2 = Path.of(System.getProperty("user.home"), ".m2", "repository");
    for (String e : classpath()) {
      Path p = Path.of(e).toAbsolutePath();
      roots.add(p.startsWith(m2) ? m2.toString() : p.startsWith(Paths.projectDir()) ? Paths.projectDir().toString()
          : p.getParent().toString());
    }
    PodBuilder pod = new PodBuilder().withNewMetadata().withName(NAME).withNamespace(namespace)
        .addToLabels("app", NAME).endMetadata().withNewSpec().withTerminationGracePeriodSeconds(1L)
        // root: the mounted classpath is the host's /root/.m2, readable by root only
        .withNewSecurityContext().withRunAsUser(0L).endSecurityContext()
        .addNewContainer().withName("app").withImage(image).withImagePullPolicy("Never")
        .withCommand("sleep", "infinity")
        .addNewEnv().withName("HBASE_ZOOKEEPER_QUORUM").withValue(zookeeperQuorum).endEnv()
        .endContainer().endSpec();
    int i = 0;
    for (String root : roots) {
      String name = "cp" + i++;
      pod.editSpec().addToVolumes(new VolumeBuilder().withName(name).withNewHostPath().withPath(root)
          .withType("Directory").endHostPath().build())
          .editFirstContainer().addToVolumeMounts(new VolumeMountBuilder().withName(name).withMountPath(root)
              .withReadOnly(true).build()).endContainer().endSpec();
    }
    Pod created = k8s.resource(pod.build()).create();
    k8s.resource(created).waitUntilReady(120, TimeUnit.SECONDS);
    return new ClientPod(namespace);
  }

  private static List<String> classpath() {
    return List.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator));
  }

  private List<String> command(String... args) {
    List<String> cmd = new ArrayList<>(List.of("-n", namespace, "exec", NAME, "--", "java", "-Xmx384m",
        "-XX:+UseSerialGC", "-cp", String.join(":", classpath()), InClusterClient.class.getName()));
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Runs one command of {@link InClusterClient} in the pod; its result lines that start with {@code tag}. */
  public List<String[]> run(String tag, String... args) {
    Kubectl.Result r = RealNode.kubectl(command(args).toArray(String[]::new));
    if (r.exit() != 0) {
      throw new IllegalStateException(String.join(" ", args) + " failed in the pod:\n" + tail(r.output()));
    }
    return tagged(tag, r.output().lines().toList());
  }

  /** The lines of {@link InClusterClient}'s output that start with {@code tag}, split at tabs. */
  public static List<String[]> tagged(String tag, List<String> output) {
    return output.stream().filter(l -> l.startsWith(tag + "\t")).map(l -> l.substring(tag.length() + 1).split("\t"))
        .toList();
  }

  private static String tail(String s) {
    return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
  }

  /** The raw cells of hbase:quota, as the application in the cluster reads them. */
  public java.util.Map<String, String> quotaTable() {
    java.util.Map<String, String> out = new java.util.TreeMap<>();
    for (String[] l : run("Q", "quota")) {
      out.put(l[0], l[1]);
    }
    return out;
  }

  /** A command running in the pod until {@link #stop}: its output lines as they come. */
  public final class Running {
    private final Process process;
    private final String stopFile;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final Thread reader;

    Running(Process process, String stopFile) {
      this.process = process;
      this.stopFile = stopFile;
      this.reader = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8))) {
          for (String l; (l = r.readLine()) != null; ) {
            output.add(l);
          }
        } catch (IOException e) {
          output.add("read failed: " + e);
        }
      }, "client-pod-output");
      reader.setDaemon(true);
      reader.start();
    }

    public List<String> output() {
      return output;
    }

    /** Touches the stop file, and returns the whole output once the command ended. */
    public List<String> stop() throws InterruptedException {
      RealNode.kubectl("-n", namespace, "exec", NAME, "--", "touch", stopFile);
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      reader.join(10_000);
      return List.copyOf(output);
    }
  }

  /**
   * Starts {@code watch} (the tenant's load, and the regions in transition) in the pod; it runs
   * until {@link Running#stop}.
   */
  public Running watch(String user, String table, int records, int threads) {
    String stopFile = "/tmp/stop-" + System.nanoTime();
    List<String> cmd = new ArrayList<>(List.of(KubeApi.kubectl(), "--kubeconfig", RealNode.kubeconfig().toString()));
    cmd.addAll(command("watch", user, table, String.valueOf(records), String.valueOf(threads), stopFile));
    try {
      return new Running(new ProcessBuilder(cmd).redirectErrorStream(true).start(), stopFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
