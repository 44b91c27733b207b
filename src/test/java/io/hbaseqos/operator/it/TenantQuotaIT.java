package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.cluster;
import static io.hbaseqos.operator.support.Resources.namespace;
import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.table;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static io.hbaseqos.operator.support.Resources.userTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.ThrottleSpec;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.HBaseQuotas;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.TenantStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** TenantQuota reconcile rules, end to end: real kube-apiserver, real HBase 2.6.4, the real reconcilers. */
class TenantQuotaIT {
  static KubernetesClient k8s;
  static OperatorHarness operator;
  String ns;

  @BeforeAll
  static void start() {
    StandaloneHBase.shared();
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
  }

  static final java.util.Set<String> NAMESPACES = java.util.concurrent.ConcurrentHashMap.newKeySet();

  @AfterAll
  static void stop() {
    KubeApi.cleanUp(NAMESPACES);
    operator.close();
  }

  @BeforeEach
  void namespaceWithCluster() {
    ns = KubeApi.newNamespace("tq");
    NAMESPACES.add(ns);
    k8s.resource(cluster(ns, "hb", StandaloneHBase.shared().connectionSpec(), "2s")).create();
    KubeApi.awaitClusterReady(ns, "hb");
  }

  TenantQuota get(String name) {
    return TenantStatus.get(k8s, ns, name);
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

  @Test
  void appliesChangesAndRemovesThrottlesExactly() {
    String u = "alice-" + ns;
    k8s.resource(tenant(ns, "alice", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "2500req/sec"),
        t(ThrottleKind.READ_SIZE, "10M/sec"), t(ThrottleKind.WRITE_CAPACITY_UNIT, "100CU/min"))).create();
    awaitReady("alice");
    assertThat(HBaseQuotas.user(u)).isEqualTo(Map.of("REQUEST_NUMBER", "2500req/sec", "READ_SIZE", "10M/sec",
        "WRITE_CAPACITY_UNIT", "100CU/min"));
    TenantQuota tq = get("alice");
    assertThat(tq.getStatus().getSubject()).isEqualTo("user=" + u);
    assertThat(tq.getStatus().getSummary()).contains("REQUEST_NUMBER=2500req/sec");
    assertThat(tq.getStatus().getThrottles()).hasSize(3);
    assertThat(tq.getStatus().getLastSyncTime()).isNotNull();

    // change one limit in place and drop one type
    io.hbaseqos.operator.support.Resources.edit(k8s, TenantQuota.class, ns, "alice", x -> x.getSpec().setThrottles(
        List.of(t(ThrottleKind.REQUEST_NUMBER, "3000req/sec"), t(ThrottleKind.READ_SIZE, "10M/sec"))));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(HBaseQuotas.user(u))
        .isEqualTo(Map.of("REQUEST_NUMBER", "3000req/sec", "READ_SIZE", "10M/sec")));
    awaitReady("alice");
    assertThat(events("alice")).anySatisfy(e -> assertThat(e.getReason()).isEqualTo("Applied"));

