package io.hbaseqos.operator.reconciler;

import io.hbaseqos.operator.api.AppliedThrottle;
import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.api.DesiredQuotas;
import io.hbaseqos.operator.api.DryRunStatus;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.NamespaceStatus;
import io.hbaseqos.operator.api.QuotaSettingsSpec;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.usage.DryRunPrediction;
import io.hbaseqos.operator.usage.UsageReport;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.TenantQuotaStatus;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.cluster.ClusterState;
import io.hbaseqos.operator.cluster.ClusterUnavailableException;
import io.hbaseqos.operator.cluster.Errors;
import io.hbaseqos.operator.cluster.RefreshPeriodCheck;
import io.hbaseqos.operator.gateway.ClusterMetrics;
import io.hbaseqos.operator.limit.Decision;
import io.hbaseqos.operator.limit.Tenant;
import io.hbaseqos.operator.limit.TenantLimits;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.ownership.Ownership;
import io.hbaseqos.operator.ownership.RetainedSubjects;
import io.hbaseqos.operator.quota.Durations;
import io.hbaseqos.operator.quota.HBaseVersion;
import io.hbaseqos.operator.quota.NamespaceLimits;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.sync.NamespaceSync;
import io.hbaseqos.operator.sync.QuotaSync;
import io.fabric8.kubernetes.api.model.Namespace;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * Reconciles one TenantQuota into {@code hbase:quota}. It orchestrates and reports; the decisions
 * live elsewhere: the HBaseCluster comes from a synced informer cache, ownership from
 * {@link Ownership}, the writes and HBase's row side effects from {@link QuotaSync}, the limit of a
 * calibrated or protected tenant from {@link TenantLimits}. This class maps their outcomes to status
 * (through {@link StatusAggregator}), conditions, events and metrics.
 */
@ControllerConfiguration(name = TenantQuotaReconciler.NAME,
    maxReconciliationInterval = @MaxReconciliationInterval(interval = 10, timeUnit = TimeUnit.MINUTES))
public class TenantQuotaReconciler implements Reconciler<TenantQuota>, Cleaner<TenantQuota> {
  public static final String NAME = "tenantquota";
  /** Annotation that lets a TenantQuota go without touching HBase (escape for a cluster that is gone for good). */
  public static final String SKIP_CLEANUP_ANNOTATION = "hbaseqos.io/skip-cleanup";
  private static final Logger LOG = Logger.getLogger(TenantQuotaReconciler.class);

  private final ClusterConnections connections;
  private final Ownership ownership;
  private final QuotaSync sync;
  private final RetainedSubjects retained;
  private final Triggers triggers;
  private final EventRecorder events;
  private final OperatorMetrics metrics;
  private final Clock clock;
  private final TenantLimits limits;

  @Inject
  public TenantQuotaReconciler(ClusterConnections connections, Ownership ownership, QuotaSync sync,
      RetainedSubjects retained, Triggers triggers, EventRecorder events, OperatorMetrics metrics, Clock clock,
      TenantLimits limits) {
    this.connections = connections;
    this.ownership = ownership;
    this.sync = sync;
    this.retained = retained;
    this.triggers = triggers;
    this.events = events;
    this.metrics = metrics;
    this.clock = clock;
    this.limits = limits;
  }

  /** The tenant as the limit decision sees it. */
  static Tenant tenant(TenantQuota tq, TenantQuotaStatus status) {
    return new Tenant(id(tq), tq.getMetadata().getUid(), Ownership.clusterKeyOf(tq), tq.getSpec(), status);
  }

  static String id(TenantQuota tq) {
    return tq.getMetadata().getNamespace() + "/" + tq.getMetadata().getName();
  }

