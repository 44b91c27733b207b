package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.namespace;
import static io.hbaseqos.operator.support.Resources.tenant;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.NamespaceLimitsSpec;
import io.hbaseqos.operator.api.NamespaceStatus;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.Waits;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Namespace maximums (tables and regions) on a real HBase 2.6.4 with quotas on: the operator
 * writes them on the namespace descriptor, keeping the descriptor's other settings; HBase itself
 * then refuses a table or regions beyond them; status shows the counts in use; a change made
 * outside is restored; a namespace that does not exist yet gets its limits once created; an idle
 * resync is one listing and no write; deletion removes them.
 */
class NamespaceLimitsIT {
  static final String RESYNC = "3s";
  static StandaloneHBase hbase;
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static String ns;

  @BeforeAll
  static void start() throws IOException {
    hbase = StandaloneHBase.shared(); // namespace limits live on this test's own namespaces
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
    ns = KubeApi.namespaceWithCluster("nslimits", hbase.connectionSpec(), RESYNC);
  }

  @AfterAll
  static void stop() throws IOException {
    KubeApi.cleanUp(Set.of(ns));
    operator.close();
  }

  static void createNamespace(String name, Map<String, String> config) throws IOException {
    try (Admin admin = hbase.admin()) {
      NamespaceDescriptor.Builder b = NamespaceDescriptor.create(name);
      config.forEach(b::addConfiguration);
      admin.createNamespace(b.build());
    }
  }

  static void createTable(String namespace, String qualifier, int regions) throws IOException {
    try (Admin admin = hbase.admin()) {
      var desc = TableDescriptorBuilder.newBuilder(TableName.valueOf(namespace, qualifier))
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build();
      if (regions <= 1) {
        admin.createTable(desc);
      } else {
        admin.createTable(desc, Bytes.toBytes("a"), Bytes.toBytes("z"), regions);
      }
    }
  }

  /** The namespace descriptor's configuration, read from HBase (what the master enforces). */
  static Map<String, String> descriptor(String namespace) throws IOException {
    try (Admin admin = hbase.admin()) {
      return admin.getNamespaceDescriptor(namespace).getConfiguration();
    }
  }

  static void setDescriptor(String namespace, String key, String value) throws IOException {
    try (Admin admin = hbase.admin()) {
      NamespaceDescriptor d = admin.getNamespaceDescriptor(namespace);
      admin.modifyNamespace(NamespaceDescriptor.create(d).addConfiguration(key, value).build());
    }
  }

  static TenantQuota get(String name) {
    return k8s.resources(TenantQuota.class).inNamespace(ns).withName(name).get();
  }

  static NamespaceStatus status(String name) {
    TenantQuota tq = get(name);
    return tq == null || tq.getStatus() == null || tq.getStatus().getNamespace() == null ? new NamespaceStatus()
        : tq.getStatus().getNamespace();
  }

  static Condition ready(String name) {
    TenantQuota tq = get(name);
    return tq == null || tq.getStatus() == null ? new Condition()
        : tq.getStatus().condition("Ready").orElse(new Condition());
  }

  static List<String> reasons(String name) {
    return KubeApi.eventReasons(ns, name);
  }

  static TenantQuota limits(String name, String namespace, Long maxTables, Long maxRegions) {
    TenantQuota tq = tenant(ns, name, "hb", namespace(namespace));
    tq.getSpec().setNamespaceLimits(new NamespaceLimitsSpec(maxTables, maxRegions));
    return tq;
  }

