package io.hbaseqos.operator.middle;

import static io.hbaseqos.operator.support.Resources.cluster;
import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.ThrottlePolicySpec;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.hbase.MemoryQuotaTable;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.Resources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The middle tier: both reconcilers, {@code QuotaSync}, {@code Resync} and the status aggregator
 * on a real kube-apiserver, with HBase replaced by the in-memory quota table (its row semantics are
 * held to real HBase by {@code QuotaTableContract}). Each test has its own namespace and its own
 * table, so the class runs in seconds and its rules are the ones {@code TenantQuotaIT} checks on a
 * real HBase: exact writes, no write when idle, drift, conflicts, a missing cluster, deletions
 * against a dead cluster, the cluster-wide policy, and events raised once per change, not per retry.
 */
class ReconcilersMiddleIT {
  static KubernetesClient k8s;
  static OperatorHarness operator;
  /** One in-memory HBase per connection quorum ({@code memory-<namespace>:2181}). */
  static final Map<String, MemoryQuotaTable> TABLES = new ConcurrentHashMap<>();
  static final Set<String> NAMESPACES = ConcurrentHashMap.newKeySet();
  String ns;
  MemoryQuotaTable hbase;

  @BeforeAll
  static void start() {
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s,
        connection -> TABLES.computeIfAbsent(connection.getZookeeperQuorum(), q -> new MemoryQuotaTable()),
        Duration.ofSeconds(2));
  }

  @AfterAll
  static void stop() {
    KubeApi.cleanUp(NAMESPACES);
    operator.close();
  }

  @BeforeEach
  void namespaceWithCluster() {
    ns = KubeApi.newNamespace("mid");
    NAMESPACES.add(ns);
    hbase = table(ns);
    k8s.resource(cluster(ns, "hb", connection(ns), "2s")).create();
    KubeApi.awaitClusterReady(ns, "hb");
  }

  static ConnectionSpec connection(String name) {
    ConnectionSpec c = new ConnectionSpec();
    c.setZookeeperQuorum("memory-" + name + ":2181");
    return c;
  }

  static MemoryQuotaTable table(String name) {
    return TABLES.computeIfAbsent("memory-" + name + ":2181", q -> new MemoryQuotaTable());
  }

  TenantQuota get(String name) {
    return k8s.resources(TenantQuota.class).inNamespace(ns).withName(name).get();
  }

  HBaseCluster hc(String name) {
    return k8s.resources(HBaseCluster.class).inNamespace(ns).withName(name).get();
  }

  Condition condition(String name, String type) {
    TenantQuota tq = get(name);
    return tq == null || tq.getStatus() == null ? null : tq.getStatus().condition(type).orElse(null);
  }

  void awaitReady(String name) {
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      TenantQuota tq = get(name);
      assertThat(tq.getStatus()).isNotNull();
      assertThat(tq.getStatus().getObservedGeneration()).isEqualTo(tq.getMetadata().getGeneration());
      assertThat(condition(name, "Ready").getStatus()).isEqualTo("True");
    });
  }

  void awaitReason(String name, String reason) {
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(condition(name, "Ready")).isNotNull().extracting(Condition::getReason).isEqualTo(reason));
  }

  List<Event> events(String name) {
    return k8s.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName())).toList();
  }

  Map<ThrottleKind, String> held(Subject s) throws java.io.IOException {
    Map<ThrottleKind, String> out = new java.util.TreeMap<>();
    hbase.read(s).throttles().forEach((k, l) -> out.put(k, io.hbaseqos.operator.quota.LimitSyntax.format(k, l)));
    return out;
  }

  @Test
  void appliesChangesAndRemovesThrottlesExactly() throws Exception {
    String u = "ann";
    k8s.resource(tenant(ns, "ann", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"),
        t(ThrottleKind.WRITE_SIZE, "1M/sec"))).create();
    awaitReady("ann");
    assertThat(held(Subject.user(u))).isEqualTo(Map.of(ThrottleKind.REQUEST_NUMBER, "100req/sec",
        ThrottleKind.WRITE_SIZE, "1M/sec"));
    int writes = hbase.writes.get();
    Resources.edit(k8s, TenantQuota.class, ns, "ann", tq -> tq.getSpec().setThrottles(new ArrayList<>(List.of(
        t(ThrottleKind.REQUEST_NUMBER, "200req/sec")))));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(held(Subject.user(u)))
        .isEqualTo(Map.of(ThrottleKind.REQUEST_NUMBER, "200req/sec")));
    awaitReady("ann");
    assertThat(hbase.writes.get() - writes).as("one write per changed type").isEqualTo(2);
    assertThat(get("ann").getStatus().getSummary()).isEqualTo("REQUEST_NUMBER=200req/sec");
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(events("ann")).extracting(Event::getReason).contains("Applied"));
    k8s.resource(get("ann")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("ann") == null);
    assertThat(hbase.read(Subject.user(u)).isEmpty()).isTrue();
  }

  @Test
  void idleReconcilesAndResyncsWriteNothing() {
    k8s.resource(tenant(ns, "erin", "hb", user("erin"), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    awaitReady("erin");
    String key = ClusterConnections.key(ns, "hb");
    int scans = hbase.scans.get();
    // the resyncs right after creation have settled once a later one has run
    await().atMost(20, TimeUnit.SECONDS).until(() -> hbase.scans.get() >= scans + 2);
    TenantQuota before = get("erin");
    HBaseCluster clusterBefore = hc("hb");
    int writes = hbase.writes.get();
    for (int i = 0; i < 3; i++) {
      operator.core.resync.resync(key);
      operator.core.triggers.reconcileTenant(before); // a full reconcile with nothing to do
      operator.core.triggers.reconcileCluster(key);
    }
    int after = hbase.scans.get();
    await().atMost(20, TimeUnit.SECONDS).until(() -> hbase.scans.get() >= after + 2);
    assertThat(hbase.writes.get()).as("nothing written to HBase").isEqualTo(writes);
    assertThat(get("erin").getMetadata().getResourceVersion()).as("no status write")
        .isEqualTo(before.getMetadata().getResourceVersion());
    assertThat(hc("hb").getStatus().getConditions()).isEqualTo(clusterBefore.getStatus().getConditions());
  }

  @Test
  void driftIsRestoredCountedAndReported() throws Exception {
    String u = "frank";
    k8s.resource(tenant(ns, "frank", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    awaitReady("frank");
    // somebody uses the HBase shell
    hbase.setQuota(new QuotaOp.SetThrottle(Subject.user(u), ThrottleKind.REQUEST_NUMBER,
        new Limit(999, TimeUnit.SECONDS, Limit.Scope.MACHINE)));
    await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(held(Subject.user(u))).isEqualTo(Map.of(ThrottleKind.REQUEST_NUMBER, "100req/sec"));
      assertThat(get("frank").getStatus().getDriftCorrections()).isEqualTo(1L);
      assertThat(condition("frank", "Synced").getReason()).isEqualTo("DriftCorrected");
      assertThat(events("frank")).extracting(Event::getReason).contains("DriftCorrected");
    });
    assertThat(operator.count("hbaseqos.drift.corrections")).isGreaterThanOrEqualTo(1);
  }

  @Test
  void secondClaimOnASubjectIsAConflictOnceAndTakesOverWhenTheFirstGoes() throws Exception {
    k8s.resource(tenant(ns, "first", "hb", user("gina"), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    awaitReady("first");
    k8s.resource(tenant(ns, "second", "hb", user("gina"), t(ThrottleKind.REQUEST_NUMBER, "5req/sec"))).create();
    awaitReason("second", "Conflict");
    assertThat(condition("second", "Conflict").getMessage()).contains("'first'");
    assertThat(held(Subject.user("gina"))).isEqualTo(Map.of(ThrottleKind.REQUEST_NUMBER, "100req/sec"));
    // reconciled again (resyncs every 2 s): still one Conflict event
    int scans = hbase.scans.get();
    await().atMost(20, TimeUnit.SECONDS).until(() -> hbase.scans.get() >= scans + 2);
    assertThat(events("second")).filteredOn(e -> "Conflict".equals(e.getReason())).extracting(Event::getCount)
        .containsExactly(1);
    k8s.resource(get("first")).delete();
    awaitReady("second");
    await().atMost(15, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(held(Subject.user("gina"))).isEqualTo(Map.of(ThrottleKind.REQUEST_NUMBER, "5req/sec")));
    assertThat(condition("second", "Conflict")).isNull();
  }

  @Test
  void aMissingClusterIsReportedAndConvergesWhenItAppears() throws Exception {
    k8s.resource(tenant(ns, "ivy", "later", user("ivy"), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"))).create();
    awaitReason("ivy", "ClusterNotFound");
    assertThat(condition("ivy", "Ready").getMessage()).contains("'later'");
    MemoryQuotaTable later = table(ns + "-later");
    k8s.resource(cluster(ns, "later", connection(ns + "-later"), "2s")).create();
    awaitReady("ivy");
    assertThat(later.read(Subject.user("ivy")).throttles()).containsOnlyKeys(ThrottleKind.REQUEST_NUMBER);
    assertThat(events("ivy")).filteredOn(e -> "ClusterNotFound".equals(e.getReason())).extracting(Event::getCount)
        .containsExactly(1);
  }

  @Test
  void anUnreachableClusterIsOneEventAndDeletionWaitsForItUntilReleased() throws Exception {
    String u = "mona";
    k8s.resource(tenant(ns, "mona", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"))).create();
    TenantQuota keep = tenant(ns, "keep", "hb", user("keep"), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"));
    keep.getSpec().setDeletionPolicy(TenantQuotaSpec.DeletionPolicy.Retain);
    k8s.resource(keep).create();
    awaitReady("mona");
    awaitReady("keep");
    hbase.down = true;
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(hc("hb").getStatus().condition("Reachable")
        .orElseThrow().getStatus()).isEqualTo("False"));
    // the resync and the reconciles keep retrying under back-off: one Unreachable event, not one per retry
    await().pollDelay(Duration.ofSeconds(5)).atMost(10, TimeUnit.SECONDS).until(() -> true);
    assertThat(events("hb")).filteredOn(e -> "Unreachable".equals(e.getReason())).extracting(Event::getCount)
        .containsExactly(1);
    k8s.resource(get("keep")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("keep") == null); // Retain needs no HBase
    k8s.resource(get("mona")).delete();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(events("mona")).extracting(Event::getReason).contains("CleanupFailed"));
    assertThat(get("mona")).as("kept by its finalizer while HBase cannot be cleaned").isNotNull();
    Resources.edit(k8s, TenantQuota.class, ns, "mona",
        tq -> tq.getMetadata().setAnnotations(Map.of("hbaseqos.io/skip-cleanup", "true")));
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("mona") == null);
    hbase.down = false;
    assertThat(hbase.read(Subject.user(u)).throttles()).as("released without touching HBase")
        .containsOnlyKeys(ThrottleKind.REQUEST_NUMBER);
    assertThat(hbase.read(Subject.user("keep")).throttles()).as("retained").containsOnlyKeys(ThrottleKind.REQUEST_NUMBER);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(hc("hb").getStatus().condition("Reachable")
        .orElseThrow().getStatus()).isEqualTo("True"));
    // connected twice: the same Event raised twice (aggregated by count), once per transition
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(events("hb"))
        .filteredOn(e -> "Reachable".equals(e.getReason())).extracting(Event::getCount).containsExactly(2));
  }

  @Test
  void theClusterWidePolicyIsAppliedAndRestoredAfterAnOutsideChange() {
    Resources.editCluster(k8s, ns, "hb", c -> {
      ThrottlePolicySpec p = new ThrottlePolicySpec();
      p.setRegionServer(new ArrayList<>(List.of(t(ThrottleKind.READ_NUMBER, "1500req/sec"))));
      c.getSpec().setThrottlePolicy(p);
    });
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(hbase.regionServerPolicy.throttles()).containsOnlyKeys(ThrottleKind.READ_NUMBER);
      assertThat(hc("hb").getStatus().condition("ThrottlePolicyApplied").orElseThrow().getStatus()).isEqualTo("True");
    });
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(events("hb")).extracting(Event::getReason).contains("ThrottlePolicyApplied"));
    // changed in HBase outside the operator: restored at the next resync, and counted as drift
    hbase.regionServerPolicy = new io.hbaseqos.operator.quota.RegionServerPolicy(Map.of(), false, true);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(hbase.regionServerPolicy.throttles()).containsOnlyKeys(ThrottleKind.READ_NUMBER);
      assertThat(events("hb")).extracting(Event::getReason).contains("DriftCorrected");
    });
  }

  @Test
  void aTenantThatIsBothCalibratedAndQosRunsItsLoopsWithoutMetricsAndWritesItsSpecLimit() throws Exception {
    // no RegionServer answers (the in-memory cluster has no info servers): both loops hold fail-static
    TenantQuota tq = tenant(ns, "both", "hb", user("both"), t(ThrottleKind.READ_NUMBER, "700req/sec"));
    tq.getSpec().setCalibration(Resources.readsCalibration(2000, 10, 5));
    k8s.resource(tq).create();
    awaitReady("both");
    assertThat(held(Subject.user("both"))).isEqualTo(Map.of(ThrottleKind.READ_NUMBER, "700req/sec"));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(get("both").getStatus().getCalibration()).isNotNull();
      assertThat(condition("both", "Calibrated")).isNotNull().satisfies(c -> assertThat(c.getStatus()).isEqualTo("False"));
    });
    // calibration taken out: its status and condition go, the limit stays as the spec says
    Resources.edit(k8s, TenantQuota.class, ns, "both", t -> t.getSpec().setCalibration(null));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(get("both").getStatus().getCalibration()).isNull();
      assertThat(condition("both", "Calibrated")).isNull();
    });
    assertThat(held(Subject.user("both"))).isEqualTo(Map.of(ThrottleKind.READ_NUMBER, "700req/sec"));
  }
}