  /**
   * The cluster's QoS tenants, as the decision's {@link TenantLimits.Peers}: claimed by their
   * owner, not being deleted, with a priority; their status as cached.
   */
  public static TenantLimits.Peers peers(Ownership ownership) {
    return new TenantLimits.Peers() {
      @Override
      public List<Tenant> qosTenants(String clusterKey) {
        return ownership.tenantsOf(clusterKey).stream()
            .filter(t -> t.getSpec() != null && t.getSpec().getQos() != null
                && t.getSpec().getQos().getPriority() != null && t.getMetadata().getDeletionTimestamp() == null
                && Ownership.subjectOf(t) != null && ownership.owns(t)
                // a priority beyond its grants never makes a tenant a peer of the loops
                && ownership.refusal(t).isEmpty())
            .map(t -> tenant(t, t.getStatus())).toList();
      }

      /** From the HBaseCluster's status: its HBase version and the refresh period its RegionServers run with. */
      @Override
      public Duration quotaInForce(String clusterKey) {
        return ownership.cluster(clusterKey).filter(hc -> hc.getStatus() != null).map(hc -> {
          QuotaSettingsSpec q = hc.getSpec() == null ? null : hc.getSpec().getQuotas();
          Duration declared;
          try {
            declared = Durations.parse(q == null ? null : q.getRefreshPeriod(), QuotaSettingsSpec.DEFAULT_REFRESH);
          } catch (IllegalArgumentException e) {
            declared = QuotaSettingsSpec.DEFAULT_REFRESH;
          }
          return RefreshPeriodCheck.quotaInForceAfter(hc.getStatus().getHbaseVersion(), hc.getStatus().getQuotaRefreshPeriod(),
              declared);
        }).orElse(Duration.ZERO);
      }

      /** From the HBaseCluster's status: whether its HBase version counts refused requests per user. */
      @Override
      public boolean countsRefusals(String clusterKey) {
        return ownership.cluster(clusterKey).filter(hc -> hc.getStatus() != null)
            .map(hc -> HBaseVersion.countsRefusals(hc.getStatus().getHbaseVersion())).orElse(false);
      }
    };
  }

  @Override
  public List<EventSource<?, TenantQuota>> prepareEventSources(EventSourceContext<TenantQuota> context) {
    var tenants = context.getPrimaryCache();
    tenants.addIndexers(Ownership.indexers());
    ownership.bindTenants(Informers.view(tenants));
    // The HBaseCluster a TenantQuota names, from a cache the framework has synced before the first
    // reconcile: "not found" then means not found, also right after a restart.
    InformerEventSource<HBaseCluster, TenantQuota> clusters = new InformerEventSource<>(
        InformerEventSourceConfiguration.from(HBaseCluster.class, TenantQuota.class).withName("hbaseclusters")
            .withSecondaryToPrimaryMapper(hc -> tenants.byIndex(Ownership.INDEX_CLUSTER, ClusterConnections.key(hc))
                .stream().map(ResourceID::fromResource).collect(Collectors.toSet()))
            .withPrimaryToSecondaryMapper((TenantQuota tq) -> tq.getSpec() == null || tq.getSpec().getClusterRef() == null
                ? Set.of() : Set.of(new ResourceID(tq.getSpec().getClusterRef().getName(),
                    tq.getSpec().getClusterRef().namespaceFor(tq.getMetadata().getNamespace()))))
            // status writes of the HBaseCluster concern no tenant; its spec and its deletion do
            .withOnUpdateFilter((now, before) -> !Objects.equals(now.getMetadata().getGeneration(),
                before.getMetadata().getGeneration()) || !Objects.equals(now.getMetadata().getDeletionTimestamp(),
                before.getMetadata().getDeletionTimestamp()))
            .build(), context);
    ownership.bindClusters(Informers.view(clusters));
    // The namespaces' labels, which grants may select tenant namespaces by: a label added or taken
    // away grants or revokes, so it reconciles the namespace's TenantQuotas that name another's cluster.
    InformerEventSource<Namespace, TenantQuota> namespaces = new InformerEventSource<>(
        InformerEventSourceConfiguration.from(Namespace.class, TenantQuota.class).withName("namespaces")
            .withWatchAllNamespaces()
            .withSecondaryToPrimaryMapper(ns -> tenants.list(ns.getMetadata().getName()).filter(tq -> {
              String cluster = Ownership.clusterKeyOf(tq);
              return cluster != null && !cluster.startsWith(ns.getMetadata().getName() + "/");
            }).map(ResourceID::fromResource).collect(Collectors.toSet()))
            .withPrimaryToSecondaryMapper((TenantQuota tq) -> Set.of(new ResourceID(tq.getMetadata().getNamespace())))
            .withOnUpdateFilter((now, before) -> !Objects.equals(now.getMetadata().getLabels(),
                before.getMetadata().getLabels()))
            .build(), context);
    ownership.bindNamespaces(Informers.labels(namespaces));
    ResourceTrigger<TenantQuota> trigger = new ResourceTrigger<>("tenantquota-trigger");
    triggers.bindTenants(trigger);
    return List.of(clusters, namespaces, trigger);
  }

