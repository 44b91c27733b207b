package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.cluster;
import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.StandaloneHBase;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** HBase goes down and comes back: conditions say so, nothing crashes or piles up, everything converges. */
class HBaseOutageIT {
  static KubernetesClient k8s;
  static StandaloneHBase hbase;
  static OperatorHarness operator;

  @BeforeAll
  static void start() throws Exception {
    hbase = new StandaloneHBase(Files.createTempDirectory("hbaseqos-outage"), Map.of());
    hbase.start();
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
  }

  static String namespace;

  @AfterAll
  static void stop() {
    if (namespace != null) {
      KubeApi.cleanUp(List.of(namespace));
    }
    if (operator != null) {
      operator.close();
    }
    if (hbase != null) {
      hbase.close();
    }
  }

  static String readyReason(String ns, String name) {
    TenantQuota tq = k8s.resources(TenantQuota.class).inNamespace(ns).withName(name).get();
    return tq == null || tq.getStatus() == null ? null
        : tq.getStatus().condition("Ready").map(c -> c.getReason()).orElse(null);
  }

  static boolean allHaveReason(String ns, int n, String reason) {
    for (int i = 0; i < n; i++) {
      if (!reason.equals(readyReason(ns, "t" + i))) {
        return false;
      }
    }
    return true;
  }

  static long limitInHBase(String user) throws Exception {
    try (Admin admin = hbase.admin()) {
      return admin.getQuota(new QuotaFilter().setUserFilter(java.util.regex.Pattern.quote(user))).stream()
          .filter(s -> s instanceof org.apache.hadoop.hbase.quotas.ThrottleSettings)
          .mapToLong(s -> ((org.apache.hadoop.hbase.quotas.ThrottleSettings) s).getSoftLimit()).findFirst().orElse(-1);
    }
  }

  @Test
  void outageIsReportedAndEverythingConvergesWhenHBaseReturns() throws Exception {
    String ns = KubeApi.newNamespace("outage");
    namespace = ns;
    k8s.resource(cluster(ns, "hb", hbase.connectionSpec(), "2s")).create();
    int n = 20;
    for (int i = 0; i < n; i++) {
      k8s.resource(tenant(ns, "t" + i, "hb", user("outage-" + i), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    }
    await().atMost(60, TimeUnit.SECONDS).until(() -> allHaveReason(ns, n, "Synced"));
    int threadsBefore = Thread.activeCount();

    hbase.stop();
    long down = System.nanoTime();
    // change every tenant while HBase is down
    for (int i = 0; i < n; i++) {
      io.hbaseqos.operator.support.Resources.edit(k8s, TenantQuota.class, ns, "t" + i,
          tq -> tq.getSpec().setThrottles(List.of(t(ThrottleKind.REQUEST_NUMBER, "200req/sec"))));
    }
    await().atMost(90, TimeUnit.SECONDS).until(() -> allHaveReason(ns, n, "HBaseUnavailable"));
    long reportedAfterMs = (System.nanoTime() - down) / 1_000_000;
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      HBaseCluster c = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").get();
      assertThat(c.getStatus().condition("Reachable").map(x -> x.getStatus()).orElse(null)).isEqualTo("False");
    });
    // no thread pile-up: reconciles fail fast while the cluster is in back-off
    assertThat(Thread.activeCount()).isLessThan(threadsBefore + 40);
    TenantQuota one = k8s.resources(TenantQuota.class).inNamespace(ns).withName("t0").get();
    assertThat(one.getStatus().condition("Ready").get().getMessage()).contains("unreachable");

    hbase.start();
    long up = System.nanoTime();
    await().atMost(120, TimeUnit.SECONDS).until(() -> allHaveReason(ns, n, "Synced"));
    long convergedAfterMs = (System.nanoTime() - up) / 1_000_000;
    for (int i = 0; i < n; i++) {
      assertThat(limitInHBase("outage-" + i)).isEqualTo(200);
    }
    System.out.printf("outage: reported unavailable after %d ms; converged %d ms after HBase was ready again%n",
        reportedAfterMs, convergedAfterMs);
  }
}
