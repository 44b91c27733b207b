package io.hbaseqos.operator.ownership;

import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.quota.Subject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Which TenantQuota owns which subject, keyed by the HBase cluster's identity (its cluster id),
 * not by the HBaseCluster resource: two HBaseClusters, in any namespaces, that reach the same HBase
 * share one set of claims. Decisions come only from synced informer caches (TenantQuotas,
 * HBaseClusters and the namespaces whose labels grants select).
 *
 * <ul>
 *   <li>Only a TenantQuota whose namespace is granted its subject ({@link Grants}) claims it: one
 *       in the HBaseCluster's namespace, or one the cluster's tenancy grants name.</li>
 *   <li>Every such TenantQuota whose subject HBase could hold claims it, whether its spec is valid or
 *       not and while it is being deleted: what it may have written is never "unmanaged".</li>
 *   <li>The owner is the oldest live claimant; a claimant being deleted owns the subject only when
 *       no live claimant is left. So a successor takes over the moment the old owner's deletion
 *       starts, and the old owner's cleanup leaves HBase alone: the tenant is never unthrottled in
 *       between, and a crash in between cannot remove the successor's quota.</li>
 *   <li>Destructive decisions about unclaimed subjects wait until both caches have synced and
 *       every HBaseCluster's identity is known ({@link #removalHeld}).</li>
 * </ul>
 */
public final class Ownership {
  public static final String INDEX_CLUSTER = "hbaseqos-cluster";
  public static final String INDEX_SUBJECT = "hbaseqos-subject";

  /** An informer cache as ownership reads it. */
  public interface Cache<T> {
    /** Whether the informer has listed every resource at least once. */
    boolean synced();

    List<T> byIndex(String index, String key);

    Stream<T> list();
  }

  /** The Kubernetes namespaces' labels, which grants may select tenant namespaces by. */
  public interface NamespaceLabels {
    /** Whether every namespace has been listed at least once. */
    boolean synced();

    /** The namespace's labels (empty: it has none); null when the namespace is not known. */
    Map<String, String> of(String namespace);
  }

  private final Function<String, String> identityOf;
  private volatile Cache<TenantQuota> tenants;
  private volatile Cache<HBaseCluster> clusters;
  private volatile NamespaceLabels namespaces;

  /** @param identityOf HBaseCluster key to the identity of the HBase it reaches, or null while unknown */
  public Ownership(Function<String, String> identityOf) {
    this.identityOf = identityOf;
  }

  public void bindTenants(Cache<TenantQuota> tenants) {
    this.tenants = tenants;
  }

  public void bindClusters(Cache<HBaseCluster> clusters) {
    this.clusters = clusters;
  }

  public void bindNamespaces(NamespaceLabels namespaces) {
    this.namespaces = namespaces;
  }

  /** The namespace's labels; null when not known (no grant selects it then, whatever its selector). */
  private Map<String, String> labelsOf(String namespace) {
    NamespaceLabels n = namespaces;
    return n == null ? null : n.of(namespace);
  }

  public static String clusterKey(String namespace, String name) {
    return namespace + "/" + name;
  }

  public static String clusterKeyOf(TenantQuota tq) {
    var ref = tq.getSpec() == null ? null : tq.getSpec().getClusterRef();
    return ref == null || ref.getName() == null ? null
        : clusterKey(ref.namespaceFor(tq.getMetadata().getNamespace()), ref.getName());
  }

  /**
   * Why the operator may write nothing for the TenantQuota: its subject is not granted
   * ({@link #notGranted}), or the rest of its spec goes beyond its grants ({@link Grants#specRefusal}:
   * a priority or PromQL not granted, bypassGlobals, a Prometheus URL). Empty when it may.
   */
  public Optional<String> refusal(TenantQuota tq) {
    // specRefusal itself lets the cluster's own namespace have any spec
    return notGranted(tq).or(() -> Optional.ofNullable(clusterKeyOf(tq)).flatMap(this::cluster)
        .flatMap(hc -> Grants.specRefusal(hc, tq.getMetadata().getNamespace(),
            labelsOf(tq.getMetadata().getNamespace()), tq.getSpec())));
  }

