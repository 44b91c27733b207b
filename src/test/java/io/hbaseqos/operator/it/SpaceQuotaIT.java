package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.namespace;
import static io.hbaseqos.operator.support.Resources.table;
import static io.hbaseqos.operator.support.Resources.tenant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.SpaceSpec;
import io.hbaseqos.operator.api.SpaceStatus;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.quota.SpaceLimit;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.Waits;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Space quotas on a real HBase 2.6.4 whose quota chores run every second (HBase's defaults are a
 * minute and more), so that region sizes, usage snapshots and policy changes take seconds: a
 * table written past its limit under NO_INSERTS refuses puts and its TenantQuota says so; a
 * raised limit lets writes through again; a DISABLE policy takes a table offline and status and
 * events say it; a namespace's usage is reported; a limit removed outside the operator is
 * restored; an idle resync is one scan and one usage read, with no write.
 */
class SpaceQuotaIT {
  static final String RESYNC = "3s";
  static StandaloneHBase hbase;
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static String ns;
  static Connection writer;

  @BeforeAll
  static void start() throws IOException {
    hbase = new StandaloneHBase(Files.createTempDirectory("hbaseqos-hbase-space"), Map.ofEntries(
        Map.entry("hbase.master.quotas.observer.chore.delay", "1000"),
        Map.entry("hbase.master.quotas.observer.chore.period", "1000"),
        Map.entry("hbase.master.quotas.snapshot.chore.delay", "1000"),
        Map.entry("hbase.master.quotas.snapshot.chore.period", "1000"),
        Map.entry("hbase.regionserver.quotas.fs.utilization.chore.delay", "1000"),
        Map.entry("hbase.regionserver.quotas.fs.utilization.chore.period", "1000"),
        Map.entry("hbase.regionserver.quotas.region.size.reporting.chore.delay", "1000"),
        Map.entry("hbase.regionserver.quotas.region.size.reporting.chore.period", "1000"),
        Map.entry("hbase.regionserver.quotas.policy.refresher.chore.delay", "1000"),
        Map.entry("hbase.regionserver.quotas.policy.refresher.chore.period", "1000")));
    hbase.start();
    Configuration c = hbase.clientConfiguration();
    c.setInt("hbase.client.retries.number", 1); // a refused put fails at once
    writer = ConnectionFactory.createConnection(c);
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
    ns = KubeApi.namespaceWithCluster("space", hbase.connectionSpec(), RESYNC);
  }

  @AfterAll
  static void stop() throws IOException {
    KubeApi.cleanUp(Set.of(ns));
    operator.close();
    writer.close();
    hbase.close();
  }

  static TableName createTable(String namespace, String qualifier) throws IOException {
    try (Admin admin = hbase.admin()) {
      if (!List.of(admin.listNamespaces()).contains(namespace)) {
        admin.createNamespace(NamespaceDescriptor.create(namespace).build());
      }
      TableName t = TableName.valueOf(namespace, qualifier);
      admin.createTable(TableDescriptorBuilder.newBuilder(t)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build());
      return t;
    }
  }

