package io.hbaseqos.operator.cluster;

import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.QuotaSettingsSpec;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.hbase.BackendFactory;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.quota.DesiredQuotas;
import io.hbaseqos.operator.quota.Durations;
import io.hbaseqos.operator.quota.QuotaDiff;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.reconciler.Conditions;
import io.hbaseqos.operator.reconciler.ResourceTrigger;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * The clusters the operator knows, and one resync loop per cluster: every resync period it reads
 * {@code hbase:quota} once, compares it with every TenantQuota of that cluster in the informer
 * cache, and asks for a reconcile only of those that differ. An idle resync therefore costs one
 * scan and writes nothing.
 */
public class ClusterRegistry implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ClusterRegistry.class);
  public static final String INDEX_CLUSTER = "hbaseqos-cluster";
  public static final String INDEX_SUBJECT = "hbaseqos-subject";

  private final BackendFactory factory;
  private final OperatorMetrics metrics;
  private final Clock clock;
  private final Map<String, ClusterState> clusters = new ConcurrentHashMap<>();
  private final Map<String, Sync> syncs = new ConcurrentHashMap<>();
  private final Set<String> released = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(1, r -> {
    Thread t = new Thread(r, "hbaseqos-resync-timer");
    t.setDaemon(true);
    return t;
  });
  /** Resyncs run here, at most one per cluster at a time, so a slow cluster never delays another. */
  private final java.util.concurrent.ExecutorService workers = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "hbaseqos-resync");
    t.setDaemon(true);
    return t;
  });
  private final Set<String> running = ConcurrentHashMap.newKeySet();

  private volatile IndexerResourceCache<TenantQuota> tenants;
  private volatile ResourceTrigger<TenantQuota> tenantTrigger;
  private volatile ResourceTrigger<HBaseCluster> clusterTrigger;

  private record Sync(Duration period, ScheduledFuture<?> future) {}

  /** Settings the resync loop needs from the HBaseCluster spec. */
  public record SyncPolicy(Duration resyncPeriod, QuotaSettingsSpec.UnmanagedPolicy unmanaged, List<Pattern> ignore) {
    public static SyncPolicy of(QuotaSettingsSpec q) {
      QuotaSettingsSpec s = q == null ? new QuotaSettingsSpec() : q;
      return new SyncPolicy(Durations.parse(s.getResyncPeriod(), Duration.ofSeconds(60)),
          s.getUnmanagedPolicy() == null ? QuotaSettingsSpec.UnmanagedPolicy.Retain : s.getUnmanagedPolicy(),
          s.getUnmanagedIgnore() == null ? List.of() : s.getUnmanagedIgnore().stream().map(Pattern::compile).toList());
    }
  }

  private final Map<String, SyncPolicy> policies = new ConcurrentHashMap<>();

  public ClusterRegistry(BackendFactory factory, OperatorMetrics metrics, Clock clock) {
    this.factory = factory;
    this.metrics = metrics;
    this.clock = clock;
  }

  public static String clusterKey(String namespace, String name) {
    return namespace + "/" + name;
  }

  public static String clusterKeyOf(TenantQuota tq) {
    var ref = tq.getSpec() == null ? null : tq.getSpec().getClusterRef();
    return ref == null || ref.getName() == null ? null : clusterKey(tq.getMetadata().getNamespace(), ref.getName());
  }

  /** Index key of a TenantQuota's subject, or null if its subject is invalid. */
  public static String subjectKeyOf(TenantQuota tq) {
    String c = clusterKeyOf(tq);
    var s = tq.getSpec() == null ? null : tq.getSpec().getSubject();
    if (c == null || s == null || !Subject.validate(s.getUser(), s.getNamespace(), s.getTable(), "s").isEmpty()) {
      return null;
    }
    return c + "|" + DesiredQuotas.subjectOf(s);
  }

  /** Indexers to register on the TenantQuota informer. */
  public static Map<String, Function<TenantQuota, List<String>>> indexers() {
    return Map.of(
        INDEX_CLUSTER, tq -> Optional.ofNullable(clusterKeyOf(tq)).map(List::of).orElse(List.of()),
        INDEX_SUBJECT, tq -> Optional.ofNullable(subjectKeyOf(tq)).map(List::of).orElse(List.of()));
  }

  public void bindTenants(IndexerResourceCache<TenantQuota> cache, ResourceTrigger<TenantQuota> trigger) {
    this.tenants = cache;
    this.tenantTrigger = trigger;
  }

  public void bindClusters(ResourceTrigger<HBaseCluster> trigger) {
    this.clusterTrigger = trigger;
  }

  public Optional<ClusterState> get(String key) {
    return Optional.ofNullable(clusters.get(key));
  }

  /** Registers or updates a cluster and (re)starts its resync loop. */
  public ClusterState upsert(HBaseCluster cluster) {
    String key = clusterKey(cluster.getMetadata().getNamespace(), cluster.getMetadata().getName());
    SyncPolicy policy = SyncPolicy.of(cluster.getSpec().getQuotas());
    // the framework reconciles one HBaseCluster at a time, so get-then-put does not race
    ClusterState state = clusters.get(key);
    if (state == null) {
      state = new ClusterState(key, cluster.getSpec().getConnection(), factory, metrics, clock);
      clusters.put(key, state);
      metrics.clusterUp(key, state::isAvailable);
      tenantsOf(key).forEach(this::triggerTenant); // they may be waiting for this cluster
    } else {
      state.updateConnection(cluster.getSpec().getConnection());
    }
    policies.put(key, policy);
    Sync sync = syncs.get(key);
    if (sync == null || !sync.period().equals(policy.resyncPeriod())) {
      if (sync != null) {
        sync.future().cancel(false);
      }
      long ms = policy.resyncPeriod().toMillis();
      ScheduledFuture<?> f = scheduler.scheduleWithFixedDelay(() -> resyncAsync(key), 0, ms, TimeUnit.MILLISECONDS);
      syncs.put(key, new Sync(policy.resyncPeriod(), f));
    }
    return state;
  }

  public void remove(String key) {
    Sync s = syncs.remove(key);
    if (s != null) {
      s.future().cancel(false);
    }
    policies.remove(key);
    ClusterState state = clusters.remove(key);
    if (state != null) {
      state.close();
    }
    metrics.forgetCluster(key);
    tenantsOf(key).forEach(this::triggerTenant);
  }

  public List<TenantQuota> tenantsOf(String clusterKey) {
    IndexerResourceCache<TenantQuota> c = tenants;
    return c == null ? List.of() : c.byIndex(INDEX_CLUSTER, clusterKey);
  }

  /** The TenantQuotas claiming the same subject, oldest first (the first owns it). */
  public List<TenantQuota> claimants(TenantQuota tq) {
    String key = subjectKeyOf(tq);
    IndexerResourceCache<TenantQuota> c = tenants;
    if (key == null || c == null) {
      return List.of(tq);
    }
    List<TenantQuota> list = c.byIndex(INDEX_SUBJECT, key).stream()
        .filter(o -> !released.contains(o.getMetadata().getUid()))
        .sorted(Comparator.<TenantQuota, Instant>comparing(o -> Instant.parse(o.getMetadata().getCreationTimestamp()))
            .thenComparing(o -> o.getMetadata().getName()))
        .toList();
    return list.isEmpty() ? List.of(tq) : list;
  }

  /** Whether this resource owns its subject: it is the oldest live claimant. */
  public boolean owns(TenantQuota tq) {
    List<TenantQuota> c = claimants(tq);
    return c.isEmpty() || Objects.equals(c.get(0).getMetadata().getUid(), tq.getMetadata().getUid());
  }

  /** Called once a deleted owner's quotas are gone: the next claimant may take over. */
  public void release(TenantQuota tq) {
    released.add(tq.getMetadata().getUid());
    String key = subjectKeyOf(tq);
    IndexerResourceCache<TenantQuota> c = tenants;
    if (key != null && c != null) {
      c.byIndex(INDEX_SUBJECT, key).stream().filter(o -> !o.getMetadata().getUid().equals(tq.getMetadata().getUid()))
          .forEach(this::triggerTenant);
    }
  }

  /** Forget a released uid once its resource is gone from the cache. */
  public void forget(String uid) {
    released.remove(uid);
  }

  public void triggerTenant(TenantQuota tq) {
    ResourceTrigger<TenantQuota> t = tenantTrigger;
    if (t != null) {
      t.trigger(tq);
    }
  }

  public void triggerTenants(Set<Subject> subjects, String clusterKey) {
    if (subjects.isEmpty()) {
      return;
    }
    for (TenantQuota tq : tenantsOf(clusterKey)) {
      var s = tq.getSpec() == null ? null : tq.getSpec().getSubject();
      if (s != null && subjects.contains(DesiredQuotas.subjectOf(s))) {
        triggerTenant(tq);
      }
    }
  }

  private void resyncAsync(String key) {
    if (running.add(key)) {
      try {
        workers.execute(() -> {
          try {
            resync(key);
          } finally {
            running.remove(key);
          }
        });
      } catch (RuntimeException e) {
        running.remove(key);
      }
    }
  }

  /** Runs one resync of a cluster now (also used by tests and benchmarks). */
  public void resync(String key) {
    ClusterState state = clusters.get(key);
    if (state == null) {
      return;
    }
    boolean wasAvailable = state.isAvailable() && state.isLoaded();
    try {
      state.refresh();
      state.describe();
    } catch (IOException e) {
      LOG.debugf("resync of %s failed: %s", key, e.getMessage());
      triggerCluster(key);
      return;
    } catch (RuntimeException e) {
      LOG.warnf(e, "resync of %s failed", key);
      return;
    }
    Map<Subject, SubjectQuota> snapshot = state.snapshot();
    Set<Subject> claimed = new HashSet<>();
    for (TenantQuota tq : tenantsOf(key)) {
      if (tq.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      SubjectQuota desired;
      try {
        desired = DesiredQuotas.from(tq.getSpec());
      } catch (DesiredQuotas.Invalid e) {
        continue; // waits for its spec to be fixed; nothing of it is in HBase
      }
      claimed.add(desired.subject());
      var st = tq.getStatus();
      boolean settled = st != null && Objects.equals(st.getObservedGeneration(), tq.getMetadata().getGeneration())
          && Conditions.isTrue(st, Conditions.READY);
      boolean differs = !QuotaDiff.between(desired, snapshot.getOrDefault(desired.subject(),
          SubjectQuota.empty(desired.subject()))).isEmpty();
      if (!wasAvailable || !settled || (differs && owns(tq))) {
        triggerTenant(tq);
      }
    }
    SyncPolicy policy = policies.get(key);
    if (policy != null && policy.unmanaged() == QuotaSettingsSpec.UnmanagedPolicy.Remove) {
      removeUnmanaged(state, snapshot, claimed, policy);
    }
    triggerCluster(key);
  }

  private void removeUnmanaged(ClusterState state, Map<Subject, SubjectQuota> snapshot, Set<Subject> claimed,
      SyncPolicy policy) {
    for (SubjectQuota q : snapshot.values()) {
      String rendered = q.subject().toString();
      if (claimed.contains(q.subject()) || policy.ignore().stream().anyMatch(p -> p.matcher(rendered).find())) {
        continue;
      }
      try {
        LOG.infof("removing unmanaged quota %s (%s) from %s", rendered, q.describe(), state.id());
        Set<Subject> lost = state.apply(q.subject(), QuotaDiff.removeAll(q));
        triggerTenants(lost, state.id());
      } catch (IOException e) {
        LOG.warnf("could not remove unmanaged quota %s: %s", rendered, e.getMessage());
        return;
      }
    }
  }

  /** Counts for the HBaseCluster status: subjects owned by a TenantQuota, and the rest. */
  public int[] managedAndUnmanaged(String key) {
    ClusterState state = clusters.get(key);
    if (state == null || !state.isLoaded()) {
      return null;
    }
    Set<Subject> claimed = new HashSet<>();
    for (TenantQuota tq : tenantsOf(key)) {
      var s = tq.getSpec() == null ? null : tq.getSpec().getSubject();
      if (s != null && subjectKeyOf(tq) != null) {
        claimed.add(DesiredQuotas.subjectOf(s));
      }
    }
    int managed = 0;
    int unmanaged = 0;
    for (Subject s : state.snapshot().keySet()) {
      if (claimed.contains(s)) {
        managed++;
      } else {
        unmanaged++;
      }
    }
    return new int[] {managed, unmanaged};
  }

  private void triggerCluster(String key) {
    ResourceTrigger<HBaseCluster> t = clusterTrigger;
    if (t != null) {
      int i = key.indexOf('/');
      t.trigger(new ResourceID(key.substring(i + 1), key.substring(0, i)));
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    workers.shutdownNow();
    clusters.values().forEach(ClusterState::close);
    clusters.clear();
  }
}
