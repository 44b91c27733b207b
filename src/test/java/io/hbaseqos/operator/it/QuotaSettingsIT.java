package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.CapacityUnitSizeSpec;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.QuotaSettingsSpec;
import io.hbaseqos.operator.api.RateLimiterSpec;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.quota.RuntimeKey;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.StandaloneHBase;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The quota settings HBase runs with, typed in {@code spec.quotas}, on a real HBase 2.6.4 whose
 * RegionServer runs with a fixed-interval limiter, a default user quota and a quota-user override
 * key: the keys are HBase's own (read from its jars), a declaration that matches is reported so,
 * one that differs names the key, the server and both values, and the settings do on HBase what
 * the spec says (the default user quota throttles a user without a quota of its own, the override
 * key decides who that user is, and a TenantQuota lifts it).
 */
class QuotaSettingsIT {
  static final String RESYNC = "2s";
  static final int DEFAULT_READS = 20;
  static final Map<String, String> SITE = Map.of(
      RuntimeKey.RATE_LIMITER.key(), RuntimeKey.FIXED_LIMITER,
      RuntimeKey.REFILL_INTERVAL_MS.key(), "100",
      RuntimeKey.DEFAULT_USER_READ_NUMBER.key(), String.valueOf(DEFAULT_READS),
      RuntimeKey.USER_OVERRIDE_KEY.key(), "quota.user",
      RuntimeKey.USE_RESULT_SIZE_BYTES.key(), "true",
      RuntimeKey.READ_CAPACITY_UNIT.key(), "2048");
  static StandaloneHBase hbase;
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static String ns;

