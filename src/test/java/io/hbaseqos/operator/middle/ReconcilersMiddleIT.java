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
import io.hbaseqos.operator.api.NamespaceLimitsSpec;
import io.hbaseqos.operator.api.SpaceSpec;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.ThrottlePolicySpec;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.hbase.MemoryQuotaTable;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.NamespaceLimits;
import io.hbaseqos.operator.quota.SpaceLimit;
import io.hbaseqos.operator.quota.SpaceUsage;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.TenantStatus;
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
    return TenantStatus.get(k8s, ns, name);
  }

  HBaseCluster hc(String name) {
    return k8s.resources(HBaseCluster.class).inNamespace(ns).withName(name).get();
  }

  Condition condition(String name, String type) {
    return TenantStatus.condition(k8s, ns, name, type);
  }

  void awaitReady(String name) {
    TenantStatus.awaitReady(k8s, ns, name);
  }

  void awaitReason(String name, String reason) {
    TenantStatus.awaitReason(k8s, ns, name, reason);
  }

  List<Event> events(String name) {
    return TenantStatus.events(k8s, ns, name);
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
  void aDryRunWritesNothingUntilItIsEnforcedAndThenExactlyItsPlan() throws Exception {
    String u = "dora";
    // a limit set in the shell before the platform declared the tenant
    hbase.setQuota(new QuotaOp.SetThrottle(Subject.user(u), ThrottleKind.REQUEST_NUMBER,
        new Limit(900, TimeUnit.SECONDS, Limit.Scope.MACHINE)));
    int writes = hbase.writes.get();
    TenantQuota tq = tenant(ns, "dora", "hb", user(u), t(ThrottleKind.READ_NUMBER, "300req/sec"),
        t(ThrottleKind.WRITE_SIZE, "2M/sec"));
    tq.getSpec().setEnforcement(TenantQuotaSpec.Enforcement.DryRun);
    k8s.resource(tq).create();
    awaitReason("dora", "DryRun");
    TenantQuota dry = get("dora");
    assertThat(condition("dora", "Ready").getMessage()).isEqualTo("dry run: nothing is written to HBase; Enforce "
        + "would write WRITE_SIZE=2M/sec,READ_NUMBER=300req/sec (HBase holds REQUEST_NUMBER=900req/sec for user=" + u
        + ")");
    assertThat(dry.getStatus().getSummary()).as("status names what HBase holds").isEqualTo("REQUEST_NUMBER=900req/sec");
    assertThat(dry.getStatus().getDryRun().getPlan()).isEqualTo("WRITE_SIZE=2M/sec,READ_NUMBER=300req/sec");
    assertThat(dry.getStatus().getDryRun().getMessage()).startsWith("no prediction yet");
    assertThat(condition("dora", "Synced")).isNull();
    // an edit, resyncs and a full reconcile: still nothing written, and no status write once it is settled
    Resources.edit(k8s, TenantQuota.class, ns, "dora", x -> x.getSpec().getThrottles().get(0).setLimit("200req/sec"));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(get("dora").getStatus().getDryRun().getPlan())
        .endsWith("READ_NUMBER=200req/sec"));
    int scans = hbase.scans.get();
    await().atMost(20, TimeUnit.SECONDS).until(() -> hbase.scans.get() >= scans + 2);
    TenantQuota settled = get("dora");
    operator.core.triggers.reconcileTenant(settled);
    int after = hbase.scans.get();
    await().atMost(20, TimeUnit.SECONDS).until(() -> hbase.scans.get() >= after + 2);
    assertThat(hbase.writes.get()).as("a dry run writes nothing").isEqualTo(writes);
    assertThat(held(Subject.user(u))).isEqualTo(Map.of(ThrottleKind.REQUEST_NUMBER, "900req/sec"));
    assertThat(get("dora").getMetadata().getResourceVersion()).isEqualTo(settled.getMetadata().getResourceVersion());
    // the shell changes what HBase holds: status follows, and still nothing is written
    hbase.setQuota(new QuotaOp.SetThrottle(Subject.user(u), ThrottleKind.REQUEST_NUMBER,
        new Limit(800, TimeUnit.SECONDS, Limit.Scope.MACHINE)));
    writes = hbase.writes.get();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(get("dora").getStatus().getSummary())
        .isEqualTo("REQUEST_NUMBER=800req/sec"));
    assertThat(hbase.writes.get()).isEqualTo(writes);

    // enforced: exactly the plan, in the writes the plan needs (the shell's limit goes, two throttles come)
    Resources.edit(k8s, TenantQuota.class, ns, "dora", x -> x.getSpec().setEnforcement(
        TenantQuotaSpec.Enforcement.Enforce));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(held(Subject.user(u))).isEqualTo(Map.of(
        ThrottleKind.READ_NUMBER, "200req/sec", ThrottleKind.WRITE_SIZE, "2M/sec")));
    awaitReason("dora", "Synced");
    assertThat(hbase.writes.get() - writes).isEqualTo(3);
    assertThat(get("dora").getStatus().getDryRun()).isNull();

    // back to a dry run of another limit, then deleted: HBase keeps what it holds, and the event says so
    int enforced = hbase.writes.get();
    Resources.edit(k8s, TenantQuota.class, ns, "dora", x -> {
      x.getSpec().setEnforcement(TenantQuotaSpec.Enforcement.DryRun);
      x.getSpec().getThrottles().get(0).setLimit("50req/sec");
    });
    awaitReason("dora", "DryRun");
    k8s.resource(get("dora")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("dora") == null);
    assertThat(held(Subject.user(u))).isEqualTo(Map.of(ThrottleKind.READ_NUMBER, "200req/sec",
        ThrottleKind.WRITE_SIZE, "2M/sec"));
    assertThat(hbase.writes.get()).isEqualTo(enforced);
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(events("dora")).extracting(Event::getReason)
        .contains("DryRun", "DryRunDeleted"));
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
  void anotherNamespaceWritesOnlyWhatTheClusterGrantsIt() throws Exception {
    String tenantNs = KubeApi.newNamespace("mid-tenant");
    NAMESPACES.add(tenantNs);
    TenantQuota tq = tenant(tenantNs, "svc", "hb", user("jo_svc"), t(ThrottleKind.REQUEST_NUMBER, "70req/sec"));
    tq.getSpec().getClusterRef().setNamespace(ns);
    k8s.resource(tq).create();
    TenantStatus.awaitReason(k8s, tenantNs, "svc", "NotGranted");
    assertThat(TenantStatus.condition(k8s, tenantNs, "svc", "Ready").getMessage())
        .contains("namespace " + tenantNs + " is not granted the use of HBaseCluster " + ns + "/hb");
    assertThat(hbase.writes.get()).as("nothing written for a namespace without a grant").isZero();

    // the platform grants it users jo_*: the tenant converges without being touched
    Resources.editCluster(k8s, ns, "hb", hc -> {
      io.hbaseqos.operator.api.TenancySpec tenancy = new io.hbaseqos.operator.api.TenancySpec();
      tenancy.setGrants(new ArrayList<>(List.of(new io.hbaseqos.operator.api.TenantGrant(List.of(tenantNs),
          List.of("jo_*"), null, null))));
      hc.getSpec().setTenancy(tenancy);
    });
    TenantStatus.awaitReady(k8s, tenantNs, "svc");
    assertThat(held(Subject.user("jo_svc"))).isEqualTo(Map.of(ThrottleKind.REQUEST_NUMBER, "70req/sec"));

    // and takes the grant back: nothing is written or removed, status says why and holds nothing
    int writes = hbase.writes.get();
    Resources.editCluster(k8s, ns, "hb", hc -> hc.getSpec().getTenancy().getGrants().get(0)
        .setUsers(List.of("someone_else")));
    TenantStatus.awaitReason(k8s, tenantNs, "svc", "NotGranted");
    assertThat(TenantStatus.condition(k8s, tenantNs, "svc", "Ready").getMessage()).contains("spec.subject's user "
        + "jo_svc (granted users: someone_else)");
    assertThat(TenantStatus.get(k8s, tenantNs, "svc").getStatus().getThrottles()).isEmpty();
    Resources.edit(k8s, TenantQuota.class, tenantNs, "svc", t -> t.getSpec().getThrottles().get(0)
        .setLimit("1req/sec"));
    await().atMost(30, TimeUnit.SECONDS).until(() -> {
      TenantQuota now = TenantStatus.get(k8s, tenantNs, "svc");
      return java.util.Objects.equals(now.getStatus().getObservedGeneration(), now.getMetadata().getGeneration());
    });
    k8s.resource(TenantStatus.get(k8s, tenantNs, "svc")).withTimeout(30, TimeUnit.SECONDS).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> TenantStatus.get(k8s, tenantNs, "svc") == null);
    assertThat(held(Subject.user("jo_svc"))).isEqualTo(Map.of(ThrottleKind.REQUEST_NUMBER, "70req/sec"));
    assertThat(hbase.writes.get()).isEqualTo(writes);
    assertThat(TenantStatus.events(k8s, tenantNs, "svc")).filteredOn(e -> "NotGranted".equals(e.getReason()))
        .isNotEmpty();
  }

  /** docs/install.md's migration: from a TenantQuota beside the HBaseCluster to one in the tenant's namespace. */
  @Test
  void movingATenantToItsOwnNamespaceNeverUnthrottlesIt() throws Exception {
    k8s.resource(tenant(ns, "old", "hb", user("mo_svc"), t(ThrottleKind.REQUEST_NUMBER, "40req/sec"))).create();
    awaitReady("old");
    String tenantNs = KubeApi.newNamespace("mid-moved");
    NAMESPACES.add(tenantNs);
    Resources.editCluster(k8s, ns, "hb", hc -> {
      io.hbaseqos.operator.api.TenancySpec tenancy = new io.hbaseqos.operator.api.TenancySpec();
      tenancy.setGrants(new ArrayList<>(List.of(new io.hbaseqos.operator.api.TenantGrant(List.of(tenantNs),
          List.of("mo_*"), null, null))));
      hc.getSpec().setTenancy(tenancy);
    });
    TenantQuota moved = tenant(tenantNs, "svc", "hb", user("mo_svc"), t(ThrottleKind.REQUEST_NUMBER, "40req/sec"));
    moved.getSpec().getClusterRef().setNamespace(ns);
    k8s.resource(moved).create();
    TenantStatus.awaitReason(k8s, tenantNs, "svc", "Conflict");
    int writes = hbase.writes.get();
    List<Map<ThrottleKind, String>> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    k8s.resource(get("old")).delete();
    await().atMost(30, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20)).until(() -> {
      seen.add(held(Subject.user("mo_svc")));
      return get("old") == null && "True".equals(java.util.Optional.ofNullable(TenantStatus.condition(k8s, tenantNs,
          "svc", "Ready")).map(Condition::getStatus).orElse(null));
    });
    assertThat(seen).as("HBase held the throttle all along").allSatisfy(h -> assertThat(h)
        .isEqualTo(Map.of(ThrottleKind.REQUEST_NUMBER, "40req/sec")));
    assertThat(hbase.writes.get()).as("the same throttle: the old owner's cleanup and the new owner write nothing")
        .isEqualTo(writes);
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
  void theClusterWidePolicyIsAppliedAndRestoredAfterAnOutsideChange() throws Exception {
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
    // bytes that are not settings put into both policy rows: the declared throttles' cell is cleared and they are
    // written again; the undeclared switch's cell is left, and named with the command that deletes it
    byte[] junk = "not a quota at all!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    hbase.putRaw("r.all", "s", junk);
    hbase.putRaw("exceedThrottleQuota", "s", junk);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      var read = hbase.readRegionServerPolicy();
      assertThat(read.throttles()).containsOnlyKeys(ThrottleKind.READ_NUMBER);
      assertThat(read.unreadable()).extracting(io.hbaseqos.operator.quota.UnreadableCell::where)
          .containsExactly("row exceedThrottleQuota column q:s");
      assertThat(events("hb")).filteredOn(e -> "UnreadableCellCleared".equals(e.getReason())).hasSize(1);
      Condition applied = hc("hb").getStatus().condition("ThrottlePolicyApplied").orElseThrow();
      assertThat(applied.getStatus()).isEqualTo("True");
      assertThat(applied.getMessage()).contains("row exceedThrottleQuota column q:s (19 bytes that are not a switch")
          .contains("deleteall 'hbase:quota', 'exceedThrottleQuota', 'q:s'");
    });
    // the switch declared: its cell is cleared too
    Resources.editCluster(k8s, ns, "hb", c -> c.getSpec().getThrottlePolicy().setExceedThrottle(
        ThrottlePolicySpec.Switch.Disabled));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(hbase.readRegionServerPolicy().unreadable()).isEmpty();
      assertThat(hc("hb").getStatus().condition("ThrottlePolicyApplied").orElseThrow().getMessage())
          .doesNotContain("not a switch");
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

  @Test
  void aNamespaceCreatedLaterGetsItsLimitsDriftIsRestoredAndATakenBackDeclarationRemovesThem() throws Exception {
    TenantQuota tq = tenant(ns, "sales", "hb", Resources.namespace("sales"));
    tq.getSpec().setNamespaceLimits(new NamespaceLimitsSpec(20L, 2000L));
    k8s.resource(tq).create();
    awaitReason("sales", "NamespaceNotFound");
    assertThat(hbase.namespaceWrites.get()).isZero();
    hbase.namespaces.put("sales", new ConcurrentHashMap<>(Map.of("other.key", "kept")));
    awaitReady("sales");
    assertThat(hbase.namespaces.get("sales")).containsEntry(NamespaceLimits.MAX_TABLES, "20")
        .containsEntry(NamespaceLimits.MAX_REGIONS, "2000").containsEntry("other.key", "kept");
    // an admin changes the descriptor: restored and counted at the next resync
    hbase.namespaces.get("sales").put(NamespaceLimits.MAX_TABLES, "1");
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(hbase.namespaces.get("sales")).containsEntry(NamespaceLimits.MAX_TABLES, "20");
      assertThat(get("sales").getStatus().getDriftCorrections()).isEqualTo(1L);
    });
    Resources.edit(k8s, TenantQuota.class, ns, "sales", q -> {
      q.getSpec().setNamespaceLimits(null); // a spec declares something: a throttle on the namespace instead
      q.getSpec().setThrottles(new ArrayList<>(List.of(t(ThrottleKind.WRITE_NUMBER, "50req/sec"))));
    });
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(hbase.namespaces.get("sales")).doesNotContainKeys(NamespaceLimits.MAX_TABLES,
          NamespaceLimits.MAX_REGIONS).containsEntry("other.key", "kept");
      assertThat(get("sales").getStatus().getNamespace()).isNull();
      assertThat(held(Subject.namespace("sales"))).isEqualTo(Map.of(ThrottleKind.WRITE_NUMBER, "50req/sec"));
    });
  }

  @Test
  void aSpaceQuotaPastItsLimitIsReportedOnceAndItsRestoreToo() throws Exception {
    String table = "default:events";
    TenantQuota tq = tenant(ns, "events", "hb", Resources.table(table));
    tq.getSpec().setSpace(new SpaceSpec("1G", SpaceLimit.Policy.NO_INSERTS));
    k8s.resource(tq).create();
    awaitReady("events");
    long limit = 1L << 30;
    assertThat(hbase.read(Subject.table(table)).space().bytes()).isEqualTo(limit);
    hbase.usage.put(Subject.table(table), new SpaceUsage(limit + 1, limit, true, SpaceLimit.Policy.NO_INSERTS));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(condition("events", "SpaceQuotaViolated")).isNotNull().satisfies(c -> {
        assertThat(c.getStatus()).isEqualTo("True");
        assertThat(c.getReason()).isEqualTo("NO_INSERTS");
      });
      assertThat(events("events")).extracting(Event::getReason).contains("SpaceQuotaViolated");
    });
    hbase.usage.put(Subject.table(table), new SpaceUsage(limit / 2, limit, false, SpaceLimit.Policy.NO_INSERTS));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(condition("events", "SpaceQuotaViolated").getStatus()).isEqualTo("False");
      assertThat(events("events")).extracting(Event::getReason).contains("SpaceQuotaRestored");
    });
    assertThat(events("events")).filteredOn(e -> "SpaceQuotaViolated".equals(e.getReason()))
        .extracting(Event::getCount).containsExactly(1);
  }

  @Test
  void anHBaseClusterSpecTheOperatorRefusesKeepsTenantsCorrectedAndStopsAnEarlierRemove() throws Exception {
    Resources.editCluster(k8s, ns, "hb", c -> c.getSpec().getQuotas()
        .setUnmanagedPolicy(io.hbaseqos.operator.api.QuotaSettingsSpec.UnmanagedPolicy.Remove));
    k8s.resource(tenant(ns, "kept", "hb", user("kept"), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    awaitReady("kept");
    Limit five = new Limit(5, TimeUnit.SECONDS, Limit.Scope.MACHINE);
    hbase.setQuota(new QuotaOp.SetThrottle(Subject.user("stray-1"), ThrottleKind.REQUEST_NUMBER, five));
    await().atMost(30, TimeUnit.SECONDS).until(() -> hbase.read(Subject.user("stray-1")).isEmpty());
    // Retain, with what only the operator can judge (a field of a volume source the schema keeps as
    // written): the spec is refused as a whole
    Resources.editCluster(k8s, ns, "hb", c -> {
      c.getSpec().getQuotas().setUnmanagedPolicy(io.hbaseqos.operator.api.QuotaSettingsSpec.UnmanagedPolicy.Retain);
      io.hbaseqos.operator.api.TopologySpec t = new io.hbaseqos.operator.api.TopologySpec();
      t.setImage("apache/hbase:2.6.4");
      t.setRootDir("hdfs://nn:8020/hbase");
      t.setRegionServers(new io.hbaseqos.operator.api.RegionServersSpec());
      t.setVolumes(new ArrayList<>(List.of(new io.hbaseqos.operator.api.PodVolume("data",
          Map.of("nfs", Map.of("server", "nfs", "path", "/hbase", "readonly", true))))));
      c.getSpec().setTopology(t);
    });
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(hc("hb").getStatus().condition("Ready")
        .orElseThrow().getReason()).isEqualTo("InvalidSpec"));
    assertThat(hc("hb").getStatus().condition("Ready").orElseThrow().getMessage())
        .contains("spec.topology.volumes[0].nfs.readonly: not a field of a Kubernetes volume");
    assertThat(hc("hb").getStatus().condition("UnmanagedRemoval").orElseThrow().getReason()).isEqualTo("SpecRefused");
    hbase.setQuota(new QuotaOp.SetThrottle(Subject.user("stray-2"), ThrottleKind.REQUEST_NUMBER, five));
    hbase.setQuota(new QuotaOp.SetThrottle(Subject.user("kept"), ThrottleKind.REQUEST_NUMBER, five));
    // the resync goes on: the tenant's drift is corrected ...
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(held(Subject.user("kept"))).isEqualTo(Map.of(ThrottleKind.REQUEST_NUMBER, "100req/sec")));
    // ... and the Remove of the earlier spec does not (two more resyncs)
    int scans = hbase.scans.get();
    await().atMost(30, TimeUnit.SECONDS).until(() -> hbase.scans.get() >= scans + 2);
    assertThat(hbase.read(Subject.user("stray-2")).throttles()).containsOnlyKeys(ThrottleKind.REQUEST_NUMBER);
  }
}