  /**
   * Why the TenantQuota's namespace may not name its subject on its HBaseCluster ({@link Grants}),
   * or empty when it may. A TenantQuota whose subject is not granted claims nothing: it can neither
   * write nor hold a subject against the namespace it was granted to. One whose subject is granted
   * keeps its claim while the rest of its spec is refused ({@link #refusal}), so that a grant
   * narrowed on priority or queries never hands its quotas to {@code Remove}.
   */
  public Optional<String> notGranted(TenantQuota tq) {
    String key = clusterKeyOf(tq);
    String ns = tq.getMetadata().getNamespace();
    if (key == null || key.startsWith(ns + "/")) {
      return Optional.empty();
    }
    Subject s = subjectOf(tq);
    return cluster(key).map(hc -> s == null
            ? Optional.of("spec.subject names nothing HBase could hold quotas for: nothing of it is granted")
            : Grants.refusal(hc, ns, labelsOf(ns), s))
        .orElseGet(() -> Optional.of("HBaseCluster " + key + " does not exist"));
  }

  /** The subject a TenantQuota names, if HBase could hold quotas for it (else it can have written nothing). */
  public static Subject subjectOf(TenantQuota tq) {
    var s = tq.getSpec() == null ? null : tq.getSpec().getSubject();
    return s == null ? null : Subject.storable(s.getUser(), s.getNamespace(), s.getTable());
  }

  private static String subjectKeyOf(TenantQuota tq) {
    String c = clusterKeyOf(tq);
    Subject s = subjectOf(tq);
    return c == null || s == null ? null : c + "|" + s;
  }

  /** Indexers to register on the TenantQuota informer. */
  public static Map<String, Function<TenantQuota, List<String>>> indexers() {
    return Map.of(
        INDEX_CLUSTER, tq -> Optional.ofNullable(clusterKeyOf(tq)).map(List::of).orElse(List.of()),
        INDEX_SUBJECT, tq -> Optional.ofNullable(subjectKeyOf(tq)).map(List::of).orElse(List.of()));
  }

  /** The HBaseCluster resource of a key, from the informer cache. */
  public Optional<HBaseCluster> cluster(String clusterKey) {
    Cache<HBaseCluster> c = clusters;
    return c == null ? Optional.empty() : c.list()
        .filter(hc -> clusterKey(hc.getMetadata().getNamespace(), hc.getMetadata().getName()).equals(clusterKey))
        .findFirst();
  }

  /**
   * Whether the HBaseCluster of a key is known to be gone: every HBaseCluster has been read from the
   * API server and none has that key (false while they are being read).
   */
  public boolean clusterGone(String clusterKey) {
    Cache<HBaseCluster> c = clusters;
    return c != null && c.synced() && cluster(clusterKey).isEmpty();
  }

  /** The TenantQuotas referencing one HBaseCluster. */
  public List<TenantQuota> tenantsOf(String clusterKey) {
    Cache<TenantQuota> t = tenants;
    return t == null ? List.of() : t.byIndex(INDEX_CLUSTER, clusterKey);
  }

  /**
   * The identity of the HBase a cluster key reaches: what its connection answered, else the last
   * identity recorded in its status. So a cluster that is unreachable now, or not yet reached
   * after a restart, still shares claims with the HBase it wrote to and does not hold removal
   * everywhere; only a cluster never reached at all is unknown.
   */
  public String hbaseIdentity(String clusterKey) {
    return identity(clusterKey);
  }

  String identity(String clusterKey) {
    String live = identityOf.apply(clusterKey);
    if (live != null) {
      return live;
    }
    return cluster(clusterKey).map(HBaseCluster::getStatus).map(st -> st.getClusterId())
        .filter(id -> !id.isBlank()).orElse(null);
  }

  /** The keys of the HBaseClusters that reach the same HBase as this one (itself first). */
  public List<String> sameHBase(String clusterKey) {
    List<String> keys = new ArrayList<>(List.of(clusterKey));
    String id = identity(clusterKey);
    Cache<HBaseCluster> c = clusters;
    if (id != null && c != null) {
      c.list().map(hc -> clusterKey(hc.getMetadata().getNamespace(), hc.getMetadata().getName()))
          .filter(k -> !k.equals(clusterKey) && id.equals(identity(k))).sorted().forEach(keys::add);
    }
    return keys;
  }