  @BeforeAll
  static void start() throws Exception {
    hbase = new StandaloneHBase(Files.createTempDirectory("hbaseqos-hbase-settings"), SITE);
    hbase.start();
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
    ns = KubeApi.namespaceWithCluster("settings", hbase.connectionSpec(), RESYNC);
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

  static Condition condition() {
    return hc().getStatus().condition("QuotaSettingsMatch").orElse(null);
  }

  /** A spec edit; retried when the operator's status write got in between (409). */
  static void edit(Consumer<QuotaSettingsSpec> change) {
    io.hbaseqos.operator.support.Resources.editCluster(k8s, ns, "hb", c -> change.accept(c.getSpec().getQuotas()));
  }

  /** What the RegionServer of this test runs with, as spec.quotas. */
  static void declareWhatTheClusterRuns(QuotaSettingsSpec q) {
    q.setRefreshPeriod("5s");
    RateLimiterSpec rl = new RateLimiterSpec();
    rl.setType(RateLimiterSpec.Type.FixedInterval);
    rl.setRefillInterval("100ms");
    q.setRateLimiter(rl);
    q.setDefaultUserQuotas(new ArrayList<>(List.of(t(ThrottleKind.READ_NUMBER, DEFAULT_READS + "req/sec"))));
    q.setUserOverrideKey("quota.user");
    q.setReadAccounting(QuotaSettingsSpec.ReadAccounting.ResultSize);
    CapacityUnitSizeSpec cu = new CapacityUnitSizeSpec();
    cu.setRead(2048L);
    cu.setWrite(1024L); // HBase's default: unset on the server, and that matches
    q.setCapacityUnitSize(cu);
  }

  @Test
  void theKeysAreThoseOfTheHBaseJars() throws Exception {
    URL[] urls = Arrays.stream(StandaloneHBase.classpath().split(File.pathSeparator)).filter(s -> s.endsWith(".jar"))
        .map(s -> {
          try {
            return new File(s).toURI().toURL();
          } catch (java.net.MalformedURLException e) {
            throw new IllegalStateException(e);
          }
        }).toArray(URL[]::new);
    try (URLClassLoader hbaseJars = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
      Map<String, String> constants = new LinkedHashMap<>();
      for (String[] c : List.of(
          new String[] {"RateLimiter", "QUOTA_RATE_LIMITER_CONF_KEY"},
          new String[] {"FixedIntervalRateLimiter", "RATE_LIMITER_REFILL_INTERVAL_MS"},
          new String[] {"QuotaCache", "QUOTA_USER_REQUEST_ATTRIBUTE_OVERRIDE_KEY"},
          new String[] {"OperationQuota", "USE_RESULT_SIZE_BYTES"},
          new String[] {"QuotaUtil", "READ_CAPACITY_UNIT_CONF_KEY"},
          new String[] {"QuotaUtil", "WRITE_CAPACITY_UNIT_CONF_KEY"})) {
        constants.put(c[1], (String) Class.forName("org.apache.hadoop.hbase.quotas." + c[0], false, hbaseJars)
            .getField(c[1]).get(null));
      }
      assertThat(constants).containsExactly(
          Map.entry("QUOTA_RATE_LIMITER_CONF_KEY", RuntimeKey.RATE_LIMITER.key()),
          Map.entry("RATE_LIMITER_REFILL_INTERVAL_MS", RuntimeKey.REFILL_INTERVAL_MS.key()),
          Map.entry("QUOTA_USER_REQUEST_ATTRIBUTE_OVERRIDE_KEY", RuntimeKey.USER_OVERRIDE_KEY.key()),
          Map.entry("USE_RESULT_SIZE_BYTES", RuntimeKey.USE_RESULT_SIZE_BYTES.key()),
          Map.entry("READ_CAPACITY_UNIT_CONF_KEY", RuntimeKey.READ_CAPACITY_UNIT.key()),
          Map.entry("WRITE_CAPACITY_UNIT_CONF_KEY", RuntimeKey.WRITE_CAPACITY_UNIT.key()));
      Class<?> util = Class.forName("org.apache.hadoop.hbase.quotas.QuotaUtil", false, hbaseJars);
      Set<String> defaultUserKeys = new java.util.TreeSet<>();
      for (var f : util.getFields()) {
        if (f.getName().startsWith("QUOTA_DEFAULT_USER_MACHINE_")) {
          defaultUserKeys.add((String) f.get(null));
        }
      }
      assertThat(defaultUserKeys).isEqualTo(Arrays.stream(RuntimeKey.values()).filter(k -> k.defaultUserType() != null)
          .map(RuntimeKey::key).collect(Collectors.toCollection(java.util.TreeSet::new)));
      assertThat(Class.forName(RuntimeKey.FIXED_LIMITER, false, hbaseJars)).isNotNull();
      assertThat(Class.forName(RuntimeKey.AVERAGE_LIMITER, false, hbaseJars)).isNotNull();
    }
  }

  @Test
  void declaredSettingsAreCheckedOnEveryRegionServerAndDoWhatTheySay() throws Exception {
    assertThat(hc().getStatus().condition("QuotaSettingsMatch")).as("nothing declared, nothing checked").isEmpty();
    edit(QuotaSettingsIT::declareWhatTheClusterRuns);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      Condition c = condition();
      assertThat(c).isNotNull();
      assertThat(c.getStatus()).isEqualTo("True");
      // 5 named settings, the 9 other default user quota keys (unset), 2 CU sizes
      assertThat(c.getMessage()).isEqualTo("every RegionServer runs with the 16 declared quota settings");
    });
    assertThat(hc().getStatus().getQuotaSettingMismatches()).isNull();

