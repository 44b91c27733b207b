package io.hbaseqos.operator.limit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbaseqos.operator.api.CalibrationSpec;
import io.hbaseqos.operator.api.CalibrationStatus;
import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.TenantQuotaStatus;
import io.hbaseqos.operator.calibration.CalibrationLoops;
import io.hbaseqos.operator.calibration.CalibrationPlan;
import io.hbaseqos.operator.calibration.CalibrationReport;
import io.hbaseqos.operator.calibration.ControlLaw;
import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.calibration.Observation;
import io.hbaseqos.operator.calibration.RateWindow;
import io.hbaseqos.operator.cluster.Errors;
import io.hbaseqos.operator.gateway.ClusterMetrics;
import io.hbaseqos.operator.gateway.MetricsPendingException;
import io.hbaseqos.operator.hbase.UserOperations;
import io.hbaseqos.operator.quota.SubjectQuota;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A calibrated tenant's step: where its observed rate comes from (per-user RegionServer metrics or
 * Prometheus, through the cluster's {@link ClusterMetrics}), its {@link CalibrationLoops} step, and
 * what to report of it: {@code status.calibration}, the Calibrated condition, events and gauges.
 */
final class CalibrationStep {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final CalibrationLoops loops;

  /** The settings with the calibrated limit in, and what to report. */
  record Outcome(SubjectQuota quota, CalibrationStatus status, Decision.Report condition, List<Decision.Note> notes,
      Duration retry, Decision.CalibrationGauge gauge) {}

  CalibrationStep(CalibrationLoops loops) {
    this.loops = loops;
  }

  void forget(String uid) {
    loops.forget(uid);
  }

  /**
   * Held down by latency protection for a tenant of higher priority: the loop waits (a limit it does
   * not set would wind it up) at the limit in force.
   */
  Outcome held(Tenant tenant, SubjectQuota desired, long protectionLimit, List<String> heldBy) {
    CalibrationPlan plan = CalibrationPlan.of(tenant.spec());
    TenantQuotaStatus old = tenant.status();
    long inForce = plan.limitInForce(desired, old.getCalibration());
    String forWhom = String.join(", ", heldBy == null ? List.of() : heldBy);
    // HBase holds the lower of the two: protection's limit, or (given back past it) the calibrated one
    Decision.Report condition = Decision.Report.of(Conditions.CALIBRATED, false, "HeldByProtection",
        protectionLimit < inForce
            ? "latency protection holds the limit at " + protectionLimit + " req/sec for " + forWhom
                + "; calibration resumes when it is released"
            : "latency protection holds the tenant below its ceiling for " + forWhom + " (at most " + protectionLimit
                + " req/sec); calibration waits at " + inForce + " req/sec and resumes when it is released");
    return new Outcome(plan.apply(desired, inForce), old.getCalibration(), condition, List.of(), null, null);
  }

  /**
   * @param quotaInForce how long after a quota write its RegionServers may still enforce the old quota
   *     (twice the quota refresh period before HBase 2.6.3; zero when they reload quotas on a write)
   * @param countsRefusals whether they count the requests they refuse a user (HBase 2.6.4+)
   */
  Outcome step(Tenant tenant, SubjectQuota desired, Duration quotaInForce, boolean countsRefusals,
      ClusterMetrics metrics, Instant now) {
    TenantQuotaSpec spec = tenant.spec();
    TenantQuotaStatus old = tenant.status();
    CalibrationPlan plan = CalibrationPlan.of(spec);
    CalibrationLoops.Outcome out = loops.step(tenant.uid(), specKey(spec.getCalibration()) + "/" + plan.scope(), plan,
        plan.limitInForce(desired, old.getCalibration()),
        CalibrationLoops.Resume.of(old.getCalibration(), Conditions.reason(old, Conditions.CALIBRATED)),
        quotaInForce, source(spec, metrics, countsRefusals), now);
    CalibrationStatus cs = CalibrationReport.next(old.getCalibration(), plan, out, now);
    String before = old.getCalibration() == null ? null : old.getCalibration().getState();
    ControlLaw.State state = out.state();
    List<Decision.Note> notes = new ArrayList<>();
    if (out.moved()) {
      notes.add(Decision.Note.normal("CalibrationMoved", out.reason()));
    }
    if (out.stepped() && !state.name().equals(before)) {
      switch (state) {
        case Converged -> notes.add(Decision.Note.normal("Calibrated", out.reason()));
        case LimiterStep -> notes.add(Decision.Note.warning("TargetBetweenLimiterSteps", out.reason()));
        case MetricsUnavailable, AtBound -> notes.add(Decision.Note.warning("Calibration" + state, out.reason()));
        default -> { }
      }
    }
    String message = CalibrationReport.conditionMessage(plan, out);
    if ((state == ControlLaw.State.AtBound || state == ControlLaw.State.DemandLimited)
        && spec.getCalibration().getOperations() != CalibrationSpec.Operations.writes) {
      // the target is not reached: when the cache misses, that is the likelier reason than the limit
      String cache = io.hbaseqos.operator.usage.CacheReport.missEvidence(metrics.blockCache());
      message = cache == null ? message : message + "; " + cache;
    }
    Decision.Report condition = Decision.Report.of(Conditions.CALIBRATED, state == ControlLaw.State.Converged,
        CalibrationReport.conditionReason(out), message);
    return new Outcome(plan.apply(desired, out.limit()), cs, condition, notes, out.until(now).plusMillis(50),
        new Decision.CalibrationGauge(plan.settings().target(), out.observation().ops(), state.name()));
  }