  @Test
  void hbaseRefusesTablesAndRegionsBeyondTheDeclaredMaximumsAndDriftIsRestored() throws IOException {
    createNamespace("nsa", Map.of("team", "payments")); // a setting of someone else's, to be kept
    createTable("nsa", "first", 1);
    k8s.resource(limits("a", "nsa", 2L, 6L)).create();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(descriptor("nsa"))
        .containsEntry("hbase.namespace.quota.maxtables", "2").containsEntry("hbase.namespace.quota.maxregions", "6")
        .containsEntry("team", "payments"));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(status("a").getUsage()).isEqualTo("1 of 2 tables, 1 of 6 regions"));
    assertThat(ready("a").getStatus()).isEqualTo("True");

    // HBase refuses a table whose regions exceed the maximum, and a table beyond the maximum
    assertThatThrownBy(() -> createTable("nsa", "wide", 8)).hasStackTraceContaining("region");
    createTable("nsa", "second", 4);
    assertThatThrownBy(() -> createTable("nsa", "third", 1)).satisfies(e ->
        System.out.println("namespace IT: HBase refused a third table: " + rootMessage(e)))
        .hasStackTraceContaining("QuotaExceededException");
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(status("a").getUsage()).isEqualTo("2 of 2 tables, 5 of 6 regions"));
    System.out.println("namespace IT: status " + status("a").getUsage());

    // a maximum changed outside the operator is put back, and said so
    setDescriptor("nsa", "hbase.namespace.quota.maxtables", "50");
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(descriptor("nsa")).containsEntry("hbase.namespace.quota.maxtables", "2"));
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(reasons("a")).contains("DriftCorrected"));
    // the event is recorded before the status write that counts the correction lands
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(get("a").getStatus().getDriftCorrections()).isEqualTo(1));

    // idle: one namespace listing per resync, nothing written to HBase or to status
    String key = ClusterConnections.key(ns, "hb");
    await().atMost(10, TimeUnit.SECONDS).until(() -> get("a").getStatus().getDriftCorrections() == 1);
    // the tables' creation and loads are over
    Waits.usageSettled(() -> get("a"), () -> operator.hbaseCalls(key, "readAll"));
    Waits.seconds(4);
    String version = get("a").getMetadata().getResourceVersion();
    long scans = operator.hbaseCalls(key, "readAll");
    long listings = operator.hbaseCalls(key, "namespaces");
    long reads = operator.hbaseCalls(key, "namespaceLimits");
    long writes = operator.hbaseCalls(key, "setNamespaceLimits");
    Waits.seconds(10);
    long scanned = operator.hbaseCalls(key, "readAll") - scans;
    long listed = operator.hbaseCalls(key, "namespaces") - listings;
    System.out.printf("namespace IT: idle for 10 s (resync %s): %d scans, %d namespace listings, %d descriptor "
        + "reads, %d descriptor writes%n", RESYNC, scanned, listed, operator.hbaseCalls(key, "namespaceLimits") - reads,
        operator.hbaseCalls(key, "setNamespaceLimits") - writes);
    assertThat(listed).as("one listing per resync").isBetween(2L, 5L).isEqualTo(scanned);
    assertThat(operator.hbaseCalls(key, "namespaceLimits")).as("no descriptor read").isEqualTo(reads);
    assertThat(operator.hbaseCalls(key, "setNamespaceLimits")).isEqualTo(writes);
    assertThat(get("a").getMetadata().getResourceVersion()).as("no status write").isEqualTo(version);

    // an operator restart: nothing rewritten in HBase or in status, nothing lost
    Map<String, String> before = descriptor("nsa");
    operator = operator.restarted();
    await().atMost(30, TimeUnit.SECONDS).until(() -> operator.hbaseCalls(key, "namespaces") >= 2);
    Waits.seconds(4);
    System.out.printf("namespace IT: after a restart: %d namespace listings, %d descriptor writes%n",
        operator.hbaseCalls(key, "namespaces"), operator.hbaseCalls(key, "setNamespaceLimits"));
    assertThat(operator.hbaseCalls(key, "setNamespaceLimits")).as("descriptor writes after a restart").isZero();
    assertThat(descriptor("nsa")).isEqualTo(before);
    assertThat(get("a").getMetadata().getResourceVersion()).as("no status write after a restart").isEqualTo(version);

    // raising the maximum through the spec lets HBase take the table
    io.hbaseqos.operator.support.Resources.edit(k8s, TenantQuota.class, ns, "a", tq -> {
      tq.getSpec().getNamespaceLimits().setMaxTables(3L);
    });
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(descriptor("nsa")).containsEntry("hbase.namespace.quota.maxtables", "3"));
    createTable("nsa", "third", 1);
    // lowering it below what the namespace holds: HBase takes it and refuses only new tables
    io.hbaseqos.operator.support.Resources.edit(k8s, TenantQuota.class, ns, "a", tq -> {
      tq.getSpec().getNamespaceLimits().setMaxTables(1L);
    });
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(descriptor("nsa")).containsEntry("hbase.namespace.quota.maxtables", "1");
      assertThat(status("a").getUsage()).startsWith("3 of 1 table,");
      assertThat(ready("a").getStatus()).isEqualTo("True");
    });
    assertThatThrownBy(() -> createTable("nsa", "over", 1)).hasStackTraceContaining("QuotaExceededException");

    // deleting the tenant takes both maximums off, and leaves the other setting
    k8s.resources(TenantQuota.class).inNamespace(ns).withName("a").delete();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(descriptor("nsa"))
        .doesNotContainKeys("hbase.namespace.quota.maxtables", "hbase.namespace.quota.maxregions")
        .containsEntry("team", "payments"));
    createTable("nsa", "fourth", 1);
  }

  @Test
  void aNamespaceCreatedLaterGetsItsLimitsAndATakenBackDeclarationRemovesThem() throws IOException {
    k8s.resource(limits("later", "nslater", 1L, null)).create();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(ready("later").getReason()).isEqualTo("NamespaceNotFound");
      assertThat(ready("later").getMessage()).contains("namespace nslater does not exist");
      assertThat(status("later").getExists()).isFalse();
    });
    createNamespace("nslater", Map.of());
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(descriptor("nslater")).containsEntry("hbase.namespace.quota.maxtables", "1")
            .doesNotContainKey("hbase.namespace.quota.maxregions"));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(ready("later").getStatus()).isEqualTo("True");
      assertThat(status("later").getUsage()).isEqualTo("0 of 1 table, 0 regions");
    });
    createTable("nslater", "only", 1);
    assertThatThrownBy(() -> createTable("nslater", "more", 1)).hasStackTraceContaining("QuotaExceededException");

    // the declaration taken out of the spec (a throttle stays): HBase no longer holds the maximum
    io.hbaseqos.operator.support.Resources.edit(k8s, TenantQuota.class, ns, "later", tq -> {
      tq.getSpec().setNamespaceLimits(null);
      tq.getSpec().setThrottles(List.of(io.hbaseqos.operator.support.Resources.t(
          io.hbaseqos.operator.quota.ThrottleKind.REQUEST_NUMBER, "100req/sec")));
    });
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(descriptor("nslater")).doesNotContainKey("hbase.namespace.quota.maxtables"));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(get("later").getStatus().getNamespace()).isNull());
    assertThat(reasons("later")).contains("NamespaceLimitsRemoved");
    createTable("nslater", "more", 1);
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    String m = String.valueOf(t.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

}