  /** One reconcile's view of the resource: its status (as last written, and the next one), and when to look again. */
  private final class Pass {
    final TenantQuota tq;
    final StatusAggregator<TenantQuotaStatus> status;
    final TenantQuotaStatus old;
    final TenantQuotaStatus st;
    final Long gen;
    final Instant now;
    Duration retry;

    Pass(TenantQuota tq, Instant now) {
      this.tq = tq;
      this.status = new StatusAggregator<>(tq, TenantQuotaStatus.class, TenantQuotaStatus::new, events, now);
      this.old = status.old;
      this.st = status.st;
      this.gen = status.gen;
      this.now = now;
    }

    void ready(boolean ok, String reason, String message) {
      status.set(Conditions.READY, ok, reason, message);
    }

    /** Not Ready, with a Warning event when the reason changes (not on every retry). */
    void notReady(String reason, String message) {
      status.setNotingReason(Conditions.READY, false, reason, message, Decision.Note.warning(reason, message));
    }

    /** Status shows nothing held for this resource: it does not manage its subject. */
    void managesNothing() {
      st.setThrottles(new ArrayList<>());
      st.setSummary(null);
      st.setBypassGlobals(null);
      st.setSpace(null);
      st.setNamespace(null);
      st.setDryRun(null);
    }

    void retryWithin(Duration d) {
      if (d != null && (retry == null || d.compareTo(retry) < 0)) {
        retry = d;
      }
    }
  }

  @Override
  public UpdateControl<TenantQuota> reconcile(TenantQuota tq, Context<TenantQuota> context) {
    Pass p = new Pass(tq, clock.instant());
    try {
      run(p, context);
      p.status.write(context.getClient(), connections.fence());
    } catch (RuntimeException e) {
      // the framework retries on the wall clock; the operator's own timer retries as well (see Wakeups)
      triggers.tenantFailed(tq);
      throw e;
    }
    triggers.tenantSucceeded(tq);
    // the operator's own timer, on the monotonic clock; the framework's as well (see Wakeups)
    triggers.reconcileAfter(tq, p.retry);
    UpdateControl<TenantQuota> control = UpdateControl.noUpdate();
    if (p.retry != null) {
      control.rescheduleAfter(p.retry);
    }
    return control;
  }

  private void run(Pass p, Context<TenantQuota> context) {
    SubjectQuota desired;
    try {
      desired = DesiredQuotas.from(p.tq.getSpec());
    } catch (DesiredQuotas.Invalid e) {
      // nothing is written; what HBase holds for the subject stays, still claimed by this resource
      if (p.status.setNotingMessage(Conditions.READY, false, "InvalidSpec", e.getMessage(),
          Decision.Note.warning("InvalidSpec", e.getMessage()))) {
        metrics.invalidResource("TenantQuota");
      }
      return;
    }
    HBaseCluster hc = context.getSecondaryResource(HBaseCluster.class).orElse(null);
    if (hc == null) {
      String msg = "HBaseCluster '" + p.tq.getSpec().getClusterRef().getName() + "' not found in namespace '"
          + p.tq.getSpec().getClusterRef().namespaceFor(p.tq.getMetadata().getNamespace()) + "'";
      p.notReady("ClusterNotFound", msg);
      return;
    }
    String notGranted = ownership.refusal(p.tq).orElse(null);
    if (notGranted != null) {
      notGranted(p, notGranted);
      return;
    }
    ClusterState cluster = connections.stateFor(hc);
    try {
      cluster.ensureLoaded(); // the cluster's identity decides who else claims the subject
      if (!claimOwnership(p, desired.subject())) {
        return;
      }
      String unsupported = HBaseVersion.unsupported(desired, cluster.info() == null ? null : cluster.info().version())
          .orElse(null);
      if (unsupported != null) {
        // like an invalid spec: nothing is written, what HBase holds for the subject stays, the claim stays
        p.notReady("UnsupportedByHBase", unsupported);
        return;
      }
      if (p.tq.getSpec().dryRun()) {
        dryRun(p, cluster, desired);
        return;
      }
      if (p.tq.getSpec().getQos() != null || p.tq.getSpec().getCalibration() != null || p.old.getQos() != null
          || p.old.getCalibration() != null) {
        // metric readings are taken off this thread; one not there yet reconciles this tenant when it is
        desired = decide(p, desired, connections.gatewayFor(cluster).waking(triggers.wake(p.tq))
            .withBlockCache(cluster::blockCache)
            .withDefaultPrometheus(hc.getSpec().getPrometheus() == null ? null : hc.getSpec().getPrometheus().getUrl(),
                ClusterConnections.key(hc)));
      }
      apply(p, cluster, desired);
    } catch (ClusterUnavailableException e) {
      p.status.setNotingReason(Conditions.READY, false, "HBaseUnavailable", e.getMessage(),
          Decision.Note.warning("HBaseUnavailable", e.getMessage() + ": " + cluster.lastErrorDetail()));
      p.retryWithin(e.retryAfter().plusMillis(100));
    } catch (ClusterState.ConnectionMovedException e) {
      p.notReady("ClusterConnectionMoved", "HBaseCluster " + ClusterConnections.key(hc) + ": " + e.getMessage());
      p.retryWithin(Duration.ofSeconds(30));
    } catch (IOException e) {
      String denied = io.hbaseqos.operator.quota.HBaseRefusals.permissionDenied(e).orElse(null);
      if (denied != null) {
        // nothing was written; what HBase holds stays, and the change lands once the grant is back
        p.notReady("PermissionDenied", io.hbaseqos.operator.quota.HBaseRefusals.explain(denied));
      } else {
        p.notReady("HBaseError", "HBase refused the quota: " + Errors.rootMessage(e));
      }
      p.retryWithin(Duration.ofSeconds(30));
    }
  }

