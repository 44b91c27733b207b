package io.hbaseqos.operator.ownership;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.hbaseqos.operator.api.ClusterRef;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.HBaseClusterStatus;
import io.hbaseqos.operator.api.QuotaSubject;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.quota.Subject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class OwnershipTest {

  /** An informer cache over a list, indexed the way the operator registers it. */
  static final class ListCache<T> implements Ownership.Cache<T> {
    final List<T> items = new ArrayList<>();
    final Map<String, java.util.function.Function<T, List<String>>> indexers;
    boolean synced = true;

    ListCache(Map<String, java.util.function.Function<T, List<String>>> indexers) {
      this.indexers = indexers;
    }

    @Override
    public boolean synced() {
      return synced;
    }

    @Override
    public List<T> byIndex(String index, String key) {
      return items.stream().filter(t -> indexers.get(index).apply(t).contains(key)).toList();
    }

    @Override
    public Stream<T> list() {
      return items.stream();
    }
  }

  final Map<String, String> live = new HashMap<>();
  final Ownership ownership = new Ownership(live::get);
  final ListCache<TenantQuota> tenants = new ListCache<>(Ownership.indexers());
  final ListCache<HBaseCluster> clusters = new ListCache<>(Map.of());
  /** Namespace name to labels. */
  final Map<String, Map<String, String>> labels = new HashMap<>();
  boolean namespacesSynced = true;

  OwnershipTest() {
    ownership.bindTenants(tenants);
    ownership.bindClusters(clusters);
    ownership.bindNamespaces(new Ownership.NamespaceLabels() {
      @Override
      public boolean synced() {
        return namespacesSynced;
      }

      @Override
      public Map<String, String> of(String namespace) {
        return labels.getOrDefault(namespace, Map.of());
      }
    });
  }

  static TenantQuota tenant(String ns, String name, String cluster, String user, String created, boolean deleting) {
    TenantQuota tq = new TenantQuota();
    tq.setMetadata(new ObjectMetaBuilder().withNamespace(ns).withName(name).withUid(ns + "-" + name)
        .withCreationTimestamp(created).withDeletionTimestamp(deleting ? "2026-01-02T00:00:00Z" : null).build());
    TenantQuotaSpec spec = new TenantQuotaSpec();
    ClusterRef ref = new ClusterRef();
    ref.setName(cluster);
    spec.setClusterRef(ref);
    QuotaSubject s = new QuotaSubject();
    s.setUser(user);
    spec.setSubject(s);
    tq.setSpec(spec);
    return tq;
  }

  HBaseCluster cluster(String ns, String name, String statusId) {
    HBaseCluster hc = new HBaseCluster();
    hc.setMetadata(new ObjectMetaBuilder().withNamespace(ns).withName(name).build());
    HBaseClusterStatus st = new HBaseClusterStatus();
    st.setClusterId(statusId);
    hc.setStatus(st);
    clusters.items.add(hc);
    return hc;
  }

  @Test
  void aNamespaceThatIsNotGrantedTheSubjectClaimsNothingSoItCannotPreClaimIt() {
    HBaseCluster hc = cluster("platform", "hb", null);
    hc.setSpec(GrantsTest.cluster(new io.hbaseqos.operator.api.TenantGrant(List.of("team-b"), List.of("bob"), null,
        null)).getSpec());
    live.put("platform/hb", "id-1");
    TenantQuota early = tenant("team-a", "grab", "hb", "bob", "2026-01-01T00:00:00Z", false);
    early.getSpec().getClusterRef().setNamespace("platform");
    TenantQuota granted = tenant("team-b", "mine", "hb", "bob", "2026-01-01T00:00:05Z", false);
    granted.getSpec().getClusterRef().setNamespace("platform");
    TenantQuota platform = tenant("platform", "legacy", "hb", "carol", "2026-01-01T00:00:00Z", false);
    tenants.items.addAll(List.of(early, granted, platform));
    assertThat(Ownership.clusterKeyOf(early)).isEqualTo("platform/hb");
    assertThat(ownership.notGranted(early)).get().asString().contains("namespace team-a is not granted");
    assertThat(ownership.owns(early)).isFalse();
    assertThat(ownership.owns(granted)).as("the older TenantQuota of a namespace without the grant is no claimant")
        .isTrue();
    assertThat(ownership.claimants(granted)).extracting(t -> t.getMetadata().getUid()).containsExactly("team-b-mine");
    assertThat(ownership.owns(platform)).as("the cluster's own namespace may name any subject").isTrue();
    assertThat(ownership.claimed("platform/hb")).containsExactlyInAnyOrder(Subject.user("bob"), Subject.user("carol"));

    // a subject HBase could not hold (a table name longer than HBase allows) is granted nothing either
    TenantQuota odd = tenant("team-b", "odd", "hb", null, "2026-01-01T00:00:00Z", false);
    odd.getSpec().getClusterRef().setNamespace("platform");
    odd.getSpec().getSubject().setTable("t" + "x".repeat(300));
    assertThat(Ownership.subjectOf(odd)).isNull();
    assertThat(ownership.notGranted(odd)).get().asString().contains("nothing HBase could hold");
    assertThat(ownership.owns(odd)).isFalse();
  }

  /** A grant by labels follows the namespace's labels: the claim comes and goes with them. */
  @Test
  void aNamespaceSelectedByItsLabelsClaimsWhileItCarriesThem() {
    HBaseCluster hc = cluster("platform", "hb", null);
    io.hbaseqos.operator.api.TenantGrant byLabel = new io.hbaseqos.operator.api.TenantGrant(List.of(),
        List.of("gold_*"), null, null);
    byLabel.setFromNamespaceSelector(new io.hbaseqos.operator.api.NamespaceSelector(Map.of("tier", "gold"), null));
    hc.setSpec(GrantsTest.cluster(byLabel).getSpec());
    live.put("platform/hb", "id-1");
    TenantQuota t = tenant("team-g", "svc", "hb", "gold_svc", "2026-01-01T00:00:00Z", false);
    t.getSpec().getClusterRef().setNamespace("platform");
    tenants.items.add(t);
    assertThat(ownership.owns(t)).as("no labels yet").isFalse();
    assertThat(ownership.notGranted(t)).get().asString().contains("selects its labels");
    labels.put("team-g", Map.of("tier", "gold"));
    assertThat(ownership.owns(t)).isTrue();
    assertThat(ownership.claimed("platform/hb")).containsExactly(Subject.user("gold_svc"));
    labels.put("team-g", Map.of("tier", "silver"));
    assertThat(ownership.owns(t)).isFalse();
    assertThat(ownership.claimed("platform/hb")).isEmpty();
  }

  /**
   * A granted subject with a spec beyond its grants (a priority not granted): nothing is written for
   * it, but it keeps its claim, so narrowing a grant never hands its quotas to Remove.
   */
  @Test
  void aSpecBeyondItsGrantsWritesNothingButKeepsItsClaim() {
    HBaseCluster hc = cluster("platform", "hb", null);
    hc.setSpec(GrantsTest.cluster(new io.hbaseqos.operator.api.TenantGrant(List.of("team-b"), List.of("bob"), null,
        null)).getSpec());
    live.put("platform/hb", "id-1");
    TenantQuota loud = tenant("team-b", "loud", "hb", "bob", "2026-01-01T00:00:00Z", false);
    loud.getSpec().getClusterRef().setNamespace("platform");
    loud.getSpec().setQos(GrantsTest.qos(7, false).getQos());
    tenants.items.add(loud);
    assertThat(ownership.notGranted(loud)).isEmpty();
    assertThat(ownership.refusal(loud)).get().asString().startsWith("spec.qos.priority: ");
    assertThat(ownership.owns(loud)).isTrue();
    assertThat(ownership.claimed("platform/hb")).containsExactly(Subject.user("bob"));
    loud.getSpec().getSubject().setUser("carol");
    assertThat(ownership.refusal(loud)).as("a subject not granted comes first").get().asString()
        .contains("user carol");
  }

  @Test
  void theOldestLiveClaimantOwnsAndADeletingOneOnlyWhenNoLiveOneIsLeft() {
    cluster("a", "hb", null);
    live.put("a/hb", "id-1");
    TenantQuota old = tenant("a", "old", "hb", "alice", "2026-01-01T00:00:00Z", true);
    TenantQuota young = tenant("a", "young", "hb", "alice", "2026-01-01T00:00:05Z", false);
    tenants.items.addAll(List.of(old, young));
    assertThat(ownership.owns(young)).as("the successor takes over when the old owner's deletion starts").isTrue();
    assertThat(ownership.owns(old)).isFalse();
    tenants.items.remove(young);
    assertThat(ownership.owns(old)).as("alone, the deleting claimant owns (and cleans up)").isTrue();
  }

  @Test
  void twoClustersOnOneHBaseShareClaimsWhateverTheirNamespaces() {
    cluster("a", "hb", null);
    cluster("b", "other", null);
    cluster("c", "elsewhere", null);
    live.put("a/hb", "id-1");
    live.put("b/other", "id-1");
    live.put("c/elsewhere", "id-2");
    TenantQuota first = tenant("a", "t", "hb", "alice", "2026-01-01T00:00:00Z", false);
    TenantQuota second = tenant("b", "t", "other", "alice", "2026-01-01T00:00:01Z", false);
    TenantQuota third = tenant("c", "t", "elsewhere", "alice", "2026-01-01T00:00:00Z", false);
    tenants.items.addAll(List.of(first, second, third));
    assertThat(ownership.claimants(second)).extracting(t -> t.getMetadata().getUid()).containsExactly("a-t", "b-t");
    assertThat(ownership.owns(first)).isTrue();
    assertThat(ownership.owns(second)).isFalse();
    assertThat(ownership.owns(third)).as("a different HBase").isTrue();
    assertThat(ownership.claimed("b/other")).containsExactly(Subject.user("alice"));
    assertThat(ownership.sameHBase("b/other")).containsExactly("b/other", "a/hb");
  }

  @Test
  void anUnreachableClusterKeepsTheIdentityItLastReportedAndDoesNotHoldRemoval() {
    cluster("a", "hb", null);
    cluster("b", "broken", "id-1");
    live.put("a/hb", "id-1");
    tenants.items.add(tenant("b", "t", "broken", "alice", "2026-01-01T00:00:00Z", false));
    assertThat(ownership.removalHeld("a/hb")).isEmpty();
    assertThat(ownership.claimed("a/hb")).as("its tenants still claim on the HBase they wrote to")
        .containsExactly(Subject.user("alice"));
  }

  @Test
  void removalWaitsForBothCachesAndEveryClusterEverReached() {
    cluster("a", "hb", null);
    cluster("b", "never", null);
    tenants.synced = false;
    assertThat(ownership.removalHeld("a/hb")).get().asString().contains("TenantQuotas");
    tenants.synced = true;
    clusters.synced = false;
    assertThat(ownership.removalHeld("a/hb")).get().asString().contains("HBaseClusters");
    clusters.synced = true;
    namespacesSynced = false;
    assertThat(ownership.removalHeld("a/hb")).get().asString().contains("namespaces (whose labels grants select)");
    namespacesSynced = true;
    assertThat(ownership.removalHeld("a/hb")).get().asString().contains("not answered");
    live.put("a/hb", "id-1");
    assertThat(ownership.removalHeld("a/hb")).get().asString().contains("b/never");
    live.put("b/never", "id-2");
    assertThat(ownership.removalHeld("a/hb")).isEmpty();
  }

  @Test
  void aClusterIsGoneOnlyOnceEveryClusterWasReadAndItIsNotAmongThem() {
    cluster("a", "hb", null);
    clusters.synced = false;
    assertThat(ownership.clusterGone("a/gone")).as("not known while the clusters are being read").isFalse();
    clusters.synced = true;
    assertThat(ownership.clusterGone("a/gone")).isTrue();
    assertThat(ownership.clusterGone("a/hb")).isFalse();
  }

  @Test
  void aSpecThatBecameInvalidStillClaimsItsSubject() {
    cluster("a", "hb", null);
    live.put("a/hb", "id-1");
    TenantQuota tq = tenant("a", "t", "hb", "alice", "2026-01-01T00:00:00Z", false);
    tq.getSpec().setThrottles(null); // no throttles, or any other invalid content
    tenants.items.add(tq);
    assertThat(ownership.claimed("a/hb")).containsExactly(Subject.user("alice"));
  }
}
