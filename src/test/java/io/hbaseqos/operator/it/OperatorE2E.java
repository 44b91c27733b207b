package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.support.Examples;
import io.hbaseqos.operator.support.HBaseQuotas;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.Kubectl;
import io.hbaseqos.operator.support.OperatorProcess;
import io.hbaseqos.operator.support.StandaloneHBase;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packaged operator (Quarkus jar with the shaded HBase client) as its own process, driven with
 * kubectl against a real API server, writing into a real HBase.
 */
class OperatorE2E {
  static KubernetesClient k8s;
  static StandaloneHBase hbase;
  static OperatorProcess operator;

  @BeforeAll
  static void start() {
    hbase = StandaloneHBase.shared();
    k8s = KubeApi.client();
    operator = OperatorProcess.start(KubeApi.kubeconfig(), Map.of());
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void examplesApplyThroughKubectlAndLandInHBase() throws Exception {
    String ns = KubeApi.newNamespace("e2e");
    Kubectl.Result r = Kubectl.run("apply", "-n", ns, "-f", Examples.forHBase(hbase).toString());
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      for (TenantQuota tq : k8s.resources(TenantQuota.class).inNamespace(ns).list().getItems()) {
        assertThat(tq.getStatus()).as(tq.getMetadata().getName() + "\n" + operator.logTail(30)).isNotNull();
        assertThat(tq.getStatus().condition("Ready").map(c -> c.getStatus()).orElse(null))
            .as(tq.getMetadata().getName()).isEqualTo("True");
      }
    });
    assertThat(HBaseQuotas.user("analytics")).isEqualTo(Map.of("REQUEST_NUMBER", "2500req/sec", "READ_SIZE", "10M/sec"));
    assertThat(HBaseQuotas.of(null, null, "default:events"))
        .isEqualTo(Map.of("WRITE_NUMBER", "500req/sec(cluster)", "WRITE_SIZE", "50M/sec(cluster)"));
    assertThat(HBaseQuotas.of("reports", null, "usertable")).isEqualTo(Map.of("READ_CAPACITY_UNIT", "100CU/sec"));
    assertThat(HBaseQuotas.of(null, "etl", null)).isEqualTo(Map.of("REQUEST_NUMBER", "5000req/sec"));
    try (var admin = hbase.admin()) {
      assertThat(admin.getNamespaceDescriptor("etl").getConfiguration())
          .containsEntry("hbase.namespace.quota.maxtables", "20").containsEntry("hbase.namespace.quota.maxregions", "2000");
    }
    // the calibrated example starts from its spec's limit; without load there is nothing to move it
    assertThat(HBaseQuotas.user("dashboards")).isEqualTo(Map.of("READ_NUMBER", "1000req/sec"));
    // the sheddable example holds its ceiling while its protected tenant is idle; a protected tenant holds no quota
    assertThat(HBaseQuotas.user("backfill")).isEqualTo(Map.of("REQUEST_NUMBER", "20000req/sec"));
    assertThat(HBaseQuotas.user("checkout")).isEmpty();

    HBaseCluster hc = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("demo").get();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      HBaseCluster c = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("demo").get();
      assertThat(c.getStatus().getHbaseVersion()).isEqualTo("2.6.4");
      assertThat(c.getStatus().getRegionServers()).isEqualTo(1);
      assertThat(c.getStatus().getRpcThrottleEnabled()).isTrue();
      assertThat(c.getStatus().getQuotasEnabled()).isTrue();
      assertThat(c.getStatus().getManagedQuotas()).isEqualTo(6);
    });
    assertThat(hc).isNotNull();

    r = Kubectl.run("get", "-n", ns, "tq");
    assertThat(r.output()).contains("user=analytics").contains("REQUEST_NUMBER=2500req/sec").contains("True");

    var metrics = operator.get("/q/metrics").body();
    assertThat(metrics).contains("hbaseqos_quota_writes_total").contains("hbaseqos_hbase_call_seconds")
        .contains("hbaseqos_tenant_target_ops_per_second{namespace=\"" + ns + "\",tenantquota=\"dashboards\"} 2000.0")
        .contains("hbaseqos_tenant_latency_out_of_capacity{namespace=\"" + ns + "\",tenantquota=\"checkout\"} 0.0")
        .contains("hbaseqos_tenant_shed_limit{namespace=\"" + ns + "\",tenantquota=\"backfill\"} 20000.0");
    assertThat(operator.get("/q/health/live").statusCode()).isEqualTo(200);

    r = Kubectl.run("delete", "-n", ns, "tq", "analytics", "reports-on-usertable", "--wait=true", "--timeout=60s");
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(HBaseQuotas.user("analytics")).isEmpty();
    // deletionPolicy: Retain
    assertThat(HBaseQuotas.of("reports", null, "usertable")).isEqualTo(Map.of("READ_CAPACITY_UNIT", "100CU/sec"));
    KubeApi.cleanUp(List.of(ns));
    assertThat(HBaseQuotas.of(null, null, "default:events")).isEmpty();
    try (var admin = hbase.admin()) {
      assertThat(admin.getNamespaceDescriptor("etl").getConfiguration())
          .doesNotContainKeys("hbase.namespace.quota.maxtables", "hbase.namespace.quota.maxregions");
    }
  }
}
