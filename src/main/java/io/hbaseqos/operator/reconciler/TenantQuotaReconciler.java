package io.hbaseqos.operator.reconciler;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.hbaseqos.operator.api.AppliedThrottle;
import io.hbaseqos.operator.api.CalibrationStatus;
import io.hbaseqos.operator.calibration.CalibrationLoops;
import io.hbaseqos.operator.calibration.CalibrationPlan;
import io.hbaseqos.operator.calibration.CalibrationReport;
import io.hbaseqos.operator.calibration.ControlLaw;
import io.hbaseqos.operator.metrics.PrometheusClient;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.TenantQuotaStatus;
import io.hbaseqos.operator.cluster.ClusterRegistry;
import io.hbaseqos.operator.cluster.ClusterState;
import io.hbaseqos.operator.cluster.ClusterUnavailableException;
import io.hbaseqos.operator.cluster.Errors;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.quota.DesiredQuotas;
import io.hbaseqos.operator.quota.LimitSyntax;
import io.hbaseqos.operator.quota.QuotaDiff;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
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
 * Reconciles one TenantQuota into {@code hbase:quota}: validate, check ownership of the subject,
 * compare with the cluster's shared snapshot, write only the differences, and report.
 */
@ControllerConfiguration(name = TenantQuotaReconciler.NAME,
    maxReconciliationInterval = @MaxReconciliationInterval(interval = 10, timeUnit = TimeUnit.MINUTES))
public class TenantQuotaReconciler implements Reconciler<TenantQuota>, Cleaner<TenantQuota> {
  public static final String NAME = "tenantquota";
  /** Annotation that lets a TenantQuota go without touching HBase (escape for a cluster that is gone for good). */
  public static final String SKIP_CLEANUP_ANNOTATION = "hbaseqos.io/skip-cleanup";
  private static final Logger LOG = Logger.getLogger(TenantQuotaReconciler.class);

  private final ClusterRegistry registry;
  private final EventRecorder events;
  private final OperatorMetrics metrics;
  private final Clock clock;

  private final CalibrationLoops loops;
  private final PrometheusClient prometheus = new PrometheusClient();

  @Inject
  public TenantQuotaReconciler(ClusterRegistry registry, EventRecorder events, OperatorMetrics metrics, Clock clock,
      CalibrationLoops loops) {
    this.registry = registry;
    this.events = events;
    this.metrics = metrics;
    this.clock = clock;
    this.loops = loops;
  }

  @Override
  public List<EventSource<?, TenantQuota>> prepareEventSources(EventSourceContext<TenantQuota> context) {
    context.getPrimaryCache().addIndexers(ClusterRegistry.indexers());
    ResourceTrigger<TenantQuota> trigger = new ResourceTrigger<>("tenantquota-trigger");
    registry.bindTenants(context.getPrimaryCache(), trigger);
    return List.of(trigger);
  }

