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
import io.hbaseqos.operator.hbase.MemoryQuotaTable;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.Waits;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Throttle types newer than the connected HBase, on the real API server. No HBase older than
 * 2.6.3 runs here, so the cluster is the in-memory quota table (its row semantics are the
 * contract's, checked against HBase 2.6.4) reporting version 2.6.2, then upgraded to 2.6.4.
 */
class HBaseVersionIT {
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static final MemoryQuotaTable HBASE = new MemoryQuotaTable();
  static String ns;

  @BeforeAll
  static void start() {
    HBASE.version = "2.6.2";
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s, connection -> HBASE);
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

}
