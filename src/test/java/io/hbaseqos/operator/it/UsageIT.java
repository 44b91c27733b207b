package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.table;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.UsageStatus;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.TenantStatus;
import io.hbaseqos.operator.support.ycsb.TenantLoad;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code status.usage} of tenants that are neither calibrated nor protected, on a real HBase and a
 * real API server, under YCSB load: what the operator reports against what the client measured,
 * from the per-user metrics (a user) and the per-table metrics (a table), and the share HBase
 * throttled. The cluster is sampled every {@link #PERIOD_S} seconds (its resync period).
 */
class UsageIT {
  static final int PERIOD_S = 10;
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static Properties workload;
  static final List<String> namespaces = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    StandaloneHBase.shared();
    workload = TenantLoad.readWorkload("usage_usertable", 500);
    TenantLoad.load(StandaloneHBase.shared().clientConfiguration(), "loader", workload);
    // store files, not only a memstore: the table's data size is what the per-table metrics report of them
    StandaloneHBase.shared().admin().flush(org.apache.hadoop.hbase.TableName.valueOf("usage_usertable"));
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
  }

  @AfterEach
  void cleanUp() {
    KubeApi.cleanUp(namespaces);
    namespaces.clear();
  }

  @AfterAll
  static void stop() {
    operator.close();
  }

  static String namespace(String prefix) {
    String ns = KubeApi.namespaceWithCluster(prefix, StandaloneHBase.shared().connectionSpec(), PERIOD_S + "s");
    namespaces.add(ns);
    return ns;
  }

  @Test
  void anUnthrottledUsersUsageIsReportedSoonAfterItsLoadStartsAndAgreesWithTheClient() throws Exception {
    String ns = namespace("usage-user");
    String m = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    String u = "us-" + m;
    // a limit the load uses a third of: no rightsizing hint comes to rewrite status
    k8s.resource(tenant(ns, "reader", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "1000req/sec"))).create();
    await().atMost(60, TimeUnit.SECONDS).until(() -> QuotaTableRaw.userLimit(StandaloneHBase.shared(), u, "req_num")
        != null);
    long started = System.nanoTime();
    try (TenantLoad load = TenantLoad.start(StandaloneHBase.shared().clientConfiguration(), u, workload, 2, 300)) {
      // within two sampling periods of the load starting (plus a reconcile): a usage that sees it
      await().atMost(2L * PERIOD_S + 15, TimeUnit.SECONDS).untilAsserted(() -> {
        UsageStatus s = TenantStatus.usage(k8s, ns, "reader");
        assertThat(s).isNotNull();
        assertThat(s.getReadOpsPerSecond()).isPositive();
      });
      double firstSeen = (System.nanoTime() - started) / 1e9;
      // steady: the operator's reading against the client's own count
      double client = load.rate(2 * PERIOD_S);
      await().atMost(3L * PERIOD_S, TimeUnit.SECONDS).untilAsserted(() ->
          assertThat(TenantStatus.usage(k8s, ns, "reader").getReadOpsPerSecond()).isBetween(client * 0.9, client * 1.1));
      UsageStatus s = TenantStatus.usage(k8s, ns, "reader");
      System.out.printf(Locale.ROOT, "usage IT: a user's reads first reported %.1f s after its load started; the "
          + "client measured %.1f ops/s, status says %s (%s)%n", firstSeen, client, s.getReadOpsPerSecond(),
          s.getSummary());
      assertThat(s.getWriteOpsPerSecond()).isZero();
      assertThat(s.getThrottledPercent()).as("HBase 2.6.4 counts throttled requests: none here").isZero();
      assertThat(s.getBusiestServerPercent()).isEqualTo(100);
      assertThat(s.getServers()).isEqualTo(1);
      assertThat(s.getLimitUsedPercent()).isBetween(20, 40);
      assertThat(s.getSummary()).matches("\\d+/s \\(\\d+% of limit\\), 0% throttled");
      // the gauge follows each sample (NaN for a period whose sample failed, by design): waited for, not read once
      await().atMost(3L * PERIOD_S, TimeUnit.SECONDS).untilAsserted(() -> assertThat(operator.registry
          .find("hbaseqos.tenant.usage.reads.per.second").tag("namespace", ns).tag("tenantquota", "reader").gauge()
          .value()).isBetween(client * 0.8, client * 1.2));

      // steady load: the status is not rewritten every period
      String observed = s.getObservedTime();
      String rv = k8s.resources(TenantQuota.class).inNamespace(ns).withName("reader").get().getMetadata()
          .getResourceVersion();
      Thread.sleep(3L * PERIOD_S * 1000);
      TenantQuota after = k8s.resources(TenantQuota.class).inNamespace(ns).withName("reader").get();
      System.out.printf(Locale.ROOT, "usage IT: over three more periods status.usage was %s%n",
          rv.equals(after.getMetadata().getResourceVersion()) ? "not rewritten" : "rewritten ("
              + after.getStatus().getUsage().getSummary() + ")");
      assertThat(after.getMetadata().getResourceVersion()).as("a steady tenant's status is not rewritten")
          .isEqualTo(rv);
      assertThat(after.getStatus().getUsage().getObservedTime()).isEqualTo(observed);
    }
  }

  @Test
  void aThrottledUserSeesTheShareHBaseRefusedAndATableItsRequests() throws Exception {
    String ns = namespace("usage-throttled");
    String m = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    String u = "ut-" + m;
    k8s.resource(tenant(ns, "capped", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "40req/sec"))).create();
    k8s.resource(tenant(ns, "table", "hb", table("usage_usertable"), t(ThrottleKind.REQUEST_NUMBER,
        "100000req/sec"))).create();
    await().atMost(60, TimeUnit.SECONDS).until(() -> Long.valueOf(40).equals(
        QuotaTableRaw.userLimit(StandaloneHBase.shared(), u, "req_num")));
    try (TenantLoad load = TenantLoad.start(StandaloneHBase.shared().clientConfiguration(), u, workload, 2)) {
      await().atMost(4L * PERIOD_S, TimeUnit.SECONDS).untilAsserted(() -> {
        UsageStatus s = TenantStatus.usage(k8s, ns, "capped");
        assertThat(s).isNotNull();
        assertThat(s.getThrottledPercent()).isGreaterThan(10.0);
        assertThat(s.getReadOpsPerSecond()).isPositive().isLessThan(40 * 1.5);
      });
      UsageStatus s = TenantStatus.usage(k8s, ns, "capped");
      // the table's own requests: everything the user read went to this table
      double client = load.rate(2 * PERIOD_S);
      await().atMost(4L * PERIOD_S, TimeUnit.SECONDS).untilAsserted(() -> {
        UsageStatus tbl = TenantStatus.usage(k8s, ns, "table");
        assertThat(tbl).isNotNull();
        assertThat(tbl.getReadOpsPerSecond()).isBetween(client * 0.8, client * 1.4);
      });
      System.out.printf(Locale.ROOT, "usage IT: a user capped at 40 req/sec: %s; its client counted %.1f ops/s and "
          + "%d refused calls; the table reports %s%n", s.getSummary(), client, load.failed(),
          TenantStatus.usage(k8s, ns, "table").getSummary());
      assertThat(s.getLimitUsedPercent()).isBetween(50, 150);
      // the table's store files against the cluster's block cache, which the HBaseCluster reports as HBase's /jmx does
      UsageStatus tbl = TenantStatus.usage(k8s, ns, "table");
      assertThat(tbl.getDataBytes()).isPositive();
      assertThat(tbl.getCacheFit()).startsWith("fits: its store files");
      io.hbaseqos.operator.api.BlockCacheStatus cache = k8s.resources(io.hbaseqos.operator.api.HBaseCluster.class)
          .inNamespace(ns).withName("hb").get().getStatus().getBlockCache();
      assertThat(cache).isNotNull();
      com.fasterxml.jackson.databind.JsonNode jmx = StandaloneHBase.shared().serverBean();
      long capacity = jmx.path("blockCacheSize").asLong() + jmx.path("blockCacheFreeSize").asLong();
      System.out.printf(Locale.ROOT, "usage IT: the table holds %d bytes of store files (%s); the HBaseCluster's "
          + "block cache: %s, capacity %d bytes; /jmx says %d%n", tbl.getDataBytes(), tbl.getCacheFit(),
          cache.getSummary(), cache.getCapacityBytes(), capacity);
      assertThat(cache.getCapacityBytes().doubleValue()).isCloseTo(capacity, org.assertj.core.data.Percentage
          .withPercentage(1));
      assertThat(cache.getServers()).hasSize(1);
      assertThat(cache.getHitPercent()).as("the table's reads go through the cache").isNotNull().isBetween(0, 100);
      assertThat(operator.registry.find("hbaseqos.tenant.usage.throttled.ratio").tag("namespace", ns)
          .tag("tenantquota", "capped").gauge().value()).isGreaterThan(0.1);
    }
  }

  /** Info-server requests per resync pass of cluster {@code key}, over {@code passes} passes. */
  static double requestsPerPass(String key, int passes) {
    long r0 = operator.hbaseCalls(key, "readAll");
    long q0 = infoServerRequests();
    await().atMost(passes * 20L, TimeUnit.SECONDS).until(() -> operator.hbaseCalls(key, "readAll") >= r0 + passes);
    return (infoServerRequests() - q0) / (double) (operator.hbaseCalls(key, "readAll") - r0);
  }

  /** What this operator counted (its {@code hbaseqos_infoserver_requests_total}, every path). */
  static long infoServerRequests() {
    return Math.round(operator.registry.find("hbaseqos.infoserver.requests").functionCounters().stream()
        .mapToDouble(io.micrometer.core.instrument.FunctionCounter::count).sum());
  }

  @Test
  void theRegionServersAreReadAsOftenForFortyTenantsAsForTwo() {
    String ns = KubeApi.namespaceWithCluster("usage-reads", StandaloneHBase.shared().connectionSpec(), "3s");
    namespaces.add(ns);
    String key = io.hbaseqos.operator.cluster.ClusterConnections.key(ns, "hb");
    String m = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    k8s.resource(tenant(ns, "user-0", "hb", user("ur-" + m + "-0"), t(ThrottleKind.REQUEST_NUMBER, "1000req/sec")))
        .create();
    k8s.resource(tenant(ns, "table-0", "hb", table("usage_usertable"), t(ThrottleKind.REQUEST_NUMBER,
        "100000req/sec"))).create();
    io.hbaseqos.operator.support.TenantStatus.awaitReady(k8s, ns, "user-0");
    io.hbaseqos.operator.support.TenantStatus.awaitReady(k8s, ns, "table-0");
    double two = requestsPerPass(key, 6);
    for (int i = 1; i < 30; i++) {
      k8s.resource(tenant(ns, "user-" + i, "hb", user("ur-" + m + "-" + i), t(ThrottleKind.REQUEST_NUMBER,
          "1000req/sec"))).create();
    }
    for (int i = 1; i < 10; i++) {
      k8s.resource(tenant(ns, "table-" + i, "hb", table("usage_reads_" + m + "_" + i), t(ThrottleKind.REQUEST_NUMBER,
          "1000req/sec"))).create();
    }
    await().atMost(60, TimeUnit.SECONDS).until(() -> k8s.resources(TenantQuota.class).inNamespace(ns).list()
        .getItems().stream().filter(x -> io.hbaseqos.operator.api.Conditions.isTrue(x.getStatus(), "Ready")).count()
        == 40);
    double forty = requestsPerPass(key, 6);
    System.out.printf(Locale.ROOT, "usage IT: info-server requests per resync pass, one RegionServer: %.1f with 2 "
        + "tenants, %.1f with 40%n", two, forty);
    assertThat(two).as("a user and a table tenant are sampled").isGreaterThan(0);
    // one read per kind of metric per server, whatever the number of tenants; a window that starts or ends inside a
    // pass miscounts by up to a pass's requests, so the bound is loose: a read per tenant would be over 40 per pass
    assertThat(forty).isLessThan(2 * two + 1);
  }

  /** The RegionServer's {@code Server} metrics bean from its own {@code /jmx}. */

}
