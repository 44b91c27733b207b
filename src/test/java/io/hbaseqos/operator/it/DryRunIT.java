package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.DryRunStatus;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.TenantStatus;
import io.hbaseqos.operator.support.ycsb.TenantLoad;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A dry run on a real HBase 2.6.4 and a real API server, under YCSB load: the tenant's cells in
 * {@code hbase:quota}, read raw, stay as they were (a limit set in the shell before) through a
 * dry run and an operator restart; the prediction comes from the tenant's measured requests; and
 * switched to Enforce, HBase holds exactly the plan and the tenant gets about what was predicted.
 */
class DryRunIT {
  static final int PERIOD_S = 10;
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static Properties workload;
  static final List<String> namespaces = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    StandaloneHBase.shared();
    workload = TenantLoad.readWorkload("dryrun_usertable", 500);
    TenantLoad.load(StandaloneHBase.shared().clientConfiguration(), "loader", workload);
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
  }

  @AfterAll
  static void stop() {
    KubeApi.cleanUp(namespaces);
    operator.close();
  }

  static DryRunStatus dryRun(String ns, String name) {
    TenantQuota tq = TenantStatus.get(k8s, ns, name);
    return tq == null || tq.getStatus() == null ? null : tq.getStatus().getDryRun();
  }

  @Test
  void aDryRunLeavesHBaseAsItWasAcrossARestartAndItsPredictionHoldsOnceEnforced() throws Exception {
    String ns = KubeApi.namespaceWithCluster("dryrun", StandaloneHBase.shared().connectionSpec(), PERIOD_S + "s");
    namespaces.add(ns);
    String u = "dr-" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    try (Admin admin = StandaloneHBase.shared().admin()) {
      // set in the shell before the platform declared the tenant; it does not bind the reads below
      admin.setQuota(QuotaSettingsFactory.throttleUser(u, ThrottleType.WRITE_NUMBER, 5000, TimeUnit.SECONDS));
    }
    await().atMost(30, TimeUnit.SECONDS).until(() -> QuotaTableRaw.userLimit(StandaloneHBase.shared(), u, "write_num")
        != null);
    Map<String, String> before = QuotaTableRaw.read(StandaloneHBase.shared(), u);

    TenantQuota tq = tenant(ns, "reader", "hb", user(u), t(ThrottleKind.READ_NUMBER, "100req/sec"));
    tq.getSpec().setEnforcement(TenantQuotaSpec.Enforcement.DryRun);
    k8s.resource(tq).create();
    TenantStatus.awaitReason(k8s, ns, "reader", "DryRun");
    try (TenantLoad load = TenantLoad.start(StandaloneHBase.shared().clientConfiguration(), u, workload, 2, 300)) {
      // a prediction from its measured requests: 300/s sent against 100/s allowed on the one RegionServer
      java.util.concurrent.atomic.AtomicReference<DryRunStatus> seen = new java.util.concurrent.atomic.AtomicReference<>();
      await().atMost(4L * PERIOD_S, TimeUnit.SECONDS).untilAsserted(() -> {
        DryRunStatus now = dryRun(ns, "reader");
        assertThat(now).isNotNull();
        assertThat(now.getPredictedOpsPerSecond()).isNotNull().isBetween(80.0, 120.0);
        assertThat(now.getMeasuredOpsPerSecond()).isGreaterThan(200.0);
        seen.set(now);
      });
      DryRunStatus d = seen.get();
      System.out.printf(Locale.ROOT, "dry-run IT: plan %s; measured %.0f ops/s, predicted %.0f ops/s and %.1f%% "
          + "refused: %s%n", d.getPlan(), d.getMeasuredOpsPerSecond(), d.getPredictedOpsPerSecond(),
          d.getRejectedPercent(), d.getMessage());
      assertThat(d.getRejectedPercent()).isBetween(50.0, 80.0);
      assertThat(d.getServers()).hasSize(1);
      assertThat(d.getServers().get(0).getLimitPerSecond()).isEqualTo(100.0);
      assertThat(d.getMessage()).startsWith("under READ_NUMBER=100req/sec it would get about 100 ops/s");
      assertThat(QuotaTableRaw.read(StandaloneHBase.shared(), u)).as("hbase:quota, raw").isEqualTo(before);
      assertThat(TenantStatus.get(k8s, ns, "reader").getStatus().getSummary()).isEqualTo("WRITE_NUMBER=5000req/sec");

      // an operator restart: the dry run stands, still nothing written
      operator = operator.restarted();
      String key = io.hbaseqos.operator.cluster.ClusterConnections.key(ns, "hb");
      // the new operator has read the quota table (before its first reconcile) and resynced since
      await().atMost(4L * PERIOD_S, TimeUnit.SECONDS).until(() -> operator.hbaseCalls(key, "readAll") >= 2);
      TenantStatus.awaitReason(k8s, ns, "reader", "DryRun");
      assertThat(operator.hbaseCalls(key, "setQuota")).as("no write after the restart").isZero();
      assertThat(QuotaTableRaw.read(StandaloneHBase.shared(), u)).as("hbase:quota, raw, after a restart")
          .isEqualTo(before);

      // enforced: exactly the plan, and about what was predicted
      Resources.edit(k8s, TenantQuota.class, ns, "reader", x -> x.getSpec().setEnforcement(
          TenantQuotaSpec.Enforcement.Enforce));
      await().atMost(30, TimeUnit.SECONDS).until(() -> Long.valueOf(100).equals(
          QuotaTableRaw.userLimit(StandaloneHBase.shared(), u, "read_num")));
      assertThat(QuotaTableRaw.userLimit(StandaloneHBase.shared(), u, "write_num")).as("the shell's write limit, "
          + "which the plan does not name, is gone").isNull();
      Thread.sleep(2000); // the RegionServer reloads quotas on change (2.6.3+)
      double client = load.rate(2 * PERIOD_S);
      System.out.printf(Locale.ROOT, "dry-run IT: enforced, the client got %.1f ops/s (predicted %.0f, %+.0f%%)%n",
          client, d.getPredictedOpsPerSecond(), (client / d.getPredictedOpsPerSecond() - 1) * 100);
      assertThat(client).isBetween(d.getPredictedOpsPerSecond() * 0.5, d.getPredictedOpsPerSecond() * 1.5);
    }
  }
}
