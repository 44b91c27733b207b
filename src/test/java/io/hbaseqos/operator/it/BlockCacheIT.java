package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.readsCalibration;
import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.table;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.BlockCacheStatus;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.RegionServersSpec;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TopologySpec;
import io.hbaseqos.operator.api.UsageStatus;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.LatencyGauge;
import io.hbaseqos.operator.support.Nodes;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.TenantStatus;
import io.hbaseqos.operator.support.ycsb.TenantLoad;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The block cache as evidence, on a real HBase 2.6.4 whose block cache (2% of a 512 MB heap, about
 * 10 MB) is several times smaller than the table its tenants read (about 58 MB of store files,
 * read at uniform keys): the loops that cannot reach a read target quote the cache's misses
 * (calibration's {@code DemandLimited}, protection's {@code NoSheddableBelow}), the table tenant says
 * its data does not fit, and a topology whose planned block cache is too small for the tenants' data
 * is a condition and a warning until a larger fraction of the heap makes it fit. The HBase is this
 * class's own: a small cache would slow every other class's reads.
 */
class BlockCacheIT {
  static final int PERIOD_S = 10;
  static final String TABLE = "cache_cold";
  static final int ROWS = 40_000;
  static StandaloneHBase hbase;
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static LatencyGauge p99;
  static Properties workload;
  static final List<String> NAMESPACES = new ArrayList<>();
  static final List<String> POOLS = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    hbase = new StandaloneHBase(Files.createTempDirectory("hbaseqos-cache"), Map.of("hfile.block.cache.size", "0.02"))
        .memory(List.of("-Xmx512m", "-Xms512m", "-XX:+UseSerialGC"));
    hbase.start();
    // rows of about 1.1 KB (10 fields of 100 bytes), flushed and compacted into store files
    workload = TenantLoad.readWorkload(TABLE, ROWS);
    workload.setProperty("fieldcount", "10");
    TenantLoad.loadInParallel(hbase.clientConfiguration(), workload, 2);
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
    p99 = LatencyGauge.start();
  }

  /** Both tests name the table's tenant: one claim on the HBase at a time, so each test's namespace goes with it. */
  @AfterEach
  void cleanUp() {
    KubeApi.cleanUp(NAMESPACES);
    NAMESPACES.clear();
  }

  @AfterAll
  static void stop() throws Exception {
    POOLS.forEach(p -> Nodes.deletePool(k8s, p));
    operator.close();
    p99.close();
    hbase.close();
  }

  static long cacheCapacity() throws Exception {
    var bean = hbase.serverBean();
    return bean.path("blockCacheSize").asLong() + bean.path("blockCacheFreeSize").asLong();
  }

  /**
   * A reader with a read target five times what it can do, under a limit it never reaches, and a
   * protected tenant whose p99 misses its objective with no sheddable tenant to slow down: neither
   * can be helped by a limit, and with data blocks hitting the cache a fraction of the time both
   * conditions say so, with the evidence.
   */
  @Test
  void loopsThatCannotReachAReadTargetQuoteTheCacheMissesAndTheTableSaysItDoesNotFit() throws Exception {
    String ns = KubeApi.namespaceWithCluster("cache", hbase.connectionSpec(), PERIOD_S + "s");
    NAMESPACES.add(ns);
    String m = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    String reader = "cr-" + m;
    try (TenantLoad load = TenantLoad.start(hbase.clientConfiguration(), reader, workload, 2)) {
      load.rate(5); // warm up: the cache holds what it can
      double free = load.rate(8);
      long capacity = cacheCapacity();
      System.out.printf(Locale.ROOT, "block cache IT: %d MiB of block cache; the reader does %.0f ops/s unthrottled%n",
          capacity >> 20, free);
      TenantQuota cal = tenant(ns, "reader", "hb", user(reader), t(ThrottleKind.READ_NUMBER,
          Math.round(3 * free) + "req/sec"));
      cal.getSpec().setCalibration(readsCalibration(Math.round(5 * free), PERIOD_S, 5));
      k8s.resource(cal).create();
      p99.set(40);
      TenantQuota prot = tenant(ns, "protected", "hb", user("cp-" + m));
      prot.getSpec().setQos(p99.protectedReads(100, 10, PERIOD_S + "s"));
      k8s.resource(prot).create();
      k8s.resource(tenant(ns, "table", "hb", table(TABLE), t(ThrottleKind.REQUEST_NUMBER, "1000000req/sec"))).create();

      await().atMost(180, TimeUnit.SECONDS).pollInterval(500, TimeUnit.MILLISECONDS).ignoreExceptions().untilAsserted(() -> {
        Condition c = TenantStatus.condition(k8s, ns, "reader", "Calibrated");
        assertThat(c.getReason()).isEqualTo("DemandLimited");
        assertThat(c.getMessage()).contains("data block reads hit the cache less than");
        Condition l = TenantStatus.condition(k8s, ns, "protected", "LatencyObjectivesMet");
        assertThat(l.getReason()).isEqualTo("NoSheddableBelow");
        assertThat(l.getMessage()).contains("data block reads hit the cache less than");
        UsageStatus u = TenantStatus.usage(k8s, ns, "table");
        assertThat(u.getCacheFit()).startsWith("does not fit");
      });
      Condition c = TenantStatus.condition(k8s, ns, "reader", "Calibrated");
      Condition l = TenantStatus.condition(k8s, ns, "protected", "LatencyObjectivesMet");
      UsageStatus u = TenantStatus.usage(k8s, ns, "table");
      BlockCacheStatus cache = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").get().getStatus()
          .getBlockCache();
      System.out.printf(Locale.ROOT, "block cache IT: cluster %s; Calibrated %s: %s%nLatencyObjectivesMet %s: %s%n"
          + "table: %s%n", cache.getSummary(), c.getReason(), c.getMessage(), l.getReason(), l.getMessage(),
          u.getCacheFit());
      assertThat(cache.getHitPercent()).as("data blocks hit the cache less than half of the time").isLessThan(50);
      assertThat(u.getDataBytes()).as("the table's store files are several times the cache")
          .isGreaterThan(3 * capacity);
      assertThat(u.getCacheFit()).contains("x the cluster's block cache");
      assertThat(TenantStatus.get(k8s, ns, "reader").getStatus().getCalibration().getLimit())
          .as("not raised toward a target the cache rules out").isEqualTo(Math.round(3 * free));
    }
  }

  /**
   * The operator plans the RegionServers (the pods are not run here): with 5% of a 1g heap (the
   * smallest heap the planner takes), the planned block cache (51 MiB) is smaller than the table
   * tenant's store files (about 58 MiB), which is said by {@code BlockCacheFits=False} and one
   * Warning; 40% of the heap holds them, and the condition turns.
   */
  @Test
  void aPlannedBlockCacheTooSmallForTheTenantsDataIsAConditionUntilALargerShareHoldsIt() throws Exception {
    String ns = KubeApi.newNamespace("cache-plan");
    NAMESPACES.add(ns);
    POOLS.add(ns);
    Nodes.createReady(k8s, ns + "-n1", ns, "8Gi");
    HBaseCluster hc = Resources.cluster(ns, "hb", hbase.connectionSpec(), PERIOD_S + "s");
    TopologySpec topology = new TopologySpec();
    topology.setImage("apache/hbase:2.6.4");
    topology.setRootDir("hdfs://namenode:8020/hbase");
    RegionServersSpec rs = new RegionServersSpec();
    rs.setNodeSelector(Map.of("hbaseqos.io/test-pool", ns));
    rs.setReplicasPerNode(1);
    rs.setHeap("1g");
    rs.setBlockCacheFraction(0.05);
    topology.setRegionServers(rs);
    hc.getSpec().setTopology(topology);
    k8s.resource(hc).create();
    k8s.resource(tenant(ns, "table", "hb", table(TABLE), t(ThrottleKind.REQUEST_NUMBER, "1000000req/sec"))).create();

    try {
      await().atMost(90, TimeUnit.SECONDS).pollInterval(500, TimeUnit.MILLISECONDS).ignoreExceptions().untilAsserted(() -> {
        Condition fits = cluster(ns).getStatus().condition("BlockCacheFits").orElseThrow();
        assertThat(fits.getStatus()).isEqualTo("False");
        assertThat(fits.getReason()).isEqualTo("DoesNotFit");
        assertThat(KubeApi.eventReasons(ns, "hb")).contains("BlockCacheTooSmall");
      });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      TenantQuota tq = TenantStatus.get(k8s, ns, "table");
      throw new AssertionError("BlockCacheFits not reached: cluster "
          + io.fabric8.kubernetes.client.utils.Serialization.asYaml(cluster(ns).getStatus()) + "; table "
          + (tq == null ? null : io.fabric8.kubernetes.client.utils.Serialization.asYaml(tq.getStatus())), e);
    }
    HBaseCluster planned = cluster(ns);
    Condition fits = planned.getStatus().condition("BlockCacheFits").orElseThrow();
    UsageStatus u = TenantStatus.usage(k8s, ns, "table");
    System.out.printf(Locale.ROOT, "block cache IT: planned %s; the table's store files %d bytes; BlockCacheFits %s: "
        + "%s%n", planned.getStatus().getTopology().getBlockCache(), u.getDataBytes(), fits.getReason(),
        fits.getMessage());
    assertThat(planned.getStatus().getTopology().getBlockCache()).startsWith("51Mi per RegionServer (5% of the heap)");
    assertThat(fits.getMessage()).startsWith("the store files of its 1 table and namespace tenant(s) (")
        .contains("x the block cache the plan gives (1 x 51M)");

    Resources.editCluster(k8s, ns, "hb", c -> c.getSpec().getTopology().getRegionServers().setBlockCacheFraction(0.4));
    await().atMost(60, TimeUnit.SECONDS).ignoreExceptions().untilAsserted(() -> {
      Condition f = cluster(ns).getStatus().condition("BlockCacheFits").orElseThrow();
      assertThat(f.getStatus()).isEqualTo("True");
      assertThat(f.getMessage()).isEqualTo("the store files of its 1 table and namespace tenant(s) fit the block "
          + "cache the plan gives (1 x 410M)");
    });
    // a repeat of the same Event raises its count: the warning was raised once, not per resync
    assertThat(k8s.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> "BlockCacheTooSmall".equals(e.getReason()))
        .mapToInt(e -> e.getCount() == null ? 1 : e.getCount()).sum()).isEqualTo(1);
  }

  static HBaseCluster cluster(String ns) {
    return k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").get();
  }
}