  @Override
  public UpdateControl<TenantQuota> reconcile(TenantQuota tq, Context<TenantQuota> context) {
    TenantQuotaStatus written = Statuses.current(tq);
    TenantQuotaStatus old = written == null ? new TenantQuotaStatus() : written;
    TenantQuotaStatus st = copy(old);
    Long gen = tq.getMetadata().getGeneration();
    Instant now = clock.instant();
    Duration retry = null;

    SubjectQuota desired = null;
    try {
      desired = DesiredQuotas.from(tq.getSpec());
    } catch (DesiredQuotas.Invalid e) {
      if (!"InvalidSpec".equals(Conditions.reason(old, Conditions.READY))
          || !Objects.equals(e.getMessage(), old.condition(Conditions.READY).map(c -> c.getMessage()).orElse(null))) {
        metrics.invalidResource("TenantQuota");
        events.warning(tq, "InvalidSpec", e.getMessage());
      }
      Conditions.set(st, Conditions.READY, false, "InvalidSpec", e.getMessage(), gen, now);
      return finish(tq, context, old, st, gen, null);
    }
    st.setSubject(desired.subject().toString());
    String clusterKey = ClusterRegistry.clusterKeyOf(tq);
    ClusterState cluster = registry.get(clusterKey).orElse(null);
    if (cluster == null) {
      String msg = "HBaseCluster '" + tq.getSpec().getClusterRef().getName() + "' not found in namespace '"
          + tq.getMetadata().getNamespace() + "'";
      transitionEvent(tq, old, "ClusterNotFound", msg, true);
      Conditions.set(st, Conditions.READY, false, "ClusterNotFound", msg, gen, now);
      return finish(tq, context, old, st, gen, null);
    }
    if (!registry.owns(tq)) {
      TenantQuota owner = registry.claimants(tq).get(0);
      String msg = "subject " + desired.subject() + " is already managed by TenantQuota '"
          + owner.getMetadata().getName() + "'; nothing of this resource is written to HBase";
      if (!Conditions.isTrue(old, Conditions.CONFLICT)) {
        metrics.conflict(clusterKey);
        events.warning(tq, "Conflict", msg);
      }
      Conditions.set(st, Conditions.CONFLICT, true, "SubjectClaimed", msg, gen, now);
      Conditions.set(st, Conditions.READY, false, "Conflict", msg, gen, now);
      st.setThrottles(new ArrayList<>());
      st.setSummary(null);
      st.setBypassGlobals(null);
      return finish(tq, context, old, st, gen, null);
    }
    Conditions.remove(st, Conditions.CONFLICT);

    Duration nextPeriod = null;
    if (tq.getSpec().getCalibration() != null) {
      CalibrationPlan plan = CalibrationPlan.of(tq.getSpec());
      CalibrationLoops.Outcome out = loops.step(tq.getMetadata().getUid(),
          Serialization.asJson(tq.getSpec().getCalibration()) + "/" + tq.getSpec().getScope(), plan,
          plan.limitInForce(desired, old.getCalibration()), CalibrationSources.of(tq.getSpec(), cluster, prometheus), now);
      desired = plan.apply(desired, out.limit());
      calibrationStatus(tq, old, st, plan, out, gen, now);
      nextPeriod = out.until(now).plusMillis(50);
    } else if (old.getCalibration() != null) {
      st.setCalibration(null);
      Conditions.remove(st, Conditions.CALIBRATED);
      loops.forget(tq.getMetadata().getUid());
      metrics.forgetCalibration(tq.getMetadata().getNamespace(), tq.getMetadata().getName());
    }

    try {
      cluster.ensureLoaded();
      SubjectQuota actual = cluster.actual(desired.subject());
      List<QuotaOp> ops = QuotaDiff.between(desired, actual);
      if (!ops.isEmpty()) {
        boolean collateral = cluster.takeCollateral(desired.subject());
        boolean drift = !collateral && Objects.equals(old.getObservedGeneration(), gen)
            && Conditions.isTrue(old, Conditions.READY) && render(desired).equals(old.getThrottles())
            && Objects.equals(old.getBypassGlobals(), desired.bypassGlobals() ? Boolean.TRUE : null);
        Set<io.hbaseqos.operator.quota.Subject> lost = cluster.apply(desired.subject(), ops);
        registry.triggerTenants(lost, clusterKey);
        st.setLastSyncTime(now.toString());
        if (drift) {
          metrics.driftCorrected(clusterKey);
          st.setDriftCorrections((old.getDriftCorrections() == null ? 0 : old.getDriftCorrections()) + 1);
          st.setLastDriftTime(now.toString());
          String msg = "restored " + desired.subject() + " to " + desired.describe() + " (found " + actual.describe()
              + ", changed outside the operator)";
          events.warning(tq, "DriftCorrected", msg);
          Conditions.set(st, Conditions.SYNCED, true, "DriftCorrected", msg, gen, now);
        } else {
          events.normal(tq, "Applied", describe(ops));
          Conditions.set(st, Conditions.SYNCED, true, "Applied", "HBase holds " + desired.describe(), gen, now);
        }
      } else if (st.getLastSyncTime() == null) {
        st.setLastSyncTime(now.toString());
        Conditions.set(st, Conditions.SYNCED, true, "InSync", "HBase holds " + desired.describe(), gen, now);
      }
      SubjectQuota inHBase = cluster.actual(desired.subject());
      st.setThrottles(render(inHBase));
      metrics.tenantLimits(tq.getMetadata().getNamespace(), tq.getMetadata().getName(), inHBase.throttles());
      st.setBypassGlobals(inHBase.bypassGlobals() ? Boolean.TRUE : null);
      st.setSummary(inHBase.describe());
      Conditions.set(st, Conditions.READY, true, "Synced", "throttles applied to HBase cluster "
          + tq.getSpec().getClusterRef().getName(), gen, now);
    } catch (ClusterUnavailableException e) {
      transitionEvent(tq, old, "HBaseUnavailable", e.getMessage() + ": " + cluster.lastErrorDetail(), true);
      Conditions.set(st, Conditions.READY, false, "HBaseUnavailable", e.getMessage(), gen, now);
      retry = e.retryAfter().plusMillis(100);
    } catch (IOException e) {
      String msg = "HBase refused the quota: " + Errors.rootMessage(e);
      transitionEvent(tq, old, "HBaseError", msg, true);
      Conditions.set(st, Conditions.READY, false, "HBaseError", msg, gen, now);
      retry = Duration.ofSeconds(30);
    }
    if (nextPeriod != null && (retry == null || nextPeriod.compareTo(retry) < 0)) {
      retry = nextPeriod;
    }
    return finish(tq, context, old, st, gen, retry);
  }