  /**
   * The platform's boundary: nothing is written or claimed, what HBase holds stays, and status and
   * the loops hold nothing of the tenant.
   */
  private void notGranted(Pass p, String why) {
    p.notReady("NotGranted", why + "; nothing of this resource is written to HBase");
    for (String c : List.of(Conditions.CONFLICT, Conditions.SYNCED, Conditions.CALIBRATED, Conditions.LATENCY_MET,
        Conditions.SHED, Conditions.SPACE_VIOLATED)) {
      p.status.remove(c);
    }
    p.managesNothing();
    p.st.setQos(null);
    p.st.setCalibration(null);
    forgetLoops(p.tq);
    metrics.forgetCalibration(p.tq.getMetadata().getNamespace(), p.tq.getMetadata().getName());
  }

  /** The tenant's loop state and its per-tenant meters. */
  private void forgetLoops(TenantQuota tq) {
    limits.forget(id(tq), tq.getMetadata().getUid());
    metrics.forgetProtection(tq.getMetadata().getNamespace(), tq.getMetadata().getName());
    metrics.forgetTenant(tq.getMetadata().getNamespace(), tq.getMetadata().getName());
  }

  /** False (and status says who owns it) when another TenantQuota owns the subject. */
  private boolean claimOwnership(Pass p, Subject subject) {
    if (ownership.owns(p.tq)) {
      p.status.remove(Conditions.CONFLICT);
      return true;
    }
    TenantQuota owner = ownership.claimants(p.tq).get(0);
    if (owner.getMetadata().getUid().equals(p.tq.getMetadata().getUid())) {
      notGranted(p, ownership.notGranted(p.tq).orElse("not granted")); // taken back since run() checked it
      return false;
    }
    String ownerName = Objects.equals(owner.getMetadata().getNamespace(), p.tq.getMetadata().getNamespace())
        ? "'" + owner.getMetadata().getName() + "'"
        : "'" + id(owner) + "' (same HBase cluster)";
    String msg = "subject " + subject + " is already managed by TenantQuota " + ownerName
        + "; nothing of this resource is written to HBase";
    if (p.status.setNotingReason(Conditions.CONFLICT, true, "SubjectClaimed", msg, Decision.Note.warning("Conflict",
        msg))) {
      metrics.conflict(Ownership.clusterKeyOf(p.tq));
    }
    p.ready(false, "Conflict", msg);
    p.managesNothing();
    return false;
  }