  /** Writes about {@code kib} KiB of incompressible data and flushes it into store files. */
  static void fill(TableName t, int kib) throws IOException {
    java.util.Random random = new java.util.Random(kib);
    try (Table table = writer.getTable(t)) {
      for (int i = 0; i < kib / 16; i++) {
        byte[] value = new byte[16 * 1024];
        random.nextBytes(value);
        table.put(new Put(Bytes.toBytes("row-" + i)).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"), value));
      }
    }
    try (Admin admin = hbase.admin()) {
      admin.flush(t);
    }
  }

  static void put(TableName t) throws IOException {
    try (Table table = writer.getTable(t)) {
      table.put(new Put(Bytes.toBytes("probe-" + System.nanoTime())).addColumn(Bytes.toBytes("f"),
          Bytes.toBytes("q"), Bytes.toBytes("x")));
    }
  }

  static TenantQuota get(String name) {
    return k8s.resources(TenantQuota.class).inNamespace(ns).withName(name).get();
  }

  static SpaceStatus space(String name) {
    TenantQuota tq = get(name);
    return tq == null || tq.getStatus() == null || tq.getStatus().getSpace() == null ? new SpaceStatus()
        : tq.getStatus().getSpace();
  }

  static Condition condition(String name, String type) {
    return get(name).getStatus().condition(type).orElse(null);
  }

  static List<String> reasons(String name) {
    return KubeApi.eventReasons(ns, name);
  }

  static TenantQuota spaceTenant(String name, io.hbaseqos.operator.api.QuotaSubject subject, String limit,
      SpaceLimit.Policy policy) {
    TenantQuota tq = tenant(ns, name, "hb", subject);
    tq.getSpec().setSpace(new SpaceSpec(limit, policy));
    return tq;
  }

  static void setLimit(String name, String limit) {
    io.hbaseqos.operator.support.Resources.edit(k8s, TenantQuota.class, ns, name, tq -> {
      tq.getSpec().getSpace().setLimit(limit);
    });
  }

  @Test
  void noInsertsRefusesPutsPastTheLimitAndARaisedLimitLetsThemThrough() throws IOException {
    TableName t = createTable("spaceit", "inserts");
    String row = "t." + t.getNameWithNamespaceInclAsString();
    k8s.resource(spaceTenant("inserts", table(t.getNameWithNamespaceInclAsString()), "1M",
        SpaceLimit.Policy.NO_INSERTS)).create();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(QuotaTableRaw.read(hbase, row)).containsEntry(row + " q:s", "space=1048576"));
    put(t); // under the limit: accepted
    fill(t, 3 * 1024);
    await().atMost(120, TimeUnit.SECONDS).pollInterval(1, TimeUnit.SECONDS).untilAsserted(() -> {
      SpaceStatus s = space("inserts");
      assertThat(s.getInViolation()).as("status: %s", s.getUsage()).isTrue();
    });
    SpaceStatus over = space("inserts");
    System.out.printf("space IT: over the limit: %s (used %d bytes of %d)%n", over.getUsage(), over.getUsedBytes(),
        over.getLimitBytes());
    assertThat(over.getUsedPercent()).isGreaterThanOrEqualTo(100);
    assertThat(over.getUsage()).contains("NO_INSERTS in force");
    assertThat(over.getPolicy()).isEqualTo("NO_INSERTS");
    assertThat(over.getTableDisabled()).isNull();
    assertThat(condition("inserts", "SpaceQuotaViolated")).satisfies(c -> {
      assertThat(c.getStatus()).isEqualTo("True");
      assertThat(c.getReason()).isEqualTo("NO_INSERTS");
      assertThat(c.getMessage()).contains("puts, appends and increments are refused");
    });
    assertThat(condition("inserts", "Ready").getStatus()).isEqualTo("True");
    // kubectl shows the usage in the Space column, and the gauges carry used bytes and limit
    io.hbaseqos.operator.support.Kubectl.Result get = io.hbaseqos.operator.support.Kubectl.run("get", "tq", "inserts",
        "-n", ns);
    assertThat(get.exit()).as(get.output()).isZero();
    assertThat(get.output()).contains("SPACE").contains("% of 1M, NO_INSERTS in force");
    assertThat(operator.registry.find("hbaseqos.tenant.space.used.bytes").tag("tenantquota", "inserts").gauge().value())
        .isGreaterThanOrEqualTo(1 << 20);
    assertThat(operator.registry.find("hbaseqos.tenant.space.limit.bytes").tag("tenantquota", "inserts").gauge().value())
        .isEqualTo(1 << 20);
    assertThat(operator.registry.find("hbaseqos.tenant.space.in.violation").tag("tenantquota", "inserts").gauge()
        .value()).isEqualTo(1.0);
    // HBase itself refuses the put (its RegionServers pick the policy up within a chore period)
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThatThrownBy(() -> put(t))
        .hasStackTraceContaining("NO_INSERTS"));
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(reasons("inserts")).containsOnlyOnce("SpaceQuotaViolated"));

    setLimit("inserts", "100M");
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(QuotaTableRaw.read(hbase, row)).containsEntry(row + " q:s", "space=104857600"));
    await().atMost(120, TimeUnit.SECONDS).pollInterval(1, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(space("inserts").getInViolation()).isFalse();
      put(t); // and HBase takes writes again
    });
    SpaceStatus under = space("inserts");
    System.out.printf("space IT: limit raised: %s%n", under.getUsage());
    assertThat(under.getUsedPercent()).isBetween(1, 10);
    assertThat(under.getLimitBytes()).isEqualTo(100L << 20);
    assertThat(condition("inserts", "SpaceQuotaViolated").getStatus()).isEqualTo("False");
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(reasons("inserts")).containsOnlyOnce("SpaceQuotaRestored"));

    // idle: one scan and one usage read per resync, nothing written to HBase or to status
    String key = ClusterConnections.key(ns, "hb");
    // the puts above are over
    Waits.usageSettled(() -> get("inserts"), () -> operator.hbaseCalls(key, "readAll"));
    TenantQuota idle = get("inserts");
    String version = idle.getMetadata().getResourceVersion();
    long scans = operator.hbaseCalls(key, "readAll");
    long usageReads = operator.hbaseCalls(key, "spaceUsage");
    long writes = operator.hbaseCalls(key, "setQuota");
    Waits.seconds(10);
    long scanned = operator.hbaseCalls(key, "readAll") - scans;
    long read = operator.hbaseCalls(key, "spaceUsage") - usageReads;
    System.out.printf("space IT: idle for 10 s (resync %s): %d scans, %d usage reads, %d setQuota%n", RESYNC,
        scanned, read, operator.hbaseCalls(key, "setQuota") - writes);
    assertThat(read).as("one usage read per resync").isBetween(2L, 5L).isEqualTo(scanned);
    assertThat(operator.hbaseCalls(key, "setQuota")).isEqualTo(writes);
    TenantQuota later = get("inserts");
    assertThat(later.getMetadata().getResourceVersion()).as("no status write: %s became %s",
        io.fabric8.kubernetes.client.utils.Serialization.asJson(idle.getStatus()),
        io.fabric8.kubernetes.client.utils.Serialization.asJson(later.getStatus())).isEqualTo(version);

    // an operator restart: nothing rewritten in HBase or in status, nothing lost
    Map<String, String> cells = QuotaTableRaw.read(hbase, row);
    operator = operator.restarted();
    await().atMost(30, TimeUnit.SECONDS).until(() -> operator.hbaseCalls(key, "spaceUsage") >= 2);
    Waits.seconds(4);
    System.out.printf("space IT: after a restart: %d usage reads, %d setQuota%n",
        operator.hbaseCalls(key, "spaceUsage"), operator.hbaseCalls(key, "setQuota"));
    assertThat(operator.hbaseCalls(key, "setQuota")).as("writes after a restart").isZero();
    assertThat(QuotaTableRaw.read(hbase, row)).isEqualTo(cells);
    assertThat(get("inserts").getMetadata().getResourceVersion()).as("no status write after a restart")
        .isEqualTo(version);

    // deleting the tenant removes the limit from HBase
    k8s.resources(TenantQuota.class).inNamespace(ns).withName("inserts").delete();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(QuotaTableRaw.read(hbase, row)).isEmpty());
  }

  @Test
  void disableTakesTheTableOfflineAndStatusAndEventsSaySo() throws IOException {
    TableName t = createTable("spaceit", "disable");
    k8s.resource(spaceTenant("disable", table(t.getNameWithNamespaceInclAsString()), "1M",
        SpaceLimit.Policy.DISABLE)).create();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(condition("disable", "Ready").getStatus()).isEqualTo("True"));
    fill(t, 3 * 1024);
    await().atMost(120, TimeUnit.SECONDS).pollInterval(1, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(space("disable").getTableDisabled()).isTrue());
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      try (Admin admin = hbase.admin()) {
        assertThat(admin.isTableDisabled(t)).as("HBase disabled the table").isTrue();
      }
    });
    System.out.printf("space IT: DISABLE: %s%n", space("disable").getUsage());
    assertThat(condition("disable", "SpaceQuotaViolated").getMessage()).contains("the table is disabled");
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(reasons("disable"))
        .contains("SpaceQuotaViolated", "TableDisabledBySpaceQuota"));
    // removing the tenant removes the quota; HBase enables the table again
    k8s.resources(TenantQuota.class).inNamespace(ns).withName("disable").delete();
    await().atMost(120, TimeUnit.SECONDS).pollInterval(1, TimeUnit.SECONDS).untilAsserted(() -> {
      try (Admin admin = hbase.admin()) {
        assertThat(admin.isTableEnabled(t)).as("HBase enables the table once its quota is gone").isTrue();
      }
    });
  }

  @Test
  void aNamespacesUsageIsReportedAndALimitRemovedOutsideIsRestored() throws IOException {
    TableName t = createTable("spaceitns", "data");
    String row = "n.spaceitns";
    k8s.resource(spaceTenant("ns", namespace("spaceitns"), "10G", SpaceLimit.Policy.NO_WRITES)).create();
    fill(t, 1024);
    await().atMost(120, TimeUnit.SECONDS).pollInterval(1, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(space("ns").getUsedBytes()).isNotNull().isGreaterThan(512L * 1024));
    SpaceStatus s = space("ns");
    System.out.printf("space IT: namespace: %s (%d bytes)%n", s.getUsage(), s.getUsedBytes());
    assertThat(s.getUsage()).isEqualTo("0% of 10G");
    assertThat(s.getInViolation()).isFalse();
    assertThat(condition("ns", "SpaceQuotaViolated").getReason()).isEqualTo("WithinLimit");

    try (Admin admin = hbase.admin()) {
      admin.setQuota(QuotaSettingsFactory.removeNamespaceSpaceLimit("spaceitns"));
    }
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(QuotaTableRaw.read(hbase, row)).containsEntry(row + " q:s", "space=10737418240");
      assertThat(get("ns").getStatus().getDriftCorrections()).isEqualTo(1L);
    });
    assertThat(reasons("ns")).contains("DriftCorrected");
  }

}
