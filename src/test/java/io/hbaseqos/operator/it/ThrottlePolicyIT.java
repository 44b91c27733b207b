package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.ThrottlePolicySpec;
import io.hbaseqos.operator.api.ThrottleSpec;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.ycsb.TenantLoad;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The cluster-wide throttle policy on a real HBase 2.6.4, with YCSB readers: RegionServer
 * throttles and the exceed-throttle switch written from the HBaseCluster (raw rows of
 * {@code hbase:quota}); with exceed on, a throttled tenant goes past its own limit while the
 * server is idle and is held back when another tenant uses the RegionServer's capacity; a
 * RegionServer throttle changed outside is restored; an idle resync writes nothing; the RPC
 * throttle switch follows the spec.
 */
class ThrottlePolicyIT {
  static final String RESYNC = "3s";
  /** T's own limit, and the RegionServer ceiling for all reads (well below what this machine serves). */
  static final long T_LIMIT = 200;
  static final long RS_READS = 1500;
  static StandaloneHBase hbase;
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static String ns;

  @BeforeAll
  static void start() throws Exception {
    hbase = new StandaloneHBase(Files.createTempDirectory("hbaseqos-hbase-policy"), Map.of());
    hbase.start();
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
    ns = KubeApi.namespaceWithCluster("policy", hbase.connectionSpec(), RESYNC);
  }

  @AfterAll
  static void stop() throws Exception {
    KubeApi.cleanUp(Set.of(ns));
    operator.close();
    hbase.close();
  }

  static HBaseCluster hc() {
    return k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").get();
  }

  static void policy(ThrottlePolicySpec.Switch exceed, ThrottlePolicySpec.Switch rpc) {
    io.hbaseqos.operator.support.Resources.edit(k8s, HBaseCluster.class, ns, "hb", c -> {
      ThrottlePolicySpec p = new ThrottlePolicySpec();
      p.setRegionServer(new ArrayList<>(List.of(t(ThrottleKind.READ_NUMBER, RS_READS + "req/sec"),
          t(ThrottleKind.WRITE_NUMBER, "1000req/sec"))));
      p.setExceedThrottle(exceed);
      p.setRpcThrottle(rpc);
      c.getSpec().setThrottlePolicy(p);
    });
  }

  static String raw(String row) throws Exception {
    return String.valueOf(QuotaTableRaw.read(hbase, row));
  }

  /** Ops/s of each load over {@code seconds}. */
  static double[] measure(double seconds, TenantLoad... loads) throws InterruptedException {
    long[] before = new long[loads.length];
    for (int i = 0; i < loads.length; i++) {
      before[i] = loads[i].ok();
    }
    long start = System.nanoTime();
    Thread.sleep((long) (seconds * 1000));
    double s = (System.nanoTime() - start) / 1e9;
    double[] out = new double[loads.length];
    for (int i = 0; i < loads.length; i++) {
      out[i] = (loads[i].ok() - before[i]) / s;
    }
    return out;
  }

  /**
   * Long enough for every RegionServer to refresh its quota cache (every 5 s here; each write was
   * already seen in hbase:quota before this) and for the load to run under what it holds.
   */
  static void settle() throws InterruptedException {
    Thread.sleep(7_000);
  }

