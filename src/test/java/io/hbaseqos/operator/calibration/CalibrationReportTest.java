package io.hbaseqos.operator.calibration;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.api.CalibrationStatus;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What status.calibration and the Calibrated condition say after a loop step. */
class CalibrationReportTest {
  static final CalibrationPlan PLAN = new CalibrationPlan(ThrottleKind.READ_NUMBER,
      new Settings(5611, 1, 1e9, 4, 0.05), Duration.ofSeconds(10), Limit.Scope.MACHINE);
  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  static CalibrationLoops.Outcome outcome(long limit, boolean moved, ControlLaw.State state, String reason,
      double ops) {
    return new CalibrationLoops.Outcome(true, limit, moved, state, reason, new Observation(ops, 0.3),
        NOW.plusSeconds(10), Double.NaN);
  }

  @Test
  void aTargetBetweenStepsIsLimiterStepWithTheLawsNumbers() {
    String why = "target 5611 ops/s lies on a step of HBase's rate limiter: limit 5999 req/s gives 5290 ops/s, limit "
        + "6000 gives 6000 (a step of 710 ops/s); holding the nearer side, 5290 ops/s (-5.7%)";
    var out = outcome(5999, false, ControlLaw.State.LimiterStep, why, 5290);
    assertThat(CalibrationReport.conditionReason(out)).isEqualTo("LimiterStep");
    assertThat(CalibrationReport.conditionMessage(PLAN, out)).isEqualTo(why);
    var inBand = outcome(6100, false, ControlLaw.State.Converged, "5600 ops/s is within 5%", 5600);
    assertThat(CalibrationReport.conditionReason(inBand)).isEqualTo("Converged");
    assertThat(CalibrationReport.conditionMessage(PLAN, inBand)).isEqualTo(
        "the tenant gets its target of 5611 ops/s within 5.0%");
  }

  @Test
  void aQuietPeriodChangesNothingAndAMoveCountsOnce() {
    CalibrationStatus first = CalibrationReport.next(null, PLAN,
        outcome(3000, true, ControlLaw.State.Converging, "moving", 2000), NOW);
    assertThat(first.getMoves()).isEqualTo(1);
    assertThat(first.getLastMoveTime()).isEqualTo(NOW.toString());
    assertThat(first.getLimit()).isEqualTo(3000);
    assertThat(first.getObservedOpsPerSecond()).isEqualTo(2000.0);
    assertThat(first.getThrottledPercent()).isEqualTo(30.0);
    // same state, same limit, rate within half the tolerance: the status stays as it was
    CalibrationStatus quiet = CalibrationReport.next(first, PLAN,
        outcome(3000, false, ControlLaw.State.Converging, "measuring once more", 2040), NOW.plusSeconds(10));
    assertThat(quiet).usingRecursiveComparison().isEqualTo(first);
  }
}