  private static String specKey(CalibrationSpec c) {
    try {
      return JSON.writeValueAsString(c);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A query's answer; null while it is being asked. */
  private static Double answer(ClusterMetrics metrics, String url, String query, Instant notBefore)
      throws IOException {
    try {
      return metrics.prometheus(url, query, notBefore);
    } catch (MetricsPendingException e) {
      return null;
    }
  }

  /**
   * Measures one calibration period from HBase's per-user RegionServer metrics or from Prometheus.
   * Neither runs in the cluster's HBase call pool: a failing read is the tenant's
   * {@code MetricsUnavailable}, never the cluster's back-off. Where the RegionServers do not count
   * the requests they refuse a user ({@code countsRefusals} false: before HBase 2.6.4), the refused
   * share is unknown (NaN), not none: read as none, a tenant held at its limit would look as if it
   * asked for no more.
   */
  static CalibrationLoops.Source source(TenantQuotaSpec spec, ClusterMetrics metrics, boolean countsRefusals) {
    CalibrationSpec c = spec.getCalibration();
    if (c.getSource() == CalibrationSpec.Source.Prometheus) {
      CalibrationSpec.PrometheusSource p = c.getPrometheus();
      // a query's own window (rate over [1m]) spans writes: its readings are never aligned with one limit
      return (window, t, notBefore) -> {
        try {
          // both queries are asked for before either is waited for: they come back together
          Double ops = answer(metrics, p.getUrl(), p.getQuery(), notBefore);
          boolean throttledAsked = p.getThrottledQuery() != null && !p.getThrottledQuery().isBlank();
          Double throttled = throttledAsked ? answer(metrics, p.getUrl(), p.getThrottledQuery(), notBefore) : null;
          if (ops == null || (throttledAsked && throttled == null)) {
            return CalibrationLoops.Measurement.waiting();
          }
          if (Double.isNaN(ops)) {
            return CalibrationLoops.Measurement.failed("the Prometheus query returned no sample");
          }
          double share = !throttledAsked ? Double.NaN
              : Double.isNaN(throttled) ? 0 : ops + throttled == 0 ? 0 : throttled / (ops + throttled);
          return CalibrationLoops.Measurement.of(new Observation(ops, share));
        } catch (IOException e) {
          return CalibrationLoops.Measurement.failed("Prometheus: " + e.getMessage());
        }
      };
    }
    Set<String> ops = UserOperations.of(c.getOperations());
    String user = spec.getSubject().getUser();
    return (window, t, notBefore) -> {
      try {
        CounterReading reading = metrics.userCounters(user, ops, notBefore);
        RateWindow.Result r = window.next(reading);
        if (r.usable()) {
          Observation o = countsRefusals ? r.observation() : new Observation(r.observation().ops(), Double.NaN);
          // /jmx (where /prometheus is not served) lags: its readings are not aligned with a write
          return reading.sampled() ? CalibrationLoops.Measurement.pointInTime(o) : CalibrationLoops.Measurement.of(o);
        }
        return r.baseline() ? CalibrationLoops.Measurement.baselineOnly()
            : CalibrationLoops.Measurement.failed(r.problem());
      } catch (MetricsPendingException e) {
        return CalibrationLoops.Measurement.waiting();
      } catch (IOException e) {
        return CalibrationLoops.Measurement.failed("RegionServer metrics: " + Errors.rootMessage(e));
      }
    };
  }
}