  private void calibrationStatus(TenantQuota tq, TenantQuotaStatus old, TenantQuotaStatus st, CalibrationPlan plan,
      CalibrationLoops.Outcome out, Long gen, Instant now) {
    CalibrationStatus cs = CalibrationReport.next(old.getCalibration(), plan, out, now);
    st.setCalibration(cs);
    String before = old.getCalibration() == null ? null : old.getCalibration().getState();
    ControlLaw.State state = out.state();
    if (out.moved()) {
      events.normal(tq, "CalibrationMoved", out.reason());
    }
    if (out.stepped() && !state.name().equals(before)) {
      switch (state) {
        case Converged -> {
          if (out.nearest()) {
            events.warning(tq, "TargetNotAchievable", out.reason());
          } else {
            events.normal(tq, "Calibrated", out.reason());
          }
        }
        case MetricsUnavailable, AtBound -> events.warning(tq, "Calibration" + state, out.reason());
        default -> { }
      }
    }
    Conditions.set(st, Conditions.CALIBRATED, state == ControlLaw.State.Converged,
        CalibrationReport.conditionReason(out), CalibrationReport.conditionMessage(plan, out), gen, now);
    metrics.calibration(tq.getMetadata().getNamespace(), tq.getMetadata().getName(), plan.settings().target(),
        out.observation().ops(), state.name());
  }

  private UpdateControl<TenantQuota> finish(TenantQuota tq, Context<TenantQuota> context, TenantQuotaStatus old,
      TenantQuotaStatus st, Long gen, Duration retry) {
    st.setObservedGeneration(gen);
    Statuses.write(context.getClient(), tq, old, st);
    UpdateControl<TenantQuota> control = UpdateControl.noUpdate();
    if (retry != null) {
      control.rescheduleAfter(retry);
    }
    return control;
  }

  private void transitionEvent(TenantQuota tq, TenantQuotaStatus old, String reason, String msg, boolean warning) {
    if (!reason.equals(Conditions.reason(old, Conditions.READY))) {
      if (warning) {
        events.warning(tq, reason, msg);
      } else {
        events.normal(tq, reason, msg);
      }
    }
  }

