package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.MastersSpec;
import io.hbaseqos.operator.api.PodVolume;
import io.hbaseqos.operator.api.RegionServersSpec;
import io.hbaseqos.operator.api.TopologySpec;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.ClientPod;
import io.hbaseqos.operator.support.Kubectl;
import io.hbaseqos.operator.support.RealNode;
import io.hbaseqos.operator.support.Resources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * An HBaseCluster with topology on the real node (hack/node.sh): the operator, installed by the
 * chart as a pod, runs the master and two RegionServers from its StatefulSets with the project's
 * HBase image; ZooKeeper runs as a pod, and the root directory is a host directory every HBase pod
 * mounts through spec.topology.volumes. A tenant application in a pod (YCSB) proves the
 * RegionServers register and serve, that TenantQuotas are enforced, that each pod's memory stays
 * inside the limit the planner chose, that a configuration change rolls the RegionServers one at a
 * time with their regions moved first, and that a killed RegionServer pod comes back with quotas
 * holding.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodeClusterE2E {
  /** The HBase pods' namespace: it enforces the restricted Pod Security Standard. */
  static final String NS = "hbc";
  /** ZooKeeper and the tenant's application, whose pods are not the operator's (the client runs as root). */
  static final String APPS = "hbc-apps";
  static final String IMAGE = "ghcr.io/hbase-qos-operator/hbase:2.6.4";
  static final String QUORUM = "zk-0.zk." + APPS + ".svc.cluster.local:2181";
  static final String TABLE = "usertable";
  static final int RECORDS = 2000;
  static final int REGIONS = 4;
  static final String CAPPED = "capped";
  static final int CAP = 20;
  /** The RegionServers' pod DNS names, under which they register. */
  static final List<String> REGIONSERVER_HOSTS = List.of("hb-regionserver-0.hb-regionserver." + NS + ".svc.cluster.local",
      "hb-regionserver-1.hb-regionserver." + NS + ".svc.cluster.local");
  static KubernetesClient k8s;
  static ClientPod app;

  @BeforeAll
  static void deploy() throws Exception {
    k8s = RealNode.client();
    for (List<String> args : List.of(List.of("create", "namespace", NS), List.of("label", "namespace", NS,
        "pod-security.kubernetes.io/enforce=restricted", "pod-security.kubernetes.io/enforce-version=latest"))) {
      Kubectl.Result r = RealNode.kubectl(args.toArray(String[]::new));
      assertThat(r.exit()).as(r.output()).isZero();
    }
    // the platform lets the operator run HBase in NS only (a Role there), without host paths (the default)
    RealNode.installOperator("--set", "topology.namespaces={" + NS + "}");
    RealNode.createNamespaceWith(APPS, "zookeeper.yaml");
    // hbase.rootdir: a directory of the node, owned by the image's hbase user, that the platform offers
    // as a persistent volume; every HBase pod mounts its claim
    Path root = RealNode.kubeconfig().getParent().resolve("hbase-root");
    Files.createDirectories(root);
    Files.setAttribute(root, "unix:uid", 1000);
    Files.setAttribute(root, "unix:gid", 1000);
    k8s.resource(new PersistentVolumeBuilder().withNewMetadata().withName("hbase-root").endMetadata().withNewSpec()
        .withCapacity(Map.of("storage", new Quantity("1Gi"))).withAccessModes("ReadWriteMany")
        .withStorageClassName("hbase-root").withPersistentVolumeReclaimPolicy("Retain")
        .withNewHostPath().withPath(root.toString()).withType("Directory").endHostPath()
        .withNewClaimRef().withNamespace(NS).withName("hbase-root").endClaimRef().endSpec().build()).create();
    k8s.resource(new PersistentVolumeClaimBuilder().withNewMetadata().withName("hbase-root").withNamespace(NS)
        .endMetadata().withNewSpec().withAccessModes("ReadWriteMany").withStorageClassName("hbase-root")
        .withVolumeName("hbase-root").withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources()
        .endSpec().build()).create();
    // the same root as a host path: refused at admission, naming the field and the Helm value
    HBaseCluster withHostPath = cluster(new PodVolume("root", Map.of("hostPath", Map.of("path", root.toString(),
        "type", "Directory"))));
    Path file = Files.createTempFile("hostpath-hbc", ".yaml");
    Files.writeString(file, io.fabric8.kubernetes.client.utils.Serialization.asYaml(withHostPath));
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      Kubectl.Result r = RealNode.kubectl("create", "--dry-run=server", "-f", file.toString());
      assertThat(r.exit()).as(r.output()).isNotZero();
      assertThat(r.output()).contains("spec.topology.volumes: this operator's installation does not allow host paths");
    });
    k8s.resource(cluster(new PodVolume("root", Map.of("persistentVolumeClaim", Map.of("claimName", "hbase-root")))))
        .create();
    k8s.resource(Resources.tenant(NS, CAPPED, "hb", Resources.user(CAPPED),
        Resources.t(ThrottleKind.REQUEST_NUMBER, CAP + "req/sec"))).create();
    app = ClientPod.start(k8s, APPS, IMAGE, QUORUM);
    for (String pod : List.of("zk-0", "hb-master-0", "hb-regionserver-0", "hb-regionserver-1")) {
      String ns = pod.startsWith("zk") ? APPS : NS;
      await().atMost(240, TimeUnit.SECONDS).ignoreExceptions()
          .until(() -> k8s.pods().inNamespace(ns).withName(pod).get() != null);
      Kubectl.Result ready = RealNode.kubectl("-n", ns, "wait", "--for=condition=Ready", "pod/" + pod, "--timeout=240s");
      assertThat(ready.exit()).as(() -> ready.output() + RealNode.podReport(ns)).isZero();
    }
    await().atMost(240, TimeUnit.SECONDS).ignoreExceptions().until(() -> servers().size() == 2);
    app.run("", "load", "loader", TABLE, String.valueOf(RECORDS), String.valueOf(REGIONS));
  }

  static HBaseCluster cluster(PodVolume rootVolume) {
    ConnectionSpec conn = new ConnectionSpec();
    conn.setZookeeperQuorum(QUORUM);
    HBaseCluster hc = Resources.cluster(NS, "hb", conn, "10s");
    hc.getSpec().getQuotas().setRefreshPeriod("5s");
    TopologySpec t = new TopologySpec();
    t.setImage(IMAGE);
    t.setRootDir("file:///var/lib/hbase/root");
    t.setVolumes(List.of(rootVolume));
    t.setVolumeMounts(List.of(new VolumeMountBuilder().withName("root").withMountPath("/var/lib/hbase/root").build()));
    RegionServersSpec rs = new RegionServersSpec();
    rs.setReplicasPerNode(2);
    rs.setHeap("1g");
    rs.setHandlerCount(10);
    rs.setGracefulShutdown("60s");
    // the whole heap touched at start: the memory peaks below include all of it, not only what the load used
    rs.setJvmOptions(List.of("-XX:+AlwaysPreTouch"));
    // a local root directory: the write-ahead log cannot hflush to it
    rs.setSiteProperties(Map.of("hbase.unsafe.stream.capability.enforce", "false"));
    t.setRegionServers(rs);
    MastersSpec m = new MastersSpec();
    m.setReplicas(1);
    m.setHeap("1g");
    t.setMasters(m);
    hc.getSpec().setTopology(t);
    return hc;
  }

  @AfterAll
  static void down() {
    RealNode.down();
  }

  /** Live RegionServers as the master lists them: host name to {regions of the table, reads of them}. */
  static Map<String, long[]> servers() {
    Map<String, long[]> out = new TreeMap<>();
    for (String[] l : app.run("S", "servers", TABLE)) {
      out.put(l[0], new long[] {Long.parseLong(l[3]), Long.parseLong(l[4])});
    }
    return out;
  }

  static List<Pod> regionServerPods() {
    return k8s.pods().inNamespace(NS).withLabel("app.kubernetes.io/component", "regionserver").list().getItems();
  }

  static boolean ready(Pod p) {
    return p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null
        && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** ops/s of a YCSB run (R line: ok failed seconds p99ms maxms). */
  static double rate(String[] r) {
    return Long.parseLong(r[0]) / Double.parseDouble(r[2]);
  }

  static String[] run(String user, int seconds, int threads) {
    return app.run("R", "run", user, TABLE, String.valueOf(RECORDS), String.valueOf(seconds), String.valueOf(threads))
        .get(0);
  }

  static void edit(Consumer<HBaseCluster> change) {
    Resources.editCluster(k8s, NS, "hb", change);
  }

  @Test
  @Order(1)
  void mastersAndRegionServersStartFromTheOperatorsStatefulSetsAndRegister() {
    String node = k8s.nodes().list().getItems().get(0).getMetadata().getName();
    HBaseCluster hc = k8s.resources(HBaseCluster.class).inNamespace(NS).withName("hb").get();
    List<Pod> rs = regionServerPods();
    assertThat(rs).hasSize(2).allSatisfy(p -> {
      assertThat(p.getSpec().getNodeName()).isEqualTo(node);
      var c = p.getSpec().getContainers().get(0);
      assertThat(c.getCommand()).containsExactly("hbase", "regionserver", "start");
      // the container limit is the planner's: 1g heap + 1.5Gi off-heap
      assertThat(c.getResources().getLimits().get("memory").toString()).isEqualTo(hc.getStatus().getTopology().getMemory())
          .isEqualTo("2560Mi");
    });
    Pod master = k8s.pods().inNamespace(NS).withName("hb-master-0").get();
    assertThat(master.getSpec().getContainers().get(0).getCommand()).containsExactly("hbase", "master", "start");
    // admitted by a namespace that enforces the restricted Pod Security Standard, and running as the
    // image's non-root user with the root directory from a claim
    assertThat(k8s.namespaces().withName(NS).get().getMetadata().getLabels())
        .containsEntry("pod-security.kubernetes.io/enforce", "restricted");
    for (Pod p : k8s.pods().inNamespace(NS).withLabel("app.kubernetes.io/name", "hbase").list().getItems()) {
      assertThat(p.getSpec().getSecurityContext().getRunAsNonRoot()).as(p.getMetadata().getName()).isTrue();
      assertThat(p.getSpec().getContainers().get(0).getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
      assertThat(p.getSpec().getVolumes()).noneMatch(v -> v.getHostPath() != null);
    }
    assertThat(RealNode.kubectl("-n", NS, "exec", "hb-master-0", "--", "id", "-u").output().trim()).isEqualTo("1000");
    // both RegionServers registered with the master under their pods' DNS names
    assertThat(servers().keySet()).containsExactlyInAnyOrderElementsOf(REGIONSERVER_HOSTS);
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> assertThat(k8s.resources(HBaseCluster.class)
        .inNamespace(NS).withName("hb").get().getStatus().condition("RegionServersReady").get().getStatus())
        .isEqualTo("True"));
  }

  @Test
  @Order(2)
  void quotasAreEnforcedUnderYcsbLoadBothRegionServersServeAndMemoryStaysInsideTheLimit() throws Exception {
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(app.quotaTable()).containsEntry("u." + CAPPED + " q:s", "req_num=" + CAP + "/SECONDS"));
    Thread.sleep(6000); // one refresh period (5 s): the RegionServers hold the quota
    Map<String, long[]> before = servers();
    CompletableFuture<String[]> capped = CompletableFuture.supplyAsync(() -> run(CAPPED, 20, 4));
    CompletableFuture<String[]> free = CompletableFuture.supplyAsync(() -> run("free", 20, 4));
    double cappedRate = rate(capped.get());
    double freeRate = rate(free.get());
    Map<String, long[]> after = servers();
    System.out.printf("[real-node] YCSB reads, 20 s, 4 threads each: capped (%d req/s per RegionServer) %.1f ops/s"
        + " (p99 %s ms), free %.1f ops/s (p99 %s ms)%n", CAP, cappedRate, capped.get()[3], freeRate, free.get()[3]);
    // the quota is per RegionServer: at most twice the limit across the two, never the free rate
    assertThat(cappedRate).isLessThan(2 * CAP * 1.5);
    assertThat(freeRate).isGreaterThan(3 * cappedRate);
    assertThat(Long.parseLong(free.get()[1])).isZero();
    // both RegionServers hold regions of the table and served reads of them
    assertThat(after).hasSize(2).allSatisfy((server, m) -> {
      assertThat(m[0]).as(server + " regions of " + TABLE).isGreaterThan(0);
      assertThat(m[1]).as(server + " reads of " + TABLE).isGreaterThan(before.get(server)[1]);
    });
    // heap plus off-heap stayed inside each container's limit: the cgroup's peak, no OOM kill
    for (Pod p : k8s.pods().inNamespace(NS).withLabel("app.kubernetes.io/name", "hbase").list().getItems()) {
      long limit = p.getSpec().getContainers().get(0).getResources().getLimits().get("memory").getNumericalAmount()
          .longValue();
      Path cgroup = podCgroup(p.getMetadata().getUid());
      long peak = Long.parseLong(Files.readString(cgroup.resolve("memory.max_usage_in_bytes")).trim());
      System.out.printf("[real-node] %s: memory peak %d MiB of a %d MiB limit%n", p.getMetadata().getName(),
          peak >> 20, limit >> 20);
      assertThat(peak).as(p.getMetadata().getName()).isLessThan(limit);
      assertThat(Files.readString(cgroup.resolve("memory.oom_control"))).contains("oom_kill 0");
      assertThat(p.getStatus().getContainerStatuses().get(0).getRestartCount()).isZero();
    }
  }

  /** The pod's memory cgroup (cgroup v1, the kubelet's cgroupfs driver). */
  static Path podCgroup(String uid) throws IOException {
    try (Stream<Path> s = Files.walk(Path.of("/sys/fs/cgroup/memory/kubepods"), 2)) {
      return s.filter(p -> p.getFileName().toString().equals("pod" + uid)).findFirst().orElseThrow();
    }
  }

  @Test
  @Order(3)
  void aConfigurationChangeRollsTheRegionServersOneAtATimeMovingTheirRegionsFirst() throws Exception {
    Set<String> before = regionServerPods().stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
    StatefulSet masters = k8s.apps().statefulSets().inNamespace(NS).withName("hb-master").get();
    ClientPod.Running watch = app.watch("roller", TABLE, RECORDS, 2);
    await().atMost(60, TimeUnit.SECONDS).until(() -> watch.output().contains("WATCHING"));
    Thread.sleep(3000);
    long started = System.nanoTime();
    edit(h -> h.getSpec().getTopology().getRegionServers().setJvmOptions(List.of("-XX:+AlwaysPreTouch",
        "-XX:+UseG1GC")));
    int leastReady = 2;
    Map<String, Long> readySince = new HashMap<>();
    List<String> order = new ArrayList<>();
    while (true) {
      List<Pod> pods = regionServerPods();
      int readyNow = (int) pods.stream().filter(RealNodeClusterE2E::ready).count();
      leastReady = Math.min(leastReady, readyNow);
      for (Pod p : pods) {
        if (!before.contains(p.getMetadata().getUid()) && !order.contains(p.getMetadata().getName())) {
          order.add(p.getMetadata().getName());
        }
      }
      boolean rolled = pods.size() == 2 && pods.stream().allMatch(p -> !before.contains(p.getMetadata().getUid()) && ready(p));
      if (rolled) {
        break;
      }
      assertThat(System.nanoTime() - started).as(() -> "roll not done\n" + RealNode.podReport(NS))
          .isLessThan(TimeUnit.MINUTES.toNanos(8));
      Thread.sleep(500);
    }
    double rollSeconds = (System.nanoTime() - started) / 1e9;
    await().atMost(120, TimeUnit.SECONDS).ignoreExceptions().until(() -> servers().size() == 2);
    Thread.sleep(3000);
    List<String> out = watch.stop();
    String[] w = ClientPod.tagged("W", out).get(0);
    String[] r = ClientPod.tagged("R", out).get(0);
    System.out.printf("[real-node] roll of 2 RegionServers (%s): %.0f s; %s region transitions, unassigned %s ms in "
        + "total, %s ms at most; the tenant meanwhile: %s ops ok, %s failed, p99 %s ms, max %s ms%n",
        String.join(" then ", order), rollSeconds, w[0], w[1], w[2], r[0], r[1], r[3], r[4]);
    // one at a time: never both down; highest ordinal first
    assertThat(leastReady).isGreaterThanOrEqualTo(1);
    assertThat(order).containsExactly("hb-regionserver-1", "hb-regionserver-0");
    // the regions moved while their RegionServer still served (preStop): all came back, and the
    // tenant's reads never failed
    assertThat(Long.parseLong(w[0])).isGreaterThan(0);
    assertThat(w[3]).as("regions still in transition").isEqualTo("0");
    assertThat(Long.parseLong(r[1])).as(() -> String.join("\n", out)).isZero();
    assertThat(Long.parseLong(r[0])).isGreaterThan(0);
    // the moves were the preStop hook's (RegionMover asking the master), and no hook failed
    assertThat(RealNode.kubectl("-n", NS, "logs", "hb-master-0").output()).containsPattern(" move .*, running balancer");
    assertThat(k8s.v1().events().inNamespace(NS).list().getItems())
        .noneMatch(e -> "FailedPreStopHook".equals(e.getReason()));
    // only the RegionServers rolled
    assertThat(k8s.apps().statefulSets().inNamespace(NS).withName("hb-master").get().getStatus().getCurrentRevision())
        .isEqualTo(masters.getStatus().getCurrentRevision());
  }

  @Test
  @Order(4)
  void aKilledRegionServerPodComesBackAndQuotasHold() throws Exception {
    Pod victim = k8s.pods().inNamespace(NS).withName("hb-regionserver-0").get();
    Kubectl.Result kill = RealNode.kubectl("-n", NS, "delete", "pod", "hb-regionserver-0", "--grace-period=0", "--force");
    assertThat(kill.exit()).as(kill.output()).isZero();
    long killed = System.nanoTime();
    await().atMost(240, TimeUnit.SECONDS).ignoreExceptions().until(() -> {
      Pod p = k8s.pods().inNamespace(NS).withName("hb-regionserver-0").get();
      return p != null && !p.getMetadata().getUid().equals(victim.getMetadata().getUid()) && ready(p);
    });
    // both RegionServers registered again, and every region of the table is open on one of them
    await().atMost(240, TimeUnit.SECONDS).ignoreExceptions().untilAsserted(() -> {
      Map<String, long[]> s = servers();
      assertThat(s.keySet()).as(() -> RealNode.podReport(NS)).containsExactlyInAnyOrderElementsOf(REGIONSERVER_HOSTS);
      assertThat(s.values().stream().mapToLong(m -> m[0]).sum()).isEqualTo(REGIONS);
    });
    System.out.printf("[real-node] killed RegionServer pod back and registered after %.0f s%n",
        (System.nanoTime() - killed) / 1e9);
    assertThat(app.quotaTable()).containsEntry("u." + CAPPED + " q:s", "req_num=" + CAP + "/SECONDS");
    String[] free = run("free", 10, 2);
    assertThat(Long.parseLong(free[1])).isZero();
    double cappedRate = rate(run(CAPPED, 15, 4));
    System.out.printf("[real-node] after the kill: capped %.1f ops/s, free %.1f ops/s%n", cappedRate, rate(free));
    assertThat(cappedRate).isLessThan(2 * CAP * 1.5);
  }
}