  /** Owner first: live claimants oldest first, then those being deleted. */
  static final Comparator<TenantQuota> ORDER = Comparator
      .<TenantQuota, Boolean>comparing(t -> t.getMetadata().getDeletionTimestamp() != null)
      .thenComparing(t -> Instant.parse(t.getMetadata().getCreationTimestamp()))
      .thenComparing(t -> t.getMetadata().getNamespace())
      .thenComparing(t -> t.getMetadata().getName());

  /** The claimants of a subject on the HBase that {@code clusterKey} reaches, owner first. */
  public List<TenantQuota> claimants(String clusterKey, Subject subject) {
    Cache<TenantQuota> t = tenants;
    if (t == null) {
      return List.of();
    }
    Map<String, TenantQuota> byUid = new LinkedHashMap<>();
    for (String k : sameHBase(clusterKey)) {
      t.byIndex(INDEX_SUBJECT, k + "|" + subject).stream().filter(tq -> notGranted(tq).isEmpty())
          .forEach(tq -> byUid.put(tq.getMetadata().getUid(), tq));
    }
    return byUid.values().stream().sorted(ORDER).toList();
  }

  /** The claimants of the TenantQuota's own subject (itself included), owner first. */
  public List<TenantQuota> claimants(TenantQuota tq) {
    Subject s = subjectOf(tq);
    String c = clusterKeyOf(tq);
    if (s == null || c == null) {
      return List.of(tq);
    }
    List<TenantQuota> list = claimants(c, s);
    if (list.stream().noneMatch(o -> o.getMetadata().getUid().equals(tq.getMetadata().getUid()))) {
      List<TenantQuota> with = new ArrayList<>(list);
      with.add(tq); // the cache may not show it yet
      return with.stream().sorted(ORDER).toList();
    }
    return list;
  }

  /** Whether the TenantQuota may write its subject: granted, and its oldest live claimant. */
  public boolean owns(TenantQuota tq) {
    return notGranted(tq).isEmpty() && Objects.equals(claimants(tq).get(0).getMetadata().getUid(), tq.getMetadata().getUid());
  }

  /** Every subject claimed on the HBase that {@code clusterKey} reaches, by any HBaseCluster's TenantQuotas. */
  public Set<Subject> claimed(String clusterKey) {
    Set<Subject> claimed = new HashSet<>();
    for (String k : sameHBase(clusterKey)) {
      for (TenantQuota tq : tenantsOf(k)) {
        Subject s = subjectOf(tq);
        if (s != null && notGranted(tq).isEmpty()) {
          claimed.add(s);
        }
      }
    }
    return claimed;
  }

  /**
   * Why quotas of this HBase that nobody claims must not be removed now, or empty when they may
   * be: every TenantQuota, HBaseCluster and namespace (whose labels grants select) has been
   * listed, and every HBaseCluster's HBase has answered (an unreached one might be this same HBase,
   * its TenantQuotas claimants here).
   */
  public Optional<String> removalHeld(String clusterKey) {
    Cache<TenantQuota> t = tenants;
    Cache<HBaseCluster> c = clusters;
    NamespaceLabels n = namespaces;
    if (t == null || !t.synced()) {
      return Optional.of("the TenantQuotas have not all been read from the API server yet");
    }
    if (c == null || !c.synced()) {
      return Optional.of("the HBaseClusters have not all been read from the API server yet");
    }
    if (n == null || !n.synced()) {
      return Optional.of("the namespaces (whose labels grants select) have not all been read from the API server yet");
    }
    if (identityOf.apply(clusterKey) == null) {
      return Optional.of("this cluster has not answered yet");
    }
    return c.list().map(hc -> clusterKey(hc.getMetadata().getNamespace(), hc.getMetadata().getName()))
        .filter(k -> identity(k) == null).sorted().findFirst()
        .map(k -> "HBaseCluster " + k + " has never been reached; it may be this same HBase, and its "
            + "TenantQuotas claimants here");
  }
}