  @Override
  public DeleteControl cleanup(TenantQuota tq, Context<TenantQuota> context) {
    String skip = tq.getMetadata().getAnnotations() == null ? null
        : tq.getMetadata().getAnnotations().get(SKIP_CLEANUP_ANNOTATION);
    TenantQuotaSpec spec = tq.getSpec();
    if (spec != null && spec.getDeletionPolicy() == TenantQuotaSpec.DeletionPolicy.Retain) {
      events.normal(tq, "Retained", "deletionPolicy Retain: throttles stay in HBase");
      return released(tq);
    }
    if ("true".equalsIgnoreCase(skip)) {
      events.warning(tq, "CleanupSkipped", "annotation " + SKIP_CLEANUP_ANNOTATION
          + " is set: throttles (if any) are left in HBase");
      return released(tq);
    }
    SubjectQuota desired;
    try {
      desired = DesiredQuotas.from(spec);
    } catch (DesiredQuotas.Invalid e) {
      return released(tq); // an invalid resource never wrote anything
    }
    String clusterKey = ClusterRegistry.clusterKeyOf(tq);
    ClusterState cluster = registry.get(clusterKey).orElse(null);
    if (cluster == null) {
      events.warning(tq, "ClusterNotFound", "HBaseCluster " + clusterKey + " is gone: nothing to remove");
      return released(tq);
    }
    if (!registry.owns(tq)) {
      return released(tq); // a conflicting claimant never wrote anything
    }
    try {
      cluster.ensureLoaded();
      SubjectQuota actual = cluster.actual(desired.subject());
      List<QuotaOp> ops = QuotaDiff.removeAll(actual);
      Set<io.hbaseqos.operator.quota.Subject> lost = cluster.apply(desired.subject(), ops);
      registry.triggerTenants(lost, clusterKey);
      if (!ops.isEmpty()) {
        LOG.infof("removed %s from %s for deleted TenantQuota %s/%s", actual.describe(), clusterKey,
            tq.getMetadata().getNamespace(), tq.getMetadata().getName());
      }
      return released(tq);
    } catch (IOException e) {
      Duration retry = e instanceof ClusterUnavailableException u ? u.retryAfter().plusMillis(100) : Duration.ofSeconds(30);
      events.warning(tq, "CleanupFailed", "could not remove throttles from HBase (" + Errors.rootMessage(e)
          + "); retrying. To delete without cleaning HBase, set deletionPolicy: Retain or annotate "
          + SKIP_CLEANUP_ANNOTATION + "=true");
      return DeleteControl.noFinalizerRemoval().rescheduleAfter(retry.toMillis());
    }
  }

  private DeleteControl released(TenantQuota tq) {
    registry.release(tq);
    loops.forget(tq.getMetadata().getUid());
    metrics.forgetTenant(tq.getMetadata().getNamespace(), tq.getMetadata().getName());
    return DeleteControl.defaultDelete();
  }

  static List<AppliedThrottle> render(SubjectQuota q) {
    List<AppliedThrottle> out = new ArrayList<>();
    q.throttles().forEach((k, l) -> out.add(new AppliedThrottle(k.name(), LimitSyntax.format(k, l), l.scope().name())));
    return out;
  }

  static String describe(List<QuotaOp> ops) {
    return ops.stream().map(op -> {
      if (op instanceof QuotaOp.SetThrottle s) {
        return "set " + s.kind() + "=" + LimitSyntax.format(s.kind(), s.limit());
      }
      if (op instanceof QuotaOp.RemoveThrottle r) {
        return "removed " + r.kind();
      }
      return "bypassGlobals=" + ((QuotaOp.SetBypassGlobals) op).bypass();
    }).collect(Collectors.joining(", ", "", " for " + ops.get(0).subject()));
  }

  static TenantQuotaStatus copy(TenantQuotaStatus s) {
    return Serialization.unmarshal(Serialization.asJson(s), TenantQuotaStatus.class);
  }


}