  @Test
  void exceedLetsATenantUseIdleCapacityAndHoldsItBackWhenAnotherTenantUsesIt() throws Exception {
    policy(ThrottlePolicySpec.Switch.Disabled, null);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(raw("r.all")).contains("read_num=" + RS_READS + "/SECONDS").contains("write_num=1000/SECONDS");
      assertThat(hc().getStatus().condition("ThrottlePolicyApplied").map(c -> c.getStatus()).orElse(null))
          .isEqualTo("True");
    });
    assertThat(hc().getStatus().getExceedThrottleEnabled()).isFalse();
    assertThat(hc().getStatus().getRegionServerThrottles()).extracting(a -> a.getType() + "=" + a.getLimit())
        .containsExactlyInAnyOrder("READ_NUMBER=" + RS_READS + "req/sec", "WRITE_NUMBER=1000req/sec");
    k8s.resource(tenant(ns, "t", "hb", user("tenant-t"), t(ThrottleKind.REQUEST_NUMBER, T_LIMIT + "req/sec"))).create();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(raw("u.tenant-t")).contains("req_num=" + T_LIMIT + "/SECONDS"));

    Properties workload = TenantLoad.readWorkload("policy_usertable", 2000);
    TenantLoad.load(hbase.clientConfiguration(), "loader", workload);
    List<String> table = new ArrayList<>();
    try (TenantLoad tLoad = TenantLoad.start(hbase.clientConfiguration(), "tenant-t", workload, 2)) {
      settle();
      double off = measure(10, tLoad)[0];
      table.add(String.format("| exceed off, T alone | %.0f | - |", off));

      policy(ThrottlePolicySpec.Switch.Enabled, null);
      await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(raw("exceedThrottleQuota")).contains("true"));
      settle();
      double alone = measure(10, tLoad)[0];
      table.add(String.format("| exceed on, T alone | %.0f | - |", alone));

      double[] shared;
      try (TenantLoad uLoad = TenantLoad.start(hbase.clientConfiguration(), "tenant-u", workload, 6)) {
        settle();
        shared = measure(10, tLoad, uLoad);
      }
      table.add(String.format("| exceed on, U (6 threads, no quota) reading too | %.0f | %.0f |", shared[0], shared[1]));
      System.out.printf("policy IT: T's own limit %d req/sec, RegionServer ceiling %d reads/sec, T 2 YCSB threads%n"
          + "| phase | T ops/s | U ops/s |%n|---|---|---|%n%s%n", T_LIMIT, RS_READS, String.join("\n", table));
      assertThat(off).as("exceed off: T held to its own limit").isLessThan(T_LIMIT * 1.5);
      assertThat(alone).as("exceed on, server idle: T goes past its own limit").isGreaterThan(T_LIMIT * 2.5);
      assertThat(shared[0]).as("exceed on, U busy: T held back").isLessThan(alone * 0.8);
      assertThat(shared[0] + shared[1]).as("everything under the RegionServer ceiling").isLessThan(RS_READS * 1.3);
    }
  }

  /**
   * A dry run of a RegionServer ceiling under one reader paced at 800 ops/s: the policy rows stay as
   * they were (raw), the prediction holds all users' requests against the ceiling, and, enforced,
   * HBase holds exactly the plan and the reader gets about what was predicted.
   */
  @Test
  void aDryRunOfTheRegionServerCeilingWritesNothingAndPredictsWhatEnforcingItDoes() throws Exception {
    TenantLoad.load(hbase.clientConfiguration(), "loader", TenantLoad.readWorkload("policy_dry", 500));
    String before = raw("r.all") + raw("exceedThrottleQuota");
    io.hbaseqos.operator.support.Resources.edit(k8s, HBaseCluster.class, ns, "hb", c -> {
      ThrottlePolicySpec p = new ThrottlePolicySpec();
      p.setRegionServer(new ArrayList<>(List.of(t(ThrottleKind.READ_NUMBER, "400req/sec"))));
      p.setExceedThrottle(ThrottlePolicySpec.Switch.Disabled);
      p.setRpcThrottle(ThrottlePolicySpec.Switch.Enabled);
      p.setEnforcement(io.hbaseqos.operator.api.TenantQuotaSpec.Enforcement.DryRun);
      c.getSpec().setThrottlePolicy(p);
    });
    String u = "pdry-" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    try (TenantLoad load = TenantLoad.start(hbase.clientConfiguration(), u, TenantLoad.readWorkload("policy_dry", 500),
        4, 800)) {
      java.util.concurrent.atomic.AtomicReference<io.hbaseqos.operator.api.DryRunStatus> seen =
          new java.util.concurrent.atomic.AtomicReference<>();
      await().atMost(60, TimeUnit.SECONDS).ignoreExceptions().untilAsserted(() -> {
        HBaseCluster c = hc();
        assertThat(c.getStatus().condition("ThrottlePolicyApplied").map(x -> x.getReason()).orElse(null))
            .isEqualTo("DryRun");
        io.hbaseqos.operator.api.DryRunStatus d = c.getStatus().getThrottlePolicyDryRun();
        assertThat(d.getMeasuredOpsPerSecond()).isGreaterThan(600.0);
        assertThat(d.getPredictedOpsPerSecond()).isBetween(320.0, 480.0);
        seen.set(d);
      });
      io.hbaseqos.operator.api.DryRunStatus d = seen.get();
      System.out.printf(Locale.ROOT, "policy IT, dry run: %s; %s%n", hc().getStatus().condition("ThrottlePolicyApplied")
          .map(x -> x.getMessage()).orElse(""), d.getMessage());
      assertThat(d.getPlan()).isEqualTo("READ_NUMBER=400req/sec, exceedThrottle off, rpcThrottle on");
      assertThat(d.getMessage()).startsWith("all users together: under READ_NUMBER=400req/sec");
      assertThat(raw("r.all") + raw("exceedThrottleQuota")).as("the policy's rows, raw").isEqualTo(before);

      // across an operator restart: the new operator reads the policy on three resyncs and writes none of it
      operator = operator.restarted();
      String key = ClusterConnections.key(ns, "hb");
      await().atMost(60, TimeUnit.SECONDS).until(() -> operator.hbaseCalls(key, "regionServerPolicy") >= 3);
      assertThat(operator.hbaseCalls(key, "setRegionServerPolicy")).as("no policy write after the restart").isZero();
      assertThat(raw("r.all") + raw("exceedThrottleQuota")).as("the policy's rows, raw, after the restart")
          .isEqualTo(before);
      assertThat(hc().getStatus().condition("ThrottlePolicyApplied").map(x -> x.getReason()).orElse(null))
          .isEqualTo("DryRun");
      assertThat(hc().getStatus().getThrottlePolicyDryRun().getPlan()).isEqualTo(d.getPlan());

      io.hbaseqos.operator.support.Resources.edit(k8s, HBaseCluster.class, ns, "hb", c -> {
        c.getSpec().getThrottlePolicy().setEnforcement(io.hbaseqos.operator.api.TenantQuotaSpec.Enforcement.Enforce);
      });
      await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
        assertThat(raw("r.all")).contains("read_num=400/SECONDS");
        assertThat(hc().getStatus().getThrottlePolicyDryRun()).isNull();
      });
      settle();
      double client = measure(10, load)[0];
      System.out.printf(Locale.ROOT, "policy IT, enforced: the reader got %.0f ops/s (predicted %.0f)%n", client,
          d.getPredictedOpsPerSecond());
      assertThat(client).isBetween(d.getPredictedOpsPerSecond() * 0.6, d.getPredictedOpsPerSecond() * 1.4);
    }
  }

  @Test
  void aRegionServerThrottleChangedOutsideIsRestoredAndIdleResyncsWriteNothing() throws Exception {
    policy(ThrottlePolicySpec.Switch.Enabled, ThrottlePolicySpec.Switch.Enabled);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(raw("exceedThrottleQuota")).contains("true");
      assertThat(hc().getStatus().condition("ThrottlePolicyApplied").map(c -> c.getReason()).orElse(null))
          .isEqualTo("Applied");
    });
    String key = ClusterConnections.key(ns, "hb");
    Thread.sleep(4_000);
    long writes = operator.hbaseCalls(key, "setRegionServerPolicy");
    long reads = operator.hbaseCalls(key, "regionServerPolicy");
    String version = hc().getMetadata().getResourceVersion();
    Thread.sleep(10_000);
    System.out.printf("policy IT: idle for 10 s (resync %s): %d policy reads, %d policy writes%n", RESYNC,
        operator.hbaseCalls(key, "regionServerPolicy") - reads, operator.hbaseCalls(key, "setRegionServerPolicy") - writes);
    assertThat(operator.hbaseCalls(key, "setRegionServerPolicy")).isEqualTo(writes);
    assertThat(operator.hbaseCalls(key, "regionServerPolicy") - reads).as("one read per resync").isBetween(2L, 5L);
    assertThat(hc().getMetadata().getResourceVersion()).as("no status write").isEqualTo(version);

    // an operator restart: the policy is read, nothing is rewritten, nothing is lost
    String rows = raw("r.all") + raw("exceedThrottleQuota");
    operator = operator.restarted();
    await().atMost(30, TimeUnit.SECONDS).until(() -> operator.hbaseCalls(key, "regionServerPolicy") >= 2);
    System.out.printf("policy IT: after a restart: %d policy reads, %d policy writes%n",
        operator.hbaseCalls(key, "regionServerPolicy"), operator.hbaseCalls(key, "setRegionServerPolicy"));
    assertThat(operator.hbaseCalls(key, "setRegionServerPolicy")).as("policy writes after a restart").isZero();
    assertThat(raw("r.all") + raw("exceedThrottleQuota")).isEqualTo(rows);
    assertThat(hc().getMetadata().getResourceVersion()).as("no status write after a restart").isEqualTo(version);

    try (Admin admin = hbase.admin()) { // someone raises the ceiling with the shell
      admin.setQuota(QuotaSettingsFactory.throttleRegionServer("all", ThrottleType.READ_NUMBER, 99_999,
          TimeUnit.SECONDS));
      admin.setQuota(QuotaSettingsFactory.throttleRegionServer("all", ThrottleType.REQUEST_SIZE, 5, TimeUnit.SECONDS));
    }
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(raw("r.all"))
        .contains("read_num=" + RS_READS + "/SECONDS").doesNotContain("req_size"));
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(k8s.v1().events().inNamespace(ns).list()
        .getItems()).anyMatch(e -> "DriftCorrected".equals(e.getReason())
            && "hb".equals(e.getInvolvedObject().getName())));
    assertThat(raw("exceedThrottleQuota")).contains("true");

    // the RPC throttle switch, declared
    policy(ThrottlePolicySpec.Switch.Enabled, ThrottlePolicySpec.Switch.Disabled);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      try (Admin admin = hbase.admin()) {
        assertThat(admin.isRpcThrottleEnabled()).isFalse();
      }
      assertThat(hc().getStatus().getRpcThrottleEnabled()).isFalse();
    });
    policy(ThrottlePolicySpec.Switch.Disabled, ThrottlePolicySpec.Switch.Enabled);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      try (Admin admin = hbase.admin()) {
        assertThat(admin.isRpcThrottleEnabled()).isTrue();
      }
      assertThat(raw("exceedThrottleQuota")).contains("false");
    });
  }
}
