package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.cluster;
import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.hbase.BackendFactory;
import io.hbaseqos.operator.hbase.MemoryQuotaTable;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.Waits;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Throttle types newer than the connected HBase, and throttles on system tables, on the real API
 * server: on a real HBase 2.6.2 and 2.6.4 (both from Maven Central), and, for the upgrade paths
 * and the releases that do not exist here (2.6.7 to 2.6.8), on the in-memory quota table (its
 * row semantics are the contract's, checked against HBase 2.6.4) reporting the version.
 */
class HBaseVersionIT {
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static final MemoryQuotaTable HBASE = new MemoryQuotaTable();
  static final MemoryQuotaTable SYSTEM = new MemoryQuotaTable();
  static String ns;

  @BeforeAll
  static void start() {
    HBASE.version = "2.6.2";
    SYSTEM.version = "2.6.7";
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s, connection -> switch (connection.getZookeeperQuorum()) {
      case "memory:2181" -> HBASE;
      case "memory-system:2181" -> SYSTEM;
      default -> BackendFactory.HBASE.open(connection);
    });
    ns = KubeApi.newNamespace("version");
    ConnectionSpec c = new ConnectionSpec();
    c.setZookeeperQuorum("memory:2181");
    k8s.resource(cluster(ns, "old", c, "2s")).create();
  }

  @AfterAll
  static void stop() {
    KubeApi.cleanUp(Set.of(ns));
    operator.close();
  }

  static Condition ready(String name) {
    TenantQuota tq = k8s.resources(TenantQuota.class).inNamespace(ns).withName(name).get();
    return tq == null || tq.getStatus() == null ? null : tq.getStatus().condition("Ready").orElse(null);
  }

  @Test
  void aTypeTheClusterDoesNotHaveIsRefusedNamingTheReleaseAndWrittenOnceItIsUpgraded() throws Exception {
    String u = "atomic-" + ns;
    k8s.resource(tenant(ns, "atomic", "old", user(u), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"),
        t(ThrottleKind.ATOMIC_REQUEST_NUMBER, "10req/sec"))).create();
    k8s.resource(tenant(ns, "classic", "old", user("classic-" + ns), t(ThrottleKind.READ_NUMBER, "50req/sec"))).create();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(ready("atomic")).isNotNull().satisfies(c -> {
        assertThat(c.getStatus()).isEqualTo("False");
        assertThat(c.getReason()).isEqualTo("UnsupportedByHBase");
        assertThat(c.getMessage()).startsWith("ATOMIC_REQUEST_NUMBER needs HBase 2.6.3 or later; this cluster runs 2.6.2");
      });
      assertThat(ready("classic")).isNotNull().extracting(Condition::getStatus).isEqualTo("True");
    });
    assertThat(HBASE.read(Subject.user(u)).isEmpty()).as("nothing of the refused tenant written").isTrue();
    assertThat(HBASE.writes.get()).as("only the classic tenant's throttle").isEqualTo(1);
    // it stays refused over resyncs, with one event and no write
    Waits.seconds(5);
    assertThat(HBASE.writes.get()).isEqualTo(1);
    assertThat(k8s.v1().events().inNamespace(ns).list().getItems()).filteredOn(e ->
        "atomic".equals(e.getInvolvedObject().getName()) && "UnsupportedByHBase".equals(e.getReason())).hasSize(1);

    HBASE.version = "2.6.4"; // upgraded: the next resync describes the cluster again
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(ready("atomic")).extracting(Condition::getStatus).isEqualTo("True"));
    assertThat(HBASE.read(Subject.user(u)).throttles()).containsOnlyKeys(ThrottleKind.REQUEST_NUMBER,
        ThrottleKind.ATOMIC_REQUEST_NUMBER);
  }

  @Test
  void throttlesOnSystemTablesAreWrittenOnlyOnReleasesThatEnforceThem() throws Exception {
    ConnectionSpec c = new ConnectionSpec();
    c.setZookeeperQuorum("memory-system:2181");
    k8s.resource(cluster(ns, "sys", c, "2s")).create();
    k8s.resource(tenant(ns, "backup-reads", "sys", new io.hbaseqos.operator.api.QuotaSubject(null, null, "backup:system"),
        t(ThrottleKind.READ_SIZE, "10M/sec"))).create();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(ready("backup-reads")).isNotNull().satisfies(r -> {
      assertThat(r.getStatus()).isEqualTo("False");
      assertThat(r.getReason()).isEqualTo("UnsupportedByHBase");
      assertThat(r.getMessage()).startsWith("throttles on the tables of the system namespace 'backup' are enforced from "
          + "HBase 2.6.8, 2.7.0 and 3.0.1 (HBASE-30348); this cluster runs 2.6.7");
    }));
    Waits.seconds(3);
    assertThat(SYSTEM.writes.get()).as("nothing written on 2.6.7").isZero();
    SYSTEM.version = "2.6.8"; // upgraded
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(ready("backup-reads")).extracting(Condition::getStatus).isEqualTo("True"));
    assertThat(SYSTEM.read(Subject.table("backup:system")).throttles()).containsOnlyKeys(ThrottleKind.READ_SIZE);

    // and on a real HBase 2.6.4: refused with its version, and hbase:quota holds nothing for the subject
    k8s.resource(cluster(ns, "real", StandaloneHBase.shared().connectionSpec(), "2s")).create();
    k8s.resource(tenant(ns, "system-ns", "real", new io.hbaseqos.operator.api.QuotaSubject(null, "hbase", null),
        t(ThrottleKind.REQUEST_NUMBER, "5req/sec"))).create();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> assertThat(ready("system-ns")).isNotNull().satisfies(r -> {
      assertThat(r.getReason()).isEqualTo("UnsupportedByHBase");
      assertThat(r.getMessage()).contains("system namespace 'hbase'").contains("this cluster runs 2.6.4");
    }));
    assertThat(QuotaTableRaw.read(StandaloneHBase.shared(), "n.hbase")).isEmpty();

    // an operator restart changes nothing: still refused, still nothing in hbase:quota, no status write
    String key = io.hbaseqos.operator.cluster.ClusterConnections.key(
        k8s.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).withName("real").get());
    String version = k8s.resources(TenantQuota.class).inNamespace(ns).withName("system-ns").get().getMetadata()
        .getResourceVersion();
    operator = operator.restarted();
    await().atMost(30, TimeUnit.SECONDS).until(() -> operator.hbaseCalls(key, "readAll") >= 2);
    Waits.seconds(2);
    assertThat(operator.hbaseCalls(key, "setQuota")).isZero();
    assertThat(QuotaTableRaw.read(StandaloneHBase.shared(), "n.hbase")).isEmpty();
    assertThat(k8s.resources(TenantQuota.class).inNamespace(ns).withName("system-ns").get().getMetadata()
        .getResourceVersion()).as("no status write after a restart").isEqualTo(version);
    assertThat(ready("system-ns").getReason()).isEqualTo("UnsupportedByHBase");
  }

  /**
   * The same rules against a real HBase 2.6.2 (resolved from Maven Central like 2.6.4): a type it
   * lacks and a system-namespace throttle are refused naming 2.6.2 and never reach hbase:quota,
   * while a classic throttle on the same cluster is written.
   */
  @Test
  void aRealHBase262GetsNoTypeItLacksAndNoSystemNamespaceThrottle() throws Exception {
    StandaloneHBase old = new StandaloneHBase(java.nio.file.Files.createTempDirectory("hbaseqos-hbase-262"),
        java.util.Map.of(), "2.6.2");
    old.start();
    try {
      k8s.resource(cluster(ns, "real262", old.connectionSpec(), "2s")).create();
      String atomicUser = "atomic262-" + ns;
      String classicUser = "classic262-" + ns;
      k8s.resource(tenant(ns, "atomic262", "real262", user(atomicUser), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"),
          t(ThrottleKind.ATOMIC_REQUEST_NUMBER, "10req/sec"))).create();
      k8s.resource(tenant(ns, "classic262", "real262", user(classicUser), t(ThrottleKind.READ_NUMBER, "50req/sec")))
          .create();
      k8s.resource(tenant(ns, "system262", "real262", new io.hbaseqos.operator.api.QuotaSubject(null, "hbase", null),
          t(ThrottleKind.REQUEST_NUMBER, "5req/sec"))).create();
      await().atMost(90, TimeUnit.SECONDS).untilAsserted(() -> {
        assertThat(ready("atomic262")).isNotNull().satisfies(r -> {
          assertThat(r.getReason()).isEqualTo("UnsupportedByHBase");
          assertThat(r.getMessage()).startsWith("ATOMIC_REQUEST_NUMBER needs HBase 2.6.3 or later; this cluster runs 2.6.2");
        });
        assertThat(ready("system262")).isNotNull().satisfies(r -> {
          assertThat(r.getReason()).isEqualTo("UnsupportedByHBase");
          assertThat(r.getMessage()).contains("system namespace 'hbase'").contains("this cluster runs 2.6.2");
        });
        assertThat(ready("classic262")).isNotNull().extracting(Condition::getStatus).isEqualTo("True");
        assertThat(k8s.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).withName("real262").get()
            .getStatus().getHbaseVersion()).startsWith("2.6.2");
      });
      assertThat(String.valueOf(QuotaTableRaw.read(old, "u." + classicUser))).contains("read_num=50/SECONDS");
      assertThat(QuotaTableRaw.read(old, "u." + atomicUser)).as("nothing of the refused tenant").isEmpty();
      assertThat(QuotaTableRaw.read(old, "n.hbase")).isEmpty();

      // deleted while this HBase runs: the classic tenant's row goes, nothing is left behind
      for (String name : java.util.List.of("atomic262", "classic262", "system262")) {
        k8s.resources(TenantQuota.class).inNamespace(ns).withName(name).delete();
      }
      await().atMost(60, TimeUnit.SECONDS).until(() -> java.util.stream.Stream.of("atomic262", "classic262", "system262")
          .allMatch(n -> k8s.resources(TenantQuota.class).inNamespace(ns).withName(n).get() == null));
      assertThat(QuotaTableRaw.read(old, "u." + classicUser)).isEmpty();
      k8s.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).withName("real262").delete();
      await().atMost(60, TimeUnit.SECONDS).until(() ->
          k8s.resources(io.hbaseqos.operator.api.HBaseCluster.class).inNamespace(ns).withName("real262").get() == null);
    } finally {
      old.close();
    }
  }
}