    k8s.resource(get("alice")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("alice") == null);
    assertThat(HBaseQuotas.user(u)).isEmpty();
  }

  @Test
  void everySubjectKindAndScope() throws Exception {
    try (var admin = StandaloneHBase.shared().admin()) {
      admin.createNamespace(org.apache.hadoop.hbase.NamespaceDescriptor.create("ns_" + ns.replace('-', '_')).build());
    }
    String hns = "ns_" + ns.replace('-', '_');
    k8s.resource(tenant(ns, "by-ns", "hb", namespace(hns), t(ThrottleKind.WRITE_NUMBER, "50req/sec"))).create();
    k8s.resource(tenant(ns, "by-table", "hb", table(hns + ":orders"), t(ThrottleKind.READ_NUMBER, "70req/min"))).create();
    TenantQuota ut = tenant(ns, "by-user-table", "hb", userTable("bob-" + ns, hns + ":orders"),
        t(ThrottleKind.REQUEST_SIZE, "1G/hour"));
    ut.getSpec().setScope(TenantQuotaSpec.Scope.CLUSTER);
    k8s.resource(ut).create();
    k8s.resource(tenant(ns, "by-user-ns", "hb", new io.hbaseqos.operator.api.QuotaSubject("carol-" + ns, hns, null),
        t(ThrottleKind.ATOMIC_REQUEST_NUMBER, "5req/sec"), t(ThrottleKind.REQUEST_HANDLER_USAGE_MS, "500ms/sec"))).create();
    ThrottleSpec structured = new ThrottleSpec();
    structured.setType(ThrottleKind.READ_CAPACITY_UNIT);
    structured.setValue(42L);
    structured.setTimeUnit(ThrottleSpec.TimeUnitName.day);
    TenantQuota bypass = tenant(ns, "bypass", "hb", user("dave-" + ns), structured);
    bypass.getSpec().setBypassGlobals(true);
    k8s.resource(bypass).create();
    for (String n : List.of("by-ns", "by-table", "by-user-table", "by-user-ns", "bypass")) {
      awaitReady(n);
    }
    assertThat(HBaseQuotas.of(null, hns, null)).isEqualTo(Map.of("WRITE_NUMBER", "50req/sec"));
    assertThat(HBaseQuotas.of(null, null, hns + ":orders")).isEqualTo(Map.of("READ_NUMBER", "70req/min"));
    assertThat(HBaseQuotas.of("bob-" + ns, null, hns + ":orders")).isEqualTo(Map.of("REQUEST_SIZE", "1G/hour(cluster)"));
    assertThat(HBaseQuotas.of("carol-" + ns, hns, null))
        .isEqualTo(Map.of("ATOMIC_REQUEST_NUMBER", "5req/sec", "REQUEST_HANDLER_USAGE_MS", "500ms/sec"));
    assertThat(HBaseQuotas.user("dave-" + ns)).isEqualTo(Map.of("READ_CAPACITY_UNIT", "42CU/day", "GLOBAL_BYPASS", "true"));
  }

  @Test
  void idleReconcilesAndResyncsWriteNothing() {
    String u = "erin-" + ns;
    k8s.resource(tenant(ns, "erin", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    awaitReady("erin");
    String key = ClusterConnections.key(ns, "hb");
    // let the resyncs right after creation settle (its first usage written), then measure
    await().pollDelay(Duration.ofSeconds(3)).atMost(10, TimeUnit.SECONDS).until(() -> true);
    io.hbaseqos.operator.support.Waits.usageSettled(() -> get("erin"), () -> operator.hbaseCalls(key, "readAll"));
    TenantQuota before = get("erin");
    long writes = operator.hbaseCalls(key, "setQuota");
    long scans = operator.hbaseCalls(key, "readAll");
    for (int i = 0; i < 3; i++) {
      operator.core.resync.resync(key);
      operator.core.triggers.reconcileTenant(before); // a full reconcile with nothing to do
    }
    await().pollDelay(Duration.ofSeconds(5)).atMost(10, TimeUnit.SECONDS).until(() -> true);
    assertThat(operator.hbaseCalls(key, "setQuota")).isEqualTo(writes);
    assertThat(operator.hbaseCalls(key, "readAll")).isGreaterThanOrEqualTo(scans + 3);
    TenantQuota after = get("erin");
    assertThat(after.getMetadata().getResourceVersion()).isEqualTo(before.getMetadata().getResourceVersion());
    assertThat(after.getStatus().getConditions()).isEqualTo(before.getStatus().getConditions());
  }

  @Test
  void driftIsRestoredCountedAndReported() {
    String u = "frank-" + ns;
    k8s.resource(tenant(ns, "frank", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"),
        t(ThrottleKind.WRITE_SIZE, "1M/sec"))).create();
    awaitReady("frank");
    // somebody uses the HBase shell: changes one throttle, removes another
    HBaseQuotas.set(QuotaSettingsFactory.throttleUser(u, ThrottleType.REQUEST_NUMBER, 999, TimeUnit.SECONDS));
    HBaseQuotas.set(QuotaSettingsFactory.unthrottleUserByThrottleType(u, ThrottleType.WRITE_SIZE));
    await().atMost(15, TimeUnit.SECONDS).untilAsserted(() -> assertThat(HBaseQuotas.user(u))
        .isEqualTo(Map.of("REQUEST_NUMBER", "100req/sec", "WRITE_SIZE", "1M/sec")));
    await().atMost(15, TimeUnit.SECONDS).untilAsserted(() -> {
      TenantQuota tq = get("frank");
      assertThat(tq.getStatus().getDriftCorrections()).isEqualTo(1L);
      assertThat(condition("frank", "Synced").getReason()).isEqualTo("DriftCorrected");
      assertThat(events("frank")).anySatisfy(e -> assertThat(e.getReason()).isEqualTo("DriftCorrected"));
    });
    // also a full removal of the user's quotas (unthrottle)
    HBaseQuotas.set(QuotaSettingsFactory.unthrottleUser(u));
    await().atMost(15, TimeUnit.SECONDS).untilAsserted(() -> assertThat(get("frank").getStatus().getDriftCorrections())
        .isEqualTo(2L));
    assertThat(HBaseQuotas.user(u)).isEqualTo(Map.of("REQUEST_NUMBER", "100req/sec", "WRITE_SIZE", "1M/sec"));
  }

  /**
   * A raw put of bytes that are not quota settings into hbase:quota (issue: one such cell took every
   * HBaseCluster on that HBase to Unreachable). Now the cluster stays Ready and names the cell; a
   * managed subject's cell is deleted and rewritten as drift; an unmanaged one is left under Retain
   * and removed under Remove; drift correction goes on meanwhile.
   */
  @Test
  void aCellThatIsNotQuotaSettingsNeverTakesTheClusterDownAndIsRepairedOrReported() {
    String managed = "junk-m-" + ns;
    String unmanaged = "zz-junk-u-" + ns;
    byte[] junk = "not a quota at all!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    k8s.resource(tenant(ns, "junk", "hb", user(managed), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    awaitReady("junk");
    try {
      QuotaTableRaw.put(StandaloneHBase.shared(), "u." + unmanaged, "s", junk);
      QuotaTableRaw.put(StandaloneHBase.shared(), "u." + managed, "s", junk);
      assertThat(raw(managed)).isEqualTo(Map.of("u." + managed + " q:s", "?not a quota at all!"));

      // the managed cell: deleted exactly and rewritten, counted as drift
      await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
          assertThat(QuotaTableRaw.userLimit(StandaloneHBase.shared(), managed, "req_num")).isEqualTo(100L));
      await().atMost(15, TimeUnit.SECONDS).untilAsserted(() -> assertThat(events("junk")).anySatisfy(e -> {
        assertThat(e.getReason()).isEqualTo("DriftCorrected");
        assertThat(e.getMessage()).contains("restored user=" + managed + " to REQUEST_NUMBER=100req/sec (found an "
            + "unreadable cell row u." + managed + " column q:s (19 bytes that are not quota settings (no PBUF prefix))");
      }));

      // the unmanaged one: named on the cluster, which stays Ready
      await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
        HBaseCluster c = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").get();
        Condition healthy = c.getStatus().condition("QuotaTableHealthy").orElseThrow();
        assertThat(healthy.getStatus()).isEqualTo("False");
        assertThat(healthy.getReason()).isEqualTo("UnreadableCells");
        assertThat(healthy.getMessage()).contains("row u." + unmanaged + " column q:s (19 bytes that are not quota "
            + "settings (no PBUF prefix))", "left alone under unmanagedPolicy Retain", "deleteall 'hbase:quota', 'u."
            + unmanaged + "', 'q:s'");
        assertThat(io.hbaseqos.operator.api.Conditions.isTrue(c.getStatus(), "Ready")).as("Ready beside it").isTrue();
      });
      assertThat(raw(unmanaged)).as("Retain leaves it").hasSize(1);

      // an operator restart: the repaired cell is not repaired again, the unreadable one is named again, unchanged
      // once the condition names only the unmanaged cell (a resync after the repair)
      await().atMost(30, TimeUnit.SECONDS).until(() -> k8s.resources(HBaseCluster.class).inNamespace(ns)
          .withName("hb").get().getStatus().condition("QuotaTableHealthy").orElseThrow().getMessage()
          .startsWith("hbase:quota holds 1 cell"));
      Condition reported = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").get().getStatus()
          .condition("QuotaTableHealthy").orElseThrow();
      Map<String, String> repaired = raw(managed);
      operator = operator.restarted();
      String key = ClusterConnections.key(ns, "hb");
      await().atMost(60, TimeUnit.SECONDS).until(() -> operator.hbaseCalls(key, "readAll") >= 3);
      assertThat(operator.hbaseCalls(key, "setQuota")).as("nothing written after the restart").isZero();
      assertThat(raw(managed)).as("hbase:quota, raw, after the restart").isEqualTo(repaired)
          .isEqualTo(Map.of("u." + managed + " q:s", "req_num=100/SECONDS"));
      assertThat(raw(unmanaged)).as("Retain still leaves it").hasSize(1);
      Condition again = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").get().getStatus()
          .condition("QuotaTableHealthy").orElseThrow();
      assertThat(again.getStatus()).isEqualTo("False");
      assertThat(again.getMessage()).isEqualTo(reported.getMessage());
      assertThat(again.getLastTransitionTime()).as("never reported healthy meanwhile")
          .isEqualTo(reported.getLastTransitionTime());

      // drift of the managed tenant is still corrected while the junk stays
      HBaseQuotas.set(QuotaSettingsFactory.throttleUser(managed, ThrottleType.REQUEST_NUMBER, 999, TimeUnit.SECONDS));
      await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
          assertThat(QuotaTableRaw.userLimit(StandaloneHBase.shared(), managed, "req_num")).isEqualTo(100L));

      // under Remove (a second resource for this HBase, ignoring all but the junk's user) it goes
      HBaseCluster remover = removerOnlyOf("junk", unmanaged);
      await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(raw(unmanaged)).as(KubeApi::removalPicture)
          .isEmpty());
      k8s.resource(remover).delete();
      await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
        HBaseCluster c = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").get();
        assertThat(c.getStatus().condition("QuotaTableHealthy").orElseThrow().getStatus())
            .isEqualTo("True");
      });
    } finally {
      QuotaTableRaw.delete(StandaloneHBase.shared(), "u." + unmanaged, "s");
    }
  }

  @Test
  void secondClaimOnASubjectIsAConflictAndTakesOverWhenTheFirstGoes() {
    String u = "gina-" + ns;
    k8s.resource(tenant(ns, "first", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    awaitReady("first");
    k8s.resource(tenant(ns, "second", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "5req/sec"))).create();
    awaitReason("second", "Conflict");
    assertThat(condition("second", "Conflict").getStatus()).isEqualTo("True");
    assertThat(condition("second", "Conflict").getMessage()).contains("'first'");
    assertThat(HBaseQuotas.user(u)).isEqualTo(Map.of("REQUEST_NUMBER", "100req/sec"));
    k8s.resource(get("first")).delete();
    awaitReady("second");
    await().atMost(15, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(HBaseQuotas.user(u)).isEqualTo(Map.of("REQUEST_NUMBER", "5req/sec")));
    assertThat(condition("second", "Conflict")).isNull();
  }

  /**
   * Stores a TenantQuota the way an older, looser schema would have let it be stored: the limit's
   * rules are lifted for the one write, then the committed CRD is applied again.
   */
  void storeUnderALooserSchema(String name, java.util.function.Consumer<TenantQuota> change) {
    var crds = k8s.apiextensions().v1().customResourceDefinitions().withName("tenantquotas.hbaseqos.io");
    try {
      crds.edit(crd -> {
        var limit = crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema().getProperties().get("spec")
            .getProperties().get("throttles").getItems().getSchema().getProperties().get("limit");
        limit.setXKubernetesValidations(null);
        return crd;
      });
      // retried until the looser schema is served (every exception, a 409 included)
      await().atMost(20, TimeUnit.SECONDS).ignoreExceptions().until(() -> {
        k8s.resources(TenantQuota.class).inNamespace(ns).withName(name).edit(tq -> {
          change.accept(tq);
          return tq;
        });
        return true;
      });
    } finally {
      KubeApi.installCrds(k8s);
    }
  }

  @Test
  void aSpecInvalidAfterItWroteIsReportedKeepsItsClaimAndIsCleanedUp() {
    String u = "hank-" + ns;
    k8s.resource(tenant(ns, "huge", "hb", user(u), t(ThrottleKind.READ_SIZE, "1P/sec"))).create();
    awaitReady("huge");
    assertThat(raw(u)).isEqualTo(Map.of("u." + u + " q:s", "read_size=1125899906842624/SECONDS"));
    // an upgrade tightened validation: 9999999999999999P overflows, and the schema now says so
    storeUnderALooserSchema("huge", tq -> tq.getSpec().setThrottles(List.of(t(ThrottleKind.READ_SIZE, "9999999999999999P/sec"))));
    awaitReason("huge", "InvalidSpec");
    assertThat(condition("huge", "Ready").getMessage()).contains("spec.throttles[0].limit").contains("too large");
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(events("huge")).anySatisfy(e -> assertThat(e.getReason()).isEqualTo("InvalidSpec")));
    // still the claimant of what it wrote: Remove does not take it as unmanaged
    io.hbaseqos.operator.support.Resources.edit(k8s, HBaseCluster.class, ns, "hb", hc -> {
      hc.getSpec().getQuotas().setUnmanagedPolicy(io.hbaseqos.operator.api.QuotaSettingsSpec.UnmanagedPolicy.Remove);
      hc.getSpec().getQuotas().setUnmanagedInclude(List.of("^user=[^,]*" + ns + "$"));
    });
    String stray = "ivan-" + ns;
    HBaseQuotas.set(QuotaSettingsFactory.throttleUser(stray, ThrottleType.REQUEST_NUMBER, 5, TimeUnit.SECONDS));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(raw(stray)).as(KubeApi::removalPicture)
        .isEmpty());
    assertThat(raw(u)).as("nothing written for the invalid spec, and nothing removed")
        .isEqualTo(Map.of("u." + u + " q:s", "read_size=1125899906842624/SECONDS"));
    // and its deletion removes what it wrote
    k8s.resource(get("huge")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("huge") == null);
    assertThat(raw(u)).isEmpty();
  }

  @Test
  void missingClusterIsReportedAndConvergesWhenItAppears() {
    String u = "ivy-" + ns;
    k8s.resource(tenant(ns, "ivy", "later", user(u), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"))).create();
    awaitReason("ivy", "ClusterNotFound");
    assertThat(condition("ivy", "Ready").getMessage()).contains("'later'");
    assertThat(HBaseQuotas.user(u)).isEmpty();
    k8s.resource(cluster(ns, "later", StandaloneHBase.shared().connectionSpec(), "2s")).create();
    awaitReady("ivy");
    assertThat(HBaseQuotas.user(u)).isEqualTo(Map.of("REQUEST_NUMBER", "10req/sec"));
  }

  @Test
  void retainPolicyLeavesThrottlesAndDeletionToleratesAlreadyGone() {
    String u1 = "jack-" + ns;
    String u2 = "kate-" + ns;
    TenantQuota keep = tenant(ns, "keep", "hb", user(u1), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"));
    keep.getSpec().setDeletionPolicy(TenantQuotaSpec.DeletionPolicy.Retain);
    k8s.resource(keep).create();
    k8s.resource(tenant(ns, "gone", "hb", user(u2), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"))).create();
    awaitReady("keep");
    awaitReady("gone");
    // someone already removed it in HBase; deletion must still complete
    HBaseQuotas.set(QuotaSettingsFactory.unthrottleUser(u2));
    k8s.resource(get("gone")).delete();
    k8s.resource(get("keep")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("gone") == null && get("keep") == null);
    assertThat(HBaseQuotas.user(u1)).isEqualTo(Map.of("REQUEST_NUMBER", "10req/sec"));
    assertThat(HBaseQuotas.user(u2)).isEmpty();
    HBaseQuotas.set(QuotaSettingsFactory.unthrottleUser(u1));
  }

  @Test
  void removingAUsersLastGlobalThrottleKeepsItsPerTableThrottles() throws Exception {
    String u = "liam-" + ns;
    k8s.resource(tenant(ns, "global", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"))).create();
    k8s.resource(tenant(ns, "per-table", "hb", userTable(u, "usertable"), t(ThrottleKind.READ_NUMBER, "20req/sec"))).create();
    awaitReady("global");
    awaitReady("per-table");
    assertThat(HBaseQuotas.of(u, null, "usertable")).isEqualTo(Map.of("READ_NUMBER", "20req/sec"));
    // HBase deletes the whole user row (per-table settings included) with the last global throttle
    k8s.resource(get("global")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("global") == null);
    await().atMost(15, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(HBaseQuotas.user(u)).isEmpty();
      assertThat(HBaseQuotas.of(u, null, "usertable")).isEqualTo(Map.of("READ_NUMBER", "20req/sec"));
    });
    assertThat(get("per-table").getStatus().getDriftCorrections()).isNull();
  }

  @Test
  void unmanagedQuotasAreLeftAloneByDefaultAndRemovedOnRequest() {
    String keep = "unmanaged-keep-" + ns;
    String drop = "unmanaged-drop-" + ns;
    HBaseQuotas.set(QuotaSettingsFactory.throttleUser(keep, ThrottleType.REQUEST_NUMBER, 5, TimeUnit.SECONDS));
    HBaseQuotas.set(QuotaSettingsFactory.throttleUser(drop, ThrottleType.REQUEST_NUMBER, 5, TimeUnit.SECONDS));
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
      HBaseCluster c = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb").get();
      assertThat(c.getStatus().getUnmanagedQuotas()).isGreaterThanOrEqualTo(2);
    });
    assertThat(HBaseQuotas.user(drop)).isNotEmpty();
    // a second cluster resource for the same HBase with removal on, ignoring everything but our target
    HBaseCluster remover = removerOnlyOf("unmanaged", drop);
    await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(HBaseQuotas.user(drop))
        .as(KubeApi::removalPicture).isEmpty());
    assertThat(HBaseQuotas.user(keep)).isNotEmpty();
    k8s.resource(remover).delete();
    HBaseQuotas.set(QuotaSettingsFactory.unthrottleUser(keep));
  }

  @Test
  void deletionWaitsForAnUnreachableClusterUntilReleasedByAnnotation() {
    // a cluster resource of its own, so that moving it away does not disturb the other tests
    k8s.resource(cluster(ns, "breakable", StandaloneHBase.shared().connectionSpec(), "2s")).create();
    KubeApi.awaitClusterReady(ns, "breakable");
    String u = "mona-" + ns;
    k8s.resource(tenant(ns, "mona", "breakable", user(u), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"))).create();
    awaitReady("mona");
    String nothingListens = "localhost:" + StandaloneHBase.freePort();
    io.hbaseqos.operator.support.Resources.editCluster(k8s, ns, "breakable",
        c -> c.getSpec().getConnection().setZookeeperQuorum(nothingListens));
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> assertThat(k8s.resources(HBaseCluster.class)
        .inNamespace(ns).withName("breakable").get().getStatus().condition("Reachable").get().getStatus())
        .isEqualTo("False"));
    k8s.resource(get("mona")).delete();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(events("mona")).as(() -> "resource: " + (get("mona") == null ? "gone"
            : get("mona").getMetadata().getFinalizers() + " deleting=" + get("mona").getMetadata().getDeletionTimestamp())
            + " HBase: " + HBaseQuotas.user(u))
            .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("CleanupFailed")));
    assertThat(get("mona")).as("kept by its finalizer while HBase cannot be cleaned").isNotNull();
    // retried, but an Event whose count grows, not an Event per retry
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      List<Event> failed = events("mona").stream().filter(e -> "CleanupFailed".equals(e.getReason())).toList();
      assertThat(failed.stream().map(Event::getMessage).distinct().count()).as("one Event per message")
          .isEqualTo(failed.size());
      assertThat(failed).anySatisfy(e -> assertThat(e.getCount()).isGreaterThanOrEqualTo(2));
    });
    io.hbaseqos.operator.support.Resources.edit(k8s, TenantQuota.class, ns, "mona",
        tq -> tq.getMetadata().setAnnotations(Map.of("hbaseqos.io/skip-cleanup", "true")));
    await().atMost(60, TimeUnit.SECONDS).until(() -> get("mona") == null);
    assertThat(HBaseQuotas.user(u)).as("released without touching HBase").isEqualTo(Map.of("REQUEST_NUMBER", "10req/sec"));
    HBaseQuotas.set(QuotaSettingsFactory.unthrottleUser(u));
  }

  static Map<String, String> raw(String marker) {
    return QuotaTableRaw.read(StandaloneHBase.shared(), marker);
  }

  static List<String> listedUsers() throws Exception {
    try (var admin = StandaloneHBase.shared().admin()) {
      return admin.getQuota(new org.apache.hadoop.hbase.quotas.QuotaFilter()).stream()
          .map(q -> q.getUserName()).filter(java.util.Objects::nonNull).toList();
    }
  }

  @Test
  void deletingABypassTenantLeavesNoRowThatHidesOthers() throws Exception {
    String bypassed = "a0-bypass-" + ns;
    String later = "zz-later-" + ns;
    TenantQuota b = tenant(ns, "bypass", "hb", user(bypassed));
    b.getSpec().setBypassGlobals(true);
    k8s.resource(b).create();
    k8s.resource(tenant(ns, "later", "hb", user(later), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"))).create();
    awaitReady("bypass");
    awaitReady("later");
    assertThat(raw(bypassed)).isEqualTo(Map.of("u." + bypassed + " q:s", "bypass=true"));
    k8s.resource(get("bypass")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("bypass") == null);
    assertThat(raw(bypassed)).as("no bypass_globals=false cell left behind").isEmpty();
    assertThat(listedUsers()).as("HBase's own listing (list_quotas) still reaches the rows after it").contains(later);
    Thread.sleep(5_000); // two resyncs
    assertThat(get("later").getStatus().getDriftCorrections()).as("no false drift").isNull();
  }

  @Test
  void anEmptyCellLeftBehindOutsideTheOperatorIsRemovedByTheResync() throws Exception {
    String u = "a0-empty-" + ns;
    HBaseQuotas.set(QuotaSettingsFactory.bypassGlobals(u, true));
    HBaseQuotas.set(QuotaSettingsFactory.bypassGlobals(u, false));
    assertThat(raw(u)).as("what the HBase shell leaves: a row that holds nothing")
        .isEqualTo(Map.of("u." + u + " q:s", "bypass=false"));
    double before = operator.count("hbaseqos.empty.rows.removed");
    await().atMost(20, TimeUnit.SECONDS).until(() -> raw(u).isEmpty());
    assertThat(operator.count("hbaseqos.empty.rows.removed"))
        .isGreaterThan(before);
  }

  @Test
  void changingAUsersOnlyGlobalThrottleTypeKeepsItsPerTableThrottlesAtEveryMoment() throws Exception {
    String u = "nora-" + ns;
    k8s.resource(tenant(ns, "global", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"))).create();
    k8s.resource(tenant(ns, "per-table", "hb", userTable(u, "usertable"), t(ThrottleKind.READ_NUMBER, "20req/sec"))).create();
    awaitReady("global");
    awaitReady("per-table");
    String perTable = "u." + u + " q:s.usertable";
    assertThat(raw(u)).containsEntry(perTable, "read_num=20/SECONDS");
    java.util.concurrent.atomic.AtomicBoolean watching = new java.util.concurrent.atomic.AtomicBoolean(true);
    java.util.concurrent.atomic.AtomicInteger missing = new java.util.concurrent.atomic.AtomicInteger();
    Thread watcher = new Thread(() -> {
      while (watching.get()) {
        if (!raw(u).containsKey(perTable)) {
          missing.incrementAndGet();
        }
      }
    });
    watcher.start();
    io.hbaseqos.operator.support.Resources.edit(k8s, TenantQuota.class, ns, "global",
        g -> g.getSpec().setThrottles(List.of(t(ThrottleKind.WRITE_NUMBER, "10req/sec"))));
    await().atMost(30, TimeUnit.SECONDS).until(() -> "write_num=10/SECONDS".equals(raw(u).get("u." + u + " q:s")));
    awaitReady("global");
    Thread.sleep(3_000);
    watching.set(false);
    watcher.join();
    assertThat(missing.get()).as("reads that found the per-table throttle gone").isZero();
    assertThat(raw(u)).isEqualTo(Map.of("u." + u + " q:s", "write_num=10/SECONDS", perTable, "read_num=20/SECONDS"));
    assertThat(get("per-table").getStatus().getDriftCorrections()).isNull();
  }

  @Test
  void deletionRemovesWhatHBaseHoldsNowAndKeepsCellsOfOtherSubjects() {
    String u = "olga-" + ns;
    k8s.resource(tenant(ns, "olga", "hb", user(u), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"))).create();
    awaitReady("olga");
    // set outside, by hand, on an unmanaged per-table subject of the same user
    HBaseQuotas.set(QuotaSettingsFactory.throttleUser(u, TableName.valueOf("usertable"), ThrottleType.WRITE_NUMBER, 4,
        TimeUnit.SECONDS));
    // a type added outside just now, which no resync has seen, then the deletion at once
    HBaseQuotas.set(QuotaSettingsFactory.throttleUser(u, ThrottleType.READ_NUMBER, 7, TimeUnit.SECONDS));
    k8s.resource(get("olga")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("olga") == null);
    assertThat(raw(u)).as("the subject's own cell gone whatever it held; the per-table cell, not the tenant's, kept")
        .isEqualTo(Map.of("u." + u + " q:s.usertable", "write_num=4/SECONDS"));
    HBaseQuotas.set(QuotaSettingsFactory.unthrottleUser(u, TableName.valueOf("usertable")));
  }

  @Test
  void aRetainedQuotaIsNotRemovedAsUnmanaged() {
    String kept = "pia-" + ns;
    String stray = "quinn-" + ns;
    TenantQuota keep = tenant(ns, "keep", "hb", user(kept), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"));
    keep.getSpec().setDeletionPolicy(TenantQuotaSpec.DeletionPolicy.Retain);
    k8s.resource(keep).create();
    awaitReady("keep");
    k8s.resource(get("keep")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("keep") == null);
    removeUnmanagedOfThisCaseAndAwait(stray);
    assertThat(raw(kept)).as("kept by deletionPolicy: Retain, recorded in the operator's namespace")
        .isEqualTo(Map.of("u." + kept + " q:s", "req_num=10/SECONDS"));
    assertThat(retainedRecord()).containsValue("user=" + kept);
    HBaseQuotas.set(QuotaSettingsFactory.unthrottleUser(kept));
  }

  /**
   * A second HBaseCluster for the shared HBase, in a namespace of its own, with unmanagedPolicy
   * Remove for one user's quotas only (everything else ignored); created.
   */
  static HBaseCluster removerOnlyOf(String prefix, String user) {
    String ns2 = KubeApi.newNamespace(prefix);
    NAMESPACES.add(ns2);
    HBaseCluster remover = cluster(ns2, "hb", StandaloneHBase.shared().connectionSpec(), "2s");
    remover.getSpec().getQuotas().setUnmanagedPolicy(io.hbaseqos.operator.api.QuotaSettingsSpec.UnmanagedPolicy.Remove);
    remover.getSpec().getQuotas().setUnmanagedInclude(List.of("^user=" + user + "$"));
    k8s.resource(remover).create();
    return remover;
  }

  /**
   * Turns on unmanagedPolicy Remove for this case's users only, puts an unmanaged throttle on
   * {@code stray}, and waits until Remove has taken it (so it has run past every other subject).
   */
  void removeUnmanagedOfThisCaseAndAwait(String stray) {
    io.hbaseqos.operator.support.Resources.edit(k8s, HBaseCluster.class, ns, "hb", hc -> {
      hc.getSpec().getQuotas().setUnmanagedPolicy(io.hbaseqos.operator.api.QuotaSettingsSpec.UnmanagedPolicy.Remove);
      hc.getSpec().getQuotas().setUnmanagedInclude(List.of("^user=[^,]*" + ns + "$"));
    });
    HBaseQuotas.set(QuotaSettingsFactory.throttleUser(stray, ThrottleType.REQUEST_NUMBER, 5, TimeUnit.SECONDS));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(raw(stray)).as(KubeApi::removalPicture)
        .isEmpty());
  }

  /** The record of retained subjects for the shared HBase, in the operator's own namespace. */
  static Map<String, String> retainedRecord() {
    String id = k8s.resources(HBaseCluster.class).inAnyNamespace().list().getItems().stream()
        .map(c -> c.getStatus() == null ? null : c.getStatus().getClusterId()).filter(java.util.Objects::nonNull)
        .findFirst().orElseThrow();
    var cm = k8s.configMaps().inNamespace(k8s.getNamespace() == null ? "default" : k8s.getNamespace()).list().getItems()
        .stream().filter(c -> c.getMetadata().getAnnotations() != null
            && id.equals(c.getMetadata().getAnnotations().get("hbaseqos.io/hbase-cluster-id"))).findFirst();
    return cm.map(c -> c.getData() == null ? Map.<String, String>of() : c.getData()).orElse(Map.of());
  }

  /**
   * A namespace holding an HBaseCluster and a Retain tenant is deleted, as a team leaving does: the
   * deletion finishes (a terminating namespace refuses new objects, so the record of what is kept is
   * not written there), the quota stays in HBase, and Remove on another HBaseCluster of that HBase
   * still keeps it after the namespace, its HBaseCluster and their objects are gone.
   */
  @Test
  void aNamespaceWithARetainTenantIsDeletedAndWhatItKeptStaysKeptFromRemove() throws Exception {
    String kept = "rita-" + ns;
    String stray = "sam-" + ns;
    String leaving = KubeApi.newNamespace("leaving");
    k8s.resource(cluster(leaving, "hb", StandaloneHBase.shared().connectionSpec(), "2s")).create();
    KubeApi.awaitClusterReady(leaving, "hb");
    TenantQuota keep = tenant(leaving, "keep", "hb", user(kept), t(ThrottleKind.REQUEST_NUMBER, "10req/sec"));
    keep.getSpec().setDeletionPolicy(TenantQuotaSpec.DeletionPolicy.Retain);
    k8s.resource(keep).create();
    TenantStatus.awaitReady(k8s, leaving, "keep");
    String removed = "rob-" + ns;
    k8s.resource(tenant(leaving, "remove", "hb", user(removed), t(ThrottleKind.REQUEST_NUMBER, "20req/sec"))).create();
    TenantStatus.awaitReady(k8s, leaving, "remove");
    assertThat(raw(removed)).isEqualTo(Map.of("u." + removed + " q:s", "req_num=20/SECONDS"));
    try (var namespaces = io.hbaseqos.operator.support.ControlPlane.namespaceLifecycle()) {
      k8s.namespaces().withName(leaving).delete();
      await().atMost(120, TimeUnit.SECONDS).pollInterval(1, TimeUnit.SECONDS)
          .untilAsserted(() -> assertThat(k8s.namespaces().withName(leaving).get())
              .as("namespace %s deleted", leaving).isNull());
    }
    assertThat(raw(kept)).isEqualTo(Map.of("u." + kept + " q:s", "req_num=10/SECONDS"));
    assertThat(raw(removed)).as("the tenant with the default deletionPolicy cleaned up before its namespace went")
        .isEmpty();
    assertThat(retainedRecord()).containsValue("user=" + kept);
    // an operator restart: the new process knows what was kept only from the record
    operator = operator.restarted();
    // Remove on the HBaseCluster that is left, for this case's users: the stray goes, the kept stays
    removeUnmanagedOfThisCaseAndAwait(stray);
    assertThat(raw(kept)).as("kept: the record outlived the namespace, its HBaseCluster and the operator")
        .isEqualTo(Map.of("u." + kept + " q:s", "req_num=10/SECONDS"));
    HBaseQuotas.set(QuotaSettingsFactory.unthrottleUser(kept));
  }

  /**
   * What docs/operations.md warns of, done: an HBaseCluster waiting for its tenants has its finalizer
   * removed by hand, as people do with objects stuck Terminating. It goes at once; its tenant says
   * ClusterNotFound, the operator stops the gone cluster's resync, and the tenant once deleted leaves
   * its throttle in HBase, unclaimed; an HBaseCluster of the same HBase with unmanagedPolicy Remove
   * (narrowed to that user) takes it out.
   */
  @Test
  void aClusterFinalizerRemovedByHandOrphansItsTenantsQuotasUntilRemoveTakesThem() {
    String orphan = "olga-" + ns;
    k8s.resource(tenant(ns, "orphan", "hb", user(orphan), t(ThrottleKind.REQUEST_NUMBER, "30req/sec"))).create();
    awaitReady("orphan");
    var hb = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("hb");
    hb.delete();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(k8s.v1().events().inNamespace(ns).list()
        .getItems()).anySatisfy(e -> assertThat(e.getReason()).isEqualTo("WaitingForTenants")));
    assertThat(hb.get()).as("held by its finalizer while a tenant references it").isNotNull();
    hb.patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
        io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    await().atMost(30, TimeUnit.SECONDS).until(() -> hb.get() == null);
    awaitReason("orphan", "ClusterNotFound");
    // its cleanup never ran: the operator stops the gone cluster's resync and closes its connection all the same
    String key = ClusterConnections.key(ns, "hb");
    await().atMost(30, TimeUnit.SECONDS).until(() -> operator.core.resync.report(key).isEmpty()
        && operator.core.connections.get(key).isEmpty());
    k8s.resource(get("orphan")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("orphan") == null);
    assertThat(raw(orphan)).as("orphaned in hbase:quota, as the docs say")
        .isEqualTo(Map.of("u." + orphan + " q:s", "req_num=30/SECONDS"));
    HBaseCluster remover = removerOnlyOf("orphan", orphan);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(raw(orphan)).as(KubeApi::removalPicture)
        .isEmpty());
    k8s.resource(remover).delete();
  }

  /**
   * HBase's master removes a table's throttles when the table is dropped. That is reported as such,
   * never as drift: dropped and created again between two resyncs (restored, the new regions named),
   * or dropped and still missing (the throttles are written again and wait for the table).
   */
  @Test
  void aDroppedTableIsReportedAndItsThrottlesWaitForItNeverCountingAsDrift() throws Exception {
    TableName tn = TableName.valueOf("dropped_" + ns.replace('-', '_'));
    // a cluster resource that resyncs once now, then not for ten minutes: the drop and the new table
    // both happen before it looks again
    k8s.resource(cluster(ns, "slow", StandaloneHBase.shared().connectionSpec(), "10m")).create();
    KubeApi.awaitClusterReady(ns, "slow");
    createTable(tn);
    k8s.resource(tenant(ns, "tbl", "slow", table(tn.getNameAsString()), t(ThrottleKind.REQUEST_NUMBER, "10req/sec")))
        .create();
    awaitReady("tbl");
    Map<String, String> held = Map.of("REQUEST_NUMBER", "10req/sec");
    assertThat(HBaseQuotas.of(null, null, tn.getNameAsString())).isEqualTo(held);
    dropTable(tn);
    await().atMost(30, TimeUnit.SECONDS).until(() -> HBaseQuotas.of(null, null, tn.getNameAsString()).isEmpty());
    createTable(tn);
    io.hbaseqos.operator.support.Resources.edit(k8s, HBaseCluster.class, ns, "slow", hc -> {
      hc.getSpec().getQuotas().setResyncPeriod("2s"); // looks now
    });
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(events("tbl")).anySatisfy(e -> {
          assertThat(e.getReason()).isEqualTo("TableRecreated");
          assertThat(e.getMessage()).contains("dropped and created again", "REQUEST_NUMBER=10req/sec");
        }));
    assertThat(HBaseQuotas.of(null, null, tn.getNameAsString())).isEqualTo(held);
    assertThat(get("tbl").getStatus().getDriftCorrections()).as("not drift").isNull();

    // dropped, and not back
    dropTable(tn);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(events("tbl")).anySatisfy(e -> {
          assertThat(e.getReason()).isEqualTo("TableDropped");
          assertThat(e.getMessage()).contains("does not exist in HBase", "apply as soon as");
        }));
    assertThat(HBaseQuotas.of(null, null, tn.getNameAsString())).as("waiting in hbase:quota for the table")
        .isEqualTo(held);
    assertThat(condition("tbl", "Synced").getReason()).isEqualTo("TableDropped");
    assertThat(get("tbl").getStatus().getDriftCorrections()).as("not drift").isNull();
    k8s.resource(get("tbl")).delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> get("tbl") == null);
  }

  static void createTable(TableName tn) throws Exception {
    try (var admin = StandaloneHBase.shared().admin()) {
      admin.createTable(org.apache.hadoop.hbase.client.TableDescriptorBuilder.newBuilder(tn)
          .setColumnFamily(org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder.of("f")).build());
    }
  }

  static void dropTable(TableName tn) throws Exception {
    try (var admin = StandaloneHBase.shared().admin()) {
      admin.disableTable(tn);
      admin.deleteTable(tn);
    }
  }

  @Test
  void tableNamesAreNormalised() {
    k8s.resource(tenant(ns, "plain", "hb", table("plain_" + ns.replace('-', '_')),
        t(ThrottleKind.REQUEST_NUMBER, "10req/sec"))).create();
    awaitReady("plain");
    assertThat(get("plain").getStatus().getSubject()).isEqualTo("table=default:plain_" + ns.replace('-', '_'));
    assertThat(HBaseQuotas.of(null, null, TableName.valueOf("plain_" + ns.replace('-', '_')).getNameAsString()))
        .isEqualTo(Map.of("REQUEST_NUMBER", "10req/sec"));
  }
}
