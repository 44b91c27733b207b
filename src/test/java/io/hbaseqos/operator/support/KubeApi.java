package io.hbaseqos.operator.support;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One real kube-apiserver + etcd per test JVM (fabric8 kube-api-test), with the binaries the
 * project's own script builds, and the committed CRDs installed.
 */
public final class KubeApi {
  private static KubeAPIServer server;
  private static KubernetesClient client;
  private static Path kubeconfig;
  private static final AtomicInteger NS = new AtomicInteger();

  private KubeApi() {}

  public static synchronized KubernetesClient client() {
    if (client == null) {
      start();
    }
    return client;
  }

  /** A kubeconfig file for kubectl and the packaged operator. */
  public static synchronized Path kubeconfig() {
    client();
    return kubeconfig;
  }

  /**
   * The kubeconfig with its certificate and key files inlined ({@code *-data}), for a process that
   * cannot read this machine's files (the operator in a container).
   */
  public static synchronized String selfContainedKubeconfig() {
    try {
      String yaml = Files.readString(kubeconfig());
      java.util.regex.Matcher m = java.util.regex.Pattern
          .compile("(?m)^(\\s*)(certificate-authority|client-certificate|client-key):\\s*\"?([^\"\\n]+)\"?\\s*$")
          .matcher(yaml);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String data = java.util.Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(m.group(3).trim())));
        m.appendReplacement(out, m.group(1) + m.group(2) + "-data: " + data);
      }
      m.appendTail(out);
      return out.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The command line the shared kube-apiserver runs with (read from /proc), to start a replica of it. */
  static synchronized List<String> apiServerCommand() {
    client();
    try {
      Object proc = field(server, "kubeApiServerProcess");
      Process p = (Process) field(proc, "apiServerProcess");
      byte[] raw = java.nio.file.Files.readAllBytes(Path.of("/proc", String.valueOf(p.pid()), "cmdline"));
      List<String> args = new java.util.ArrayList<>();
      for (String a : new String(raw, java.nio.charset.StandardCharsets.UTF_8).split("\0")) {
        args.add(a);
      }
      return args;
    } catch (ReflectiveOperationException | java.io.IOException e) {
      throw new IllegalStateException("cannot read the API server's command line", e);
    }
  }

  private static Object field(Object o, String name) throws ReflectiveOperationException {
    var f = o.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(o);
  }

  public static String kubectl() {
    return Paths.k8sBinDir().resolve("kubectl").toString();
  }

  /**
   * Deletes the operator's resources in the given namespaces and waits until they are gone (while
   * an operator still runs, so finalizers clean HBase). The test API server has no namespace
   * controller, so deleting a namespace would leave them behind for later tests' operators. What is
   * still there after the wait is named on stderr and removed without its finalizers: a cluster
   * left behind whose HBase has stopped is never reached again, and a never-reached cluster holds
   * {@code unmanagedPolicy: Remove} for every operator after it.
   */
  public static void cleanUp(java.util.Collection<String> namespaces) {
    KubernetesClient c = client();
    for (String ns : namespaces) {
      c.resources(io.hbaseqos.operator.api.TenantQuota.class).inNamespace(ns).delete();
    }
    for (String ns : namespaces) {
      waitEmpty(() -> c.resources(io.hbaseqos.operator.api.TenantQuota.class).inNamespace(ns).list().getItems());
      c.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).delete();
      waitEmpty(() -> c.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).list().getItems());
    }
    List<String> left = new java.util.ArrayList<>();
    for (String ns : namespaces) {
      c.resources(io.hbaseqos.operator.api.TenantQuota.class).inNamespace(ns).list().getItems()
          .forEach(r -> left.add("TenantQuota " + ns + "/" + r.getMetadata().getName()));
      c.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).list().getItems()
          .forEach(r -> left.add("HBaseCluster " + ns + "/" + r.getMetadata().getName()));
    }
    if (!left.isEmpty()) {
      System.err.println("clean-up: still there a minute after deletion, removed without their finalizers: " + left);
      forceCleanUp(namespaces);
    }
  }

  /**
   * Deletes everything in the given namespaces and then takes the finalizers off what is left, so
   * it goes at once (nothing is removed from HBase). Deletion comes first: an operator that still
   * runs cannot put a finalizer back on an object that is being deleted.
   */
  public static void forceCleanUp(java.util.Collection<String> namespaces) {
    KubernetesClient c = client();
    for (String ns : namespaces) {
      c.resources(io.hbaseqos.operator.api.TenantQuota.class).inNamespace(ns).delete();
      c.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).delete();
      for (var tq : c.resources(io.hbaseqos.operator.api.TenantQuota.class).inNamespace(ns).list().getItems()) {
        dropFinalizers(c.resource(tq));
      }
      for (var hc : c.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).list().getItems()) {
        dropFinalizers(c.resource(hc));
      }
      waitEmpty(() -> c.resources(io.hbaseqos.operator.api.TenantQuota.class).inNamespace(ns).list().getItems());
      waitEmpty(() -> c.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).list().getItems());
    }
  }

  private static void dropFinalizers(io.fabric8.kubernetes.client.dsl.Resource<?> r) {
    try {
      // a merge patch without a resourceVersion: no conflict with an operator writing status meanwhile
      r.patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
          io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  private static void waitEmpty(java.util.function.Supplier<List<?>> list) {
    long deadline = System.currentTimeMillis() + 60_000;
    while (!list.get().isEmpty() && System.currentTimeMillis() < deadline) {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Every HBaseCluster the API server holds, with its {@code UnmanagedRemoval} condition: what a
   * test that waits for {@code unmanagedPolicy: Remove} prints when the wait fails (removal is held
   * while any cluster has never been reached).
   */
  public static String removalPicture() {
    return client().resources(io.hbaseqos.operator.api.HBaseCluster.class).inAnyNamespace().list().getItems().stream()
        .map(hc -> hc.getMetadata().getNamespace() + "/" + hc.getMetadata().getName()
            + (hc.getMetadata().getDeletionTimestamp() == null ? "" : " (being deleted)") + ": "
            + (hc.getStatus() == null ? "no status" : hc.getStatus().condition("UnmanagedRemoval")
                .map(x -> x.getStatus() + " " + x.getMessage()).orElse("no UnmanagedRemoval")))
        .collect(java.util.stream.Collectors.joining("\n  ", "HBaseClusters:\n  ", ""));
  }

  /** A fresh namespace for one test. */
  public static String newNamespace(String prefix) {
    String name = prefix + "-" + NS.incrementAndGet() + "-" + Long.toString(System.nanoTime() % 100000, 36);
    client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
    return name;
  }

  /**
   * A fresh namespace holding HBaseCluster {@code hb} on {@code connection} (resync every
   * {@code resync}), once the running operator reports it Ready.
   */
  public static String namespaceWithCluster(String prefix, io.hbaseqos.operator.api.ConnectionSpec connection,
      String resync) {
    String ns = newNamespace(prefix);
    client().resource(Resources.cluster(ns, "hb", connection, resync)).create();
    awaitClusterReady(ns, "hb");
    return ns;
  }

  /** The reasons of the events about one object of a namespace, oldest first as the API lists them. */
  public static java.util.List<String> eventReasons(String ns, String name) {
    return client().v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName())).map(e -> e.getReason()).toList();
  }

  private static void start() {
    ensureBinaries();
    server = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
        .withTestDir(Paths.cacheDir().resolve("jenvtest").toString())
        .withApiServerVersion(Paths.k8sVersion())
        .withOfflineMode(true)
        .withStartupTimeout(120_000)
        .build());
    server.start();
    String yaml = server.getKubeConfigYaml();
    try {
      kubeconfig = Files.createTempFile("hbaseqos-kubeconfig", ".yaml");
      Files.writeString(kubeconfig, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(yaml)).build();
    installCrds(client);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        client.close();
      } finally {
        server.stop();
      }
    }));
  }

  /** Installs the committed CRDs from crds/ and waits until they are served. */
  public static void installCrds(KubernetesClient c) {
    try (var files = Files.list(Paths.projectDir().resolve("crds"))) {
      for (Path p : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        var crd = c.apiextensions().v1().customResourceDefinitions().load(p.toFile()).item();
        c.resource(crd).forceConflicts().serverSideApply();
        c.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
            .waitUntilCondition(KubeApi::established, 60, TimeUnit.SECONDS);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean established(CustomResourceDefinition crd) {
    return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** Waits (up to 60 s) until the HBaseCluster reports Ready=True. */
  public static void awaitClusterReady(String ns, String name) {
    org.awaitility.Awaitility.await().atMost(60, TimeUnit.SECONDS).until(() -> {
      io.hbaseqos.operator.api.HBaseCluster c = client().resources(io.hbaseqos.operator.api.HBaseCluster.class)
          .inNamespace(ns).withName(name).get();
      return c != null && c.getStatus() != null
          && c.getStatus().condition("Ready").map(x -> "True".equals(x.getStatus())).orElse(false);
    });
  }

  /**
   * Creates HBaseCluster {@code name} on {@code connection} (resync every 30 s) declaring the quota refresh
   * period {@code refresh}, and waits (up to 90 s) until its status reads the HBase version (starting with
   * {@code version}) and that refresh period from the RegionServer.
   */
  public static void createClusterWithRefresh(String ns, String name, io.hbaseqos.operator.api.ConnectionSpec
      connection, String refresh, String version) {
    io.hbaseqos.operator.api.HBaseCluster hc = Resources.cluster(ns, name, connection, "30s");
    hc.getSpec().getQuotas().setRefreshPeriod(refresh);
    client().resource(hc).create();
    org.awaitility.Awaitility.await().atMost(90, TimeUnit.SECONDS).untilAsserted(() -> {
      var st = client().resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).withName(name).get()
          .getStatus();
      org.assertj.core.api.Assertions.assertThat(st).isNotNull();
      org.assertj.core.api.Assertions.assertThat(st.getHbaseVersion()).startsWith(version);
      org.assertj.core.api.Assertions.assertThat(st.getQuotaRefreshPeriod()).as("read from the RegionServer")
          .isEqualTo(refresh);
    });
  }

  /** Runs hack/k8s-binaries.sh when the binaries are not cached yet (builds them from the Go module proxy). */
  static void ensureBinaries() {
    Path dir = Paths.k8sBinDir();
    ensure("core", List.of(dir.resolve("kube-apiserver"), dir.resolve("etcd"), dir.resolve("kubectl")));
  }

  /** Builds a component of hack/k8s-binaries.sh unless all its files are there. */
  public static void ensure(String component, List<Path> files) {
    if (files.stream().allMatch(Files::isExecutable)) {
      return;
    }
    try {
      Process p = new ProcessBuilder("bash", Paths.projectDir().resolve("hack/k8s-binaries.sh").toString(), component)
          .inheritIO().start();
      if (!p.waitFor(45, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IllegalStateException("hack/k8s-binaries.sh " + component + " failed; see its output above");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