  /**
   * The tenant's limit from its two loops ({@link TenantLimits}): the settings HBase must hold, and
   * the loops' status, conditions, events and gauges.
   */
  private SubjectQuota decide(Pass p, SubjectQuota desired, ClusterMetrics clusterMetrics) {
    Decision d = limits.decide(tenant(p.tq, p.old), desired, clusterMetrics, p.now);
    String ns = p.tq.getMetadata().getNamespace();
    String name = p.tq.getMetadata().getName();
    p.st.setQos(d.qos());
    p.st.setCalibration(d.calibration());
    d.conditions().forEach(p.status::apply);
    d.notes().forEach(p.status::note);
    if (d.protection() != null) {
      Decision.ProtectionGauge g = d.protection();
      metrics.protection(ns, name, g.latencyOverBound(), g.outOfCapacity(), g.limit(), g.shed());
    } else if (p.old.getQos() != null) {
      metrics.forgetProtection(ns, name);
    }
    if (d.calibrationGauge() != null) {
      Decision.CalibrationGauge g = d.calibrationGauge();
      metrics.calibration(ns, name, g.target(), g.observed(), g.state());
    } else if (p.tq.getSpec().getCalibration() == null && p.old.getCalibration() != null) {
      metrics.forgetCalibration(ns, name);
    }
    if (!d.moved().isEmpty()) {
      ownership.tenantsOf(Ownership.clusterKeyOf(p.tq)).stream().filter(t -> d.moved().contains(id(t)))
          .forEach(triggers::reconcileTenant);
    }
    p.retryWithin(d.lookAgain());
    return d.quota();
  }

