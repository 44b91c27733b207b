package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.StandaloneHBase;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the operator reports about a cluster, read from a real HBase 2.6.4. */
class HBaseClusterIT {
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static String ns;

  @BeforeAll
  static void start() {
    StandaloneHBase.shared();
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
    ns = KubeApi.newNamespace("hbc");
  }

  @AfterAll
  static void stop() {
    KubeApi.cleanUp(Set.of(ns));
    operator.close();
  }

  static HBaseCluster get(String name) {
    return k8s.resources(HBaseCluster.class).inNamespace(ns).withName(name).get();
  }

  static Condition condition(String name, String type) {
    HBaseCluster c = get(name);
    return c == null || c.getStatus() == null ? null : c.getStatus().condition(type).orElse(null);
  }

  @Test
  void statusSaysWhatTheClusterIsAndWhichRefreshPeriodItsRegionServersRunWith() {
    // The standalone HBase runs with hbase.quota.refresh.period=5000 in its hbase-site.xml.
    HBaseCluster hc = cluster(ns, "hb", StandaloneHBase.shared().connectionSpec(), "2s");
    hc.getSpec().getQuotas().setRefreshPeriod("5s");
    k8s.resource(hc).create();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      Condition c = condition("hb", "RefreshPeriodMatches");
      assertThat(c).isNotNull();
      assertThat(c.getStatus()).isEqualTo("True");
      assertThat(c.getMessage()).contains("hbase.quota.refresh.period=5s");
    });
    HBaseCluster seen = get("hb");
    assertThat(seen.getStatus().getQuotaRefreshPeriod()).isEqualTo("5s");
    assertThat(seen.getStatus().getHbaseVersion()).isEqualTo("2.6.4");
    assertThat(seen.getStatus().getRegionServers()).isEqualTo(1);
    assertThat(seen.getStatus().getQuotasEnabled()).isTrue();
    assertThat(seen.getStatus().getRpcThrottleEnabled()).isTrue();
    assertThat(condition("hb", "Ready").getStatus()).isEqualTo("True");

    // Declaring another period than the cluster runs with is reported, with the value found, and
    // does not stop the cluster from being managed.
    io.hbaseqos.operator.support.Resources.editCluster(k8s, ns, "hb", c -> c.getSpec().getQuotas().setRefreshPeriod("30s"));
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      Condition c = condition("hb", "RefreshPeriodMatches");
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("Mismatch");
      assertThat(c.getMessage()).contains("is 5s on ").contains("declared 30s");
    });
    assertThat(condition("hb", "Ready").getStatus()).isEqualTo("True");
    await().atMost(30, TimeUnit.SECONDS).until(() -> k8s.v1().events().inNamespace(ns).list().getItems().stream()
        .anyMatch(e -> "RefreshPeriodMismatch".equals(e.getReason()) && "Warning".equals(e.getType())));
  }
}
