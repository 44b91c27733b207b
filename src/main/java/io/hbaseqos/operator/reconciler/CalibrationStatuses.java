package io.hbaseqos.operator.reconciler;

import io.hbaseqos.operator.api.CalibrationStatus;
import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TenantQuotaStatus;
import io.hbaseqos.operator.calibration.CalibrationLoops;
import io.hbaseqos.operator.calibration.CalibrationPlan;
import io.hbaseqos.operator.calibration.CalibrationReport;
import io.hbaseqos.operator.calibration.ControlLaw;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import java.time.Instant;

/** A calibration step's outcome as status, the Calibrated condition, events and gauges. */
final class CalibrationStatuses {
  private CalibrationStatuses() {}

  static void report(TenantQuota tq, TenantQuotaStatus old, TenantQuotaStatus st, CalibrationPlan plan,
      CalibrationLoops.Outcome out, Long gen, Instant now, EventRecorder events, OperatorMetrics metrics) {
    CalibrationStatus cs = CalibrationReport.next(old.getCalibration(), plan, out, now);
    st.setCalibration(cs);
    String before = old.getCalibration() == null ? null : old.getCalibration().getState();
    ControlLaw.State state = out.state();
    if (out.moved()) {
      events.normal(tq, "CalibrationMoved", out.reason());
    }
    if (out.stepped() && !state.name().equals(before)) {
      switch (state) {
        case Converged -> events.normal(tq, "Calibrated", out.reason());
        case LimiterStep -> events.warning(tq, "TargetBetweenLimiterSteps", out.reason());
        case MetricsUnavailable, AtBound -> events.warning(tq, "Calibration" + state, out.reason());
        default -> { }
      }
    }
    Conditions.set(st, Conditions.CALIBRATED, state == ControlLaw.State.Converged,
        CalibrationReport.conditionReason(out), CalibrationReport.conditionMessage(plan, out), gen, now);
    metrics.calibration(tq.getMetadata().getNamespace(), tq.getMetadata().getName(), plan.settings().target(),
        out.observation().ops(), state.name());
  }
}
