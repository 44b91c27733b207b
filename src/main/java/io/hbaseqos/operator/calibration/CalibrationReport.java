package io.hbaseqos.operator.calibration;

import io.hbaseqos.operator.api.CalibrationStatus;
import java.time.Instant;
import java.util.Objects;

/**
 * What status.calibration says after a loop step. The status is written only when something a
 * user acts on changed: the state, the limit, the target, or the observed rate by more than half
 * the tolerance; so a converged loop writes neither HBase nor the status. Pure.
 */
public final class CalibrationReport {
  private CalibrationReport() {}

  public static CalibrationStatus next(CalibrationStatus old, CalibrationPlan plan, CalibrationLoops.Outcome out,
      Instant now) {
    CalibrationStatus s = copy(old);
    s.setTargetOpsPerSecond(Math.round(plan.settings().target()));
    s.setThrottle(plan.kind().name());
    s.setLimit(out.limit());
    if (out.moved()) {
      s.setLastMoveTime(now.toString());
      s.setMoves((old == null || old.getMoves() == null ? 0 : old.getMoves()) + 1);
    }
    if (!out.stepped()) {
      if (s.getState() == null) {
        s.setState(ControlLaw.State.Converging.name());
        s.setMessage(out.reason());
      }
      return s;
    }
    double y = out.observation().ops();
    boolean stateChanged = !out.state().name().equals(s.getState());
    boolean rateMoved = !Double.isNaN(y) && (s.getObservedOpsPerSecond() == null
        || Math.abs(y / Math.max(1e-9, s.getObservedOpsPerSecond()) - 1) > plan.settings().tolerance() / 2);
    if (stateChanged || out.moved() || rateMoved) {
      s.setState(out.state().name());
      if (!Double.isNaN(out.elasticity())) {
        s.setElasticity(Math.round(out.elasticity() * 1000) / 1000.0);
      }
      s.setMessage(out.reason());
      if (!Double.isNaN(y)) {
        s.setObservedOpsPerSecond(Math.round(y * 10) / 10.0);
      }
      double share = out.observation().throttledShare();
      s.setThrottledPercent(Double.isNaN(share) ? null : Math.round(share * 1000) / 10.0);
    }
    return s;
  }

  /** The Calibrated condition's reason: the state. */
  public static String conditionReason(CalibrationLoops.Outcome out) {
    return out.state().name();
  }

  /** The text of the Calibrated condition: stable while the state is, so the condition does not churn. */
  public static String conditionMessage(CalibrationPlan plan, CalibrationLoops.Outcome out) {
    long t = Math.round(plan.settings().target());
    String tol = Math.round(plan.settings().tolerance() * 1000) / 10.0 + "%";
    return switch (out.state()) {
      // the law's text names the two sides of the step, the rate held and how to get a finer step:
      // stable while it holds
      case LimiterStep -> out.reason();
      case Converged -> "the tenant gets its target of " + t + " ops/s within " + tol;
      case Converging -> "moving " + plan.kind() + " toward a target of " + t + " ops/s";
      case DemandLimited -> "the tenant asks for less than its target of " + t + " ops/s: the limit is held";
      case MetricsUnavailable -> "the tenant's rate cannot be measured: the limit is held";
      case AtBound -> "the limit is at calibration.minLimit or maxLimit and the target of " + t
          + " ops/s is not reached";
    };
  }

  static CalibrationStatus copy(CalibrationStatus o) {
    CalibrationStatus s = new CalibrationStatus();
    if (o != null) {
      s.setTargetOpsPerSecond(o.getTargetOpsPerSecond());
      s.setObservedOpsPerSecond(o.getObservedOpsPerSecond());
      s.setThrottledPercent(o.getThrottledPercent());
      s.setThrottle(o.getThrottle());
      s.setLimit(o.getLimit());
      s.setState(o.getState());
      s.setMessage(o.getMessage());
      s.setLastMoveTime(o.getLastMoveTime());
      s.setMoves(o.getMoves());
      s.setElasticity(o.getElasticity());
    }
    return s;
  }

  public static boolean same(CalibrationStatus a, CalibrationStatus b) {
    return a != null && b != null && Objects.equals(a.getLimit(), b.getLimit())
        && Objects.equals(a.getState(), b.getState()) && Objects.equals(a.getMessage(), b.getMessage())
        && Objects.equals(a.getObservedOpsPerSecond(), b.getObservedOpsPerSecond());
  }
}