    // a declaration the RegionServer does not run with: each key named, with the server and both values
    edit(q -> {
      q.getRateLimiter().setRefillInterval("200ms");
      q.getDefaultUserQuotas().add(t(ThrottleKind.WRITE_NUMBER, "10req/sec"));
      q.setReadAccounting(QuotaSettingsSpec.ReadAccounting.BlockBytesScanned);
    });
    String server;
    try (Admin admin = hbase.admin()) {
      server = admin.getRegionServers().iterator().next().getServerName();
    }
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      Condition c = condition();
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("Mismatch");
      assertThat(hc().getStatus().getQuotaSettingMismatches()).containsExactly(
          "hbase.quota.default.user.machine.write.num is unset on " + server
              + ", declared 10 (spec.quotas.defaultUserQuotas WRITE_NUMBER)",
          "hbase.quota.rate.limiter.refill.interval.ms is 100 on " + server
              + ", declared 200 (spec.quotas.rateLimiter.refillInterval)",
          "hbase.quota.use.result.size.bytes is true on " + server + ", declared false (spec.quotas.readAccounting)");
      assertThat(c.getMessage()).endsWith("set the declared values in hbase-site.xml of every RegionServer and restart "
          + "them (or change spec.quotas to what the cluster runs with)");
    });
    assertThat(hc().getStatus().condition("Ready").orElseThrow().getStatus()).as("informational").isEqualTo("True");
    await().atMost(10, TimeUnit.SECONDS).until(() -> KubeApi.eventReasons(ns, "hb").contains("QuotaSettingsMismatch"));
    String key = ClusterConnections.key(hc());
    assertThat(operator.registry.find("hbaseqos.cluster.quota.setting.mismatches").tag("cluster", key).gauge().value())
        .isEqualTo(3.0);

    // back as the cluster runs; then an operator restart changes nothing, not even status
    edit(QuotaSettingsIT::declareWhatTheClusterRuns);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(condition().getStatus()).isEqualTo("True"));
    assertThat(operator.registry.find("hbaseqos.cluster.quota.setting.mismatches").tag("cluster", key).gauge().value())
        .isZero();
    long scans = operator.hbaseCalls(key, "readAll");
    await().atMost(30, TimeUnit.SECONDS).until(() -> operator.hbaseCalls(key, "readAll") >= scans + 2);
    String version = hc().getMetadata().getResourceVersion();
    operator = operator.restarted();
    await().atMost(30, TimeUnit.SECONDS).until(() -> operator.hbaseCalls(key, "readAll") >= 3);
    assertThat(hc().getMetadata().getResourceVersion()).as("no status write after a restart").isEqualTo(version);
    assertThat(condition().getStatus()).isEqualTo("True");

    // what the settings do on HBase: a user without a quota of its own gets the default user
    // quota; with the override key, the request attribute names that user
    TableName table = TableName.valueOf("settings_reads");
    try (Admin admin = hbase.admin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(table)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build());
    }
    try (Table t = hbase.connection().getTable(table)) {
      t.put(new Put(Bytes.toBytes("r")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"), Bytes.toBytes("v")));
    }
    Configuration conf = new Configuration(hbase.clientConfiguration());
    conf.setInt("hbase.client.operation.timeout", 60_000);
    try (Connection proxy = ConnectionFactory.createConnection(conf,
        User.create(UserGroupInformation.createRemoteUser("settings-proxy")))) {
      Table asTenant = proxy.getTableBuilder(table, null).setRequestAttribute("quota.user", Bytes.toBytes("settings-a"))
          .build();
      double throttled = getsPerSecond(asTenant, 5);
      k8s.resource(tenant(ns, "a", "hb", user("settings-a"), t(ThrottleKind.READ_NUMBER, "2000req/sec"))).create();
      await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
          assertThat(String.valueOf(QuotaTableRaw.read(hbase, "u.settings-a"))).contains("read_num=2000/SECONDS"));
      Thread.sleep(7_000); // the RegionServer reloads quotas on a setQuota, and every 5 s here
      double ownQuota = getsPerSecond(asTenant, 5);
      System.out.printf("quota settings IT: gets/s of a user with the default user quota of %d reads/s: %.1f; "
          + "with a TenantQuota of 2000req/sec: %.1f%n", DEFAULT_READS, throttled, ownQuota);
      // the fixed-interval limiter starts with a full second of tokens, then refills 2 per 100 ms
      assertThat(throttled).isBetween(DEFAULT_READS * 0.5, DEFAULT_READS * 1.5);
      assertThat(ownQuota).isGreaterThan(DEFAULT_READS * 3.0);
    }
  }

  /** Successful gets per second of one thread over {@code seconds}. */
  static double getsPerSecond(Table table, int seconds) throws Exception {
    Get get = new Get(Bytes.toBytes("r"));
    long n = 0;
    long start = System.nanoTime();
    long end = start + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      assertThat(table.get(get).isEmpty()).isFalse();
      n++;
    }
    return n / ((System.nanoTime() - start) / 1e9);
  }
}