  /**
   * Whether a table tenant's settings vanished because its table was dropped: HBase's master removes
   * a table's throttles and space limit when the table is dropped (not its users' per-table throttles).
   * Then the restore (already written) is no drift: the words say whether the table is missing now
   * (the settings wait in hbase:quota and apply when it is created again) or was created again since
   * the last write (its oldest region is newer). Null when it is drift, or the table cannot be read.
   */
  private static Decision.Note droppedTable(ClusterState cluster, Subject s, QuotaSync.Outcome out,
      String lastSync) {
    if (s.kind() != Subject.Kind.TABLE || !out.found().isEmpty()) {
      return null;
    }
    try {
      io.hbaseqos.operator.hbase.QuotaBackend.TableState t = cluster.table(s.table());
      if (!t.exists()) {
        return Decision.Note.normal("TableDropped", "table " + s.table() + " does not exist in HBase: HBase removed "
            + "its quotas when it was dropped. They are written again and apply as soon as a table of that name is "
            + "created");
      }
      Instant synced = lastSync == null ? null : Instant.parse(lastSync);
      if (t.created() != null && synced != null && Instant.ofEpochMilli(t.created()).isAfter(synced)) {
        return Decision.Note.normal("TableRecreated", "table " + s.table() + " was dropped and created again (its "
            + "regions date from " + Instant.ofEpochMilli(t.created()) + "): HBase removed its quotas with the drop; "
            + "restored to " + out.now().describe());
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return null; // unknown: treated as drift, as before
    }
  }

  private void apply(Pass p, ClusterState cluster, SubjectQuota desired) throws IOException {
    boolean settled = p.status.heldAtThisGeneration(Conditions.READY)
        && AppliedThrottle.listOf(desired.throttles()).equals(p.old.getThrottles())
        && Objects.equals(p.old.getBypassGlobals(), desired.bypassGlobals() ? Boolean.TRUE : null)
        && Objects.equals(p.old.getSpace() == null ? null : p.old.getSpace().getLimitBytes(),
            desired.space() == null ? null : desired.space().bytes())
        && Objects.equals(p.old.getSpace() == null ? null : p.old.getSpace().getPolicy(),
            desired.space() == null ? null : desired.space().policy().name());
    QuotaSync.Outcome out = sync.sync(cluster, desired, settled);
    String clusterKey = Ownership.clusterKeyOf(p.tq);
    switch (out.result()) {
      case DRIFT_CORRECTED -> {
        p.st.setLastSyncTime(p.now.toString());
        Decision.Note dropped = droppedTable(cluster, desired.subject(), out, p.old.getLastSyncTime());
        if (dropped != null) {
          // HBase removes a table's throttles when the table is dropped: not a change made outside
          p.status.normal(dropped.reason(), dropped.message());
          p.status.set(Conditions.SYNCED, true, dropped.reason(), dropped.message());
          break;
        }
        metrics.driftCorrected(clusterKey);
        p.st.setDriftCorrections((p.old.getDriftCorrections() == null ? 0 : p.old.getDriftCorrections()) + 1);
        p.st.setLastDriftTime(p.now.toString());
        String msg = "restored " + desired.subject() + " to " + desired.describe() + " (found " + out.found().describe()
            + ", changed outside the operator)";
        p.status.warning("DriftCorrected", msg);
        p.status.set(Conditions.SYNCED, true, "DriftCorrected", msg);
      }
      case WRITTEN -> {
        p.st.setLastSyncTime(p.now.toString());
        p.status.normal("Applied", QuotaOp.describe(out.written()));
        p.status.set(Conditions.SYNCED, true, "Applied", "HBase holds " + desired.describe());
      }
      case UNCHANGED -> {
        if (p.st.getLastSyncTime() == null) {
          p.st.setLastSyncTime(p.now.toString());
          p.status.set(Conditions.SYNCED, true, "InSync", "HBase holds " + desired.describe());
        }
      }
    }
    p.st.setDryRun(null);
    report(p, cluster, desired.subject());
    p.ready(true, "Synced", "throttles applied to HBase cluster " + p.tq.getSpec().getClusterRef().getName());
    namespaceLimits(p, cluster, desired.subject());
  }

  /** Status names what HBase holds for the subject, its space and its usage; returns what HBase holds. */
  private SubjectQuota report(Pass p, ClusterState cluster, Subject subject) throws IOException {
    p.st.setSubject(subject.toString());
    SubjectQuota inHBase = cluster.actual(subject);
    p.st.setThrottles(AppliedThrottle.listOf(inHBase.throttles()));
    metrics.tenantLimits(p.tq.getMetadata().getNamespace(), p.tq.getMetadata().getName(), inHBase.throttles());
    p.st.setBypassGlobals(inHBase.bypassGlobals() ? Boolean.TRUE : null);
    p.st.setSummary(inHBase.describe());
    SpaceStatuses.report(p.tq, p.status, subject, inHBase.space(), cluster.spaceUsage(subject),
        cluster.spaceUsageRead(), metrics);
    if (io.hbaseqos.operator.hbase.TenantCounters.measurable(subject)) {
      p.st.setUsage(UsageReport.next(cluster.usage(subject), inHBase, cluster.blockCache(), p.st.getUsage(), p.now));
    } else {
      // HBase does not count a user on a table or namespace apart: nothing to show
      p.st.setUsage(null);
      metrics.forgetUsage(p.tq.getMetadata().getNamespace(), p.tq.getMetadata().getName());
    }
    return inHBase;
  }

  /**
   * Enforcement DryRun: the plan is validated and made, nothing is written to HBase (what it holds for
   * the subject stays, also what this resource wrote while it enforced), and status says what HBase
   * would do with the plan, from the tenant's measured requests and, for a tenant whose calibration gave
   * way to the dry run, from what the loop had learnt of it.
   */
  private void dryRun(Pass p, ClusterState cluster, SubjectQuota plan) throws IOException {
    if (p.old.getQos() != null || p.old.getCalibration() != null) {
      forgetLoops(p.tq);
      metrics.forgetCalibration(p.tq.getMetadata().getNamespace(), p.tq.getMetadata().getName());
      p.st.setQos(null);
      p.st.setCalibration(null);
      for (String c : List.of(Conditions.CALIBRATED, Conditions.LATENCY_MET, Conditions.SHED)) {
        p.status.remove(c);
      }
    }
    p.status.remove(Conditions.SYNCED);
    if (p.old.getDryRun() == null) {
      // its first dry run: what HBase holds now, not as last scanned (nothing written will have read it); from
      // then on the resync's scan keeps it, and asks the tenant again when what HBase holds moves
      cluster.read(plan.subject());
    }
    SubjectQuota inHBase = report(p, cluster, plan.subject());
    boolean measurable = io.hbaseqos.operator.hbase.TenantCounters.measurable(plan.subject());
    // what calibration learnt, taken when its calibration gives way to the dry run, then kept with it
    DryRunStatus.Learnt learnt = p.old.getDryRun() == null ? null : p.old.getDryRun().getLearnt();
    if (p.old.getCalibration() != null) {
      learnt = DryRunPrediction.learnt(p.old.getCalibration(), heldScope(inHBase, p.old.getCalibration()));
    }
    p.st.setDryRun(DryRunPrediction.next(plan, measurable ? cluster.usage(plan.subject()) : null, measurable,
        p.old.getDryRun(), learnt, p.now));
    String msg = "dry run: nothing is written to HBase; Enforce would write " + plan.describe() + " (HBase holds "
        + inHBase.describe() + " for " + plan.subject() + ")";
    p.status.setNotingMessage(Conditions.READY, true, "DryRun", msg, Decision.Note.normal("DryRun", msg));
  }

  /** The scope of the limit HBase holds for the throttle calibration moved (MACHINE when it holds none). */
  private static io.hbaseqos.operator.quota.Limit.Scope heldScope(SubjectQuota inHBase,
      io.hbaseqos.operator.api.CalibrationStatus c) {
    for (var e : inHBase.throttles().entrySet()) {
      if (e.getKey().name().equals(c.getThrottle())) {
        return e.getValue().scope();
      }
    }
    return io.hbaseqos.operator.quota.Limit.Scope.MACHINE;
  }

  /**
   * A namespace's table and region maximums, when the spec declares them (or declared them: then
   * they are removed). A namespace HBase does not have makes the tenant not Ready until it exists.
   */
  private void namespaceLimits(Pass p, ClusterState cluster, Subject subject) throws IOException {
    NamespaceLimits desired = DesiredQuotas.namespaceLimits(p.tq.getSpec());
    String ns = subject.namespace();
    if (desired == null) {
      if (p.old.getNamespace() != null) {
        if (NamespaceSync.remove(cluster, ns)) {
          p.status.normal("NamespaceLimitsRemoved", "removed maxtables and maxregions from namespace " + ns
              + ": spec.namespaceLimits was taken out");
        }
        p.st.setNamespace(null);
      }
      return;
    }
    NamespaceStatus was = p.old.getNamespace();
    boolean settled = p.status.heldAtThisGeneration(Conditions.READY) && was != null
        && Boolean.TRUE.equals(was.getExists()) && Objects.equals(was.getMaxTables(), desired.maxTables())
        && Objects.equals(was.getMaxRegions(), desired.maxRegions());
    NamespaceSync.Outcome out = NamespaceSync.sync(cluster, ns, desired, settled);
    switch (out.result()) {
      case NAMESPACE_MISSING -> {
        String msg = "namespace " + ns + " does not exist in HBase: " + desired.describe()
            + " is written once it is created";
        p.st.setNamespace(NamespaceStatus.missing(ns));
        p.notReady("NamespaceNotFound", msg);
        return;
      }
      case WRITTEN -> p.status.normal("NamespaceLimitsApplied", "namespace " + ns + ": " + desired.describe()
          + " (was " + out.found().describe() + ")");
      case DRIFT_CORRECTED -> {
        metrics.driftCorrected(Ownership.clusterKeyOf(p.tq));
        p.st.setDriftCorrections((p.old.getDriftCorrections() == null ? 0 : p.old.getDriftCorrections()) + 1);
        p.st.setLastDriftTime(p.now.toString());
        p.status.warning("DriftCorrected", "restored namespace " + ns + " to " + desired.describe() + " (found "
            + out.found().describe() + ", changed outside the operator)");
      }
      case UNCHANGED -> { }
    }
    NamespaceStatus now = NamespaceStatus.of(out.state());
    p.st.setNamespace(now.sameReading(was) ? was : now);
  }

  @Override
  public DeleteControl cleanup(TenantQuota tq, Context<TenantQuota> context) {
    TenantQuotaSpec spec = tq.getSpec();
    Subject subject = Ownership.subjectOf(tq);
    HBaseCluster hc = context.getSecondaryResource(HBaseCluster.class).orElse(null);
    String skip = tq.getMetadata().getAnnotations() == null ? null
        : tq.getMetadata().getAnnotations().get(SKIP_CLEANUP_ANNOTATION);
    if ("true".equalsIgnoreCase(skip)) {
      events.warning(tq, "CleanupSkipped", "annotation " + SKIP_CLEANUP_ANNOTATION
          + " is set: throttles (if any) are left in HBase");
      return released(tq, subject);
    }
    if (subject == null) {
      return released(tq, null); // HBase cannot hold quotas for what it names: nothing was written
    }
    if (hc == null) {
      // the informer has synced: the HBaseCluster really is gone, and with it the connection
      events.warning(tq, "ClusterNotFound", "HBaseCluster " + Ownership.clusterKeyOf(tq)
          + " does not exist: nothing can be removed from HBase");
      return released(tq, subject);
    }
    if (!ownership.owns(tq)) {
      return released(tq, subject); // a live claimant has taken over, or another one owns it
    }
    if (spec != null && spec.getDeletionPolicy() == TenantQuotaSpec.DeletionPolicy.Retain) {
      String hbase = ownership.hbaseIdentity(Ownership.clusterKeyOf(tq));
      try {
        retained.retain(hbase, hc, subject); // before the finalizer goes: Remove must never take them
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (hbase == null && e.getCode() == 403 && String.valueOf(e.getMessage()).contains("being terminated")) {
          // never reached, so no record beyond the namespace, and the namespace refuses new objects
          events.warning(tq, "RetainedUnrecorded", "deletionPolicy Retain: throttles stay in HBase, but the record "
              + "that keeps unmanagedPolicy Remove from removing them could not be written: HBaseCluster "
              + Ownership.clusterKeyOf(tq) + " never reached its HBase and namespace "
              + hc.getMetadata().getNamespace() + " is being deleted");
          return released(tq, subject);
        }
        events.warning(tq, "CleanupFailed", "could not record the retained quotas (" + Errors.rootMessage(e)
            + "); retrying");
        return retryCleanup(tq, Duration.ofSeconds(10));
      }
      events.normal(tq, "Retained", "deletionPolicy Retain: throttles stay in HBase");
      return released(tq, subject);
    }
    if (spec != null && spec.dryRun()) {
      TenantQuotaStatus st = tq.getStatus();
      boolean holds = st != null && st.getSummary() != null && !"none".equals(st.getSummary());
      events.normal(tq, "DryRunDeleted", "enforcement DryRun: nothing is removed from HBase"
          + (holds ? " (it holds " + st.getSummary() + " for " + subject + "; under unmanagedPolicy Remove, what no "
              + "TenantQuota claims is removed at a later resync, unless deletionPolicy is Retain)" : "")
          + "; to remove what HBase holds, switch to Enforce before deleting");
      return released(tq, subject);
    }
    ClusterState cluster = connections.stateFor(hc);
    try {
      cluster.ensureLoaded();
      if (!ownership.owns(tq)) {
        return released(tq, subject); // the cluster's identity showed another claimant
      }
      QuotaSync.Outcome out = sync.remove(cluster, subject);
      if (DesiredQuotas.managesNamespaceLimits(tq) && NamespaceSync.remove(cluster, subject.namespace())) {
        LOG.infof("removed the limits of namespace %s for deleted TenantQuota %s/%s", subject.namespace(),
            tq.getMetadata().getNamespace(), tq.getMetadata().getName());
      }
      if (out.wrote()) {
        LOG.infof("removed %s from %s for deleted TenantQuota %s/%s", out.found().describe(), ClusterConnections.key(hc),
            tq.getMetadata().getNamespace(), tq.getMetadata().getName());
      }
      if (out.leftBehind() != null) {
        events.warning(tq, "EmptyQuotaRow", out.leftBehind());
      }
      try {
        retained.forget(ownership.hbaseIdentity(Ownership.clusterKeyOf(tq)), hc, subject);
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        // the quotas are gone: a record left behind only keeps Remove from a subject HBase no longer holds
        LOG.warnf("could not forget the retained record of %s: %s", subject, Errors.rootMessage(e));
      }
      return released(tq, subject);
    } catch (QuotaSync.InDoubtException e) {
      events.normal(tq, "CleanupWaiting", "an earlier write to " + subject + " timed out and may still land in HBase; "
          + "its quotas are removed once it can no longer");
      return retryCleanup(tq, e.retryAfter().plusMillis(100));
    } catch (IOException e) {
      Duration retry = e instanceof ClusterUnavailableException u ? u.retryAfter().plusMillis(100) : Duration.ofSeconds(30);
      events.warning(tq, "CleanupFailed", "could not remove throttles from HBase (" + Errors.rootMessage(e)
          + "); retrying. To delete without cleaning HBase, set deletionPolicy: Retain or annotate "
          + SKIP_CLEANUP_ANNOTATION + "=true");
      return retryCleanup(tq, retry);
    }
  }

  /** The finalizer stays: the cleanup runs again after {@code delay}, on the monotonic clock. */
  private DeleteControl retryCleanup(TenantQuota tq, Duration delay) {
    triggers.reconcileAfter(tq, delay);
    return DeleteControl.noFinalizerRemoval().rescheduleAfter(delay.toMillis());
  }

  /** The resource may go: the other claimants of its subject reconcile now (one of them takes over). */
  private DeleteControl released(TenantQuota tq, Subject subject) {
    triggers.reconcileAfter(tq, null);
    if (subject != null && Ownership.clusterKeyOf(tq) != null) {
      ownership.claimants(Ownership.clusterKeyOf(tq), subject).stream()
          .filter(o -> !o.getMetadata().getUid().equals(tq.getMetadata().getUid())).forEach(triggers::reconcileTenant);
    }
    forgetLoops(tq);
    return DeleteControl.defaultDelete();
  }
}
