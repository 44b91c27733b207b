package io.hbaseqos.operator.calibration;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.calibration.sim.Simulation;
import io.hbaseqos.operator.calibration.sim.Simulation.Scenario;
import io.hbaseqos.operator.support.Paths;
import java.nio.file.Files;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The operator's law against the two reference curves (bench/curves), 30 seeds each, 2% noise:
 * the goals of the calibration issue, checked on every seed.
 */
class LogNewtonLawTest {
  static PlantCurve curve(String name) throws Exception {
    return PlantCurve.parseCsv(Files.readString(Paths.projectDir().resolve("bench/curves/" + name + ".csv")));
  }

  static Settings settings(double target) {
    return new Settings(target, 1, 1e12, 10, 0.03);
  }

  static Simulation.Result run(String curveName, double target, Scenario scenario, long seed, double noise)
      throws Exception {
    return Simulation.run(new LogNewtonLaw(settings(target)), curve(curveName), target, target, 30, noise, seed,
        scenario);
  }

  @ParameterizedTest
  @CsvSource({"read, 2000", "read, 1800", "read, 2400", "scan, 600", "scan, 450"})
  void settlesFastWithoutOvershootAndThenWritesNothing(String curveName, double target) throws Exception {
    for (long seed = 1; seed <= 30; seed++) {
      Simulation.Result r = run(curveName, target, Scenario.steady, seed, 0.02);
      String at = curveName + " target " + target + " seed " + seed;
      assertThat(r.settlePeriods()).as(at).isBetween(0, 5);
      assertThat(r.overshootPct()).as(at).isLessThanOrEqualTo(10);
      assertThat(r.steadyErrorPct()).as(at).isLessThanOrEqualTo(3);
      assertThat(r.writesAfterConverged()).as(at).isZero();
    }
  }

  @ParameterizedTest
  @CsvSource({"read, 2000", "scan, 600"})
  void noWindupWhileDemandIsBelowTargetAndRecoveryWhenItReturns(String curveName, double target) throws Exception {
    for (long seed = 1; seed <= 30; seed++) {
      Simulation.Result r = run(curveName, target, Scenario.demandDrop, seed, 0.02);
      String at = curveName + " seed " + seed;
      assertThat(r.windupRatio()).as(at).isLessThanOrEqualTo(1.05);
      assertThat(r.recoveryPeriods()).as(at).isBetween(0, 3);
      assertThat(r.periods().subList(10, 20)).as(at).anyMatch(p -> p.state() == ControlLaw.State.DemandLimited);
    }
  }

  @ParameterizedTest
  @CsvSource({"read, 2000", "scan, 600"})
  void moreRegionServersAreFollowed(String curveName, double target) throws Exception {
    for (long seed = 1; seed <= 30; seed++) {
      Simulation.Result r = run(curveName, target, Scenario.rsChange, seed, 0.02);
      assertThat(r.recoveryPeriods()).as(curveName + " seed " + seed).isBetween(0, 5);
    }
  }

  @Test
  void atFivePercentNoiseItStillSettlesWithinTolerance() throws Exception {
    for (long seed = 1; seed <= 30; seed++) {
      Simulation.Result r = run("read", 2000, Scenario.steady, seed, 0.05);
      assertThat(r.settlePeriods()).as("seed " + seed).isBetween(0, 8);
      assertThat(r.steadyErrorPct()).as("seed " + seed).isLessThanOrEqualTo(5);
    }
  }

  @Test
  void missingOrAbsurdMetricsHoldTheLimit() {
    LogNewtonLaw law = new LogNewtonLaw(settings(1000));
    assertThat(law.next(800, Observation.missing())).satisfies(s -> {
      assertThat(s.limit()).isEqualTo(800);
      assertThat(s.state()).isEqualTo(ControlLaw.State.MetricsUnavailable);
    });
    assertThat(law.next(800, new Observation(1e9, 0.5)).limit()).as("absurd").isEqualTo(800);
    assertThat(law.next(800, new Observation(-5, 0.5)).limit()).isEqualTo(800);
    assertThat(law.next(800, new Observation(Double.POSITIVE_INFINITY, 0.5)).limit()).isEqualTo(800);
    assertThat(law.next(800, new Observation(0, Double.NaN)).limit()).as("nothing went through").isEqualTo(800);
  }

  @Test
  void boundsAndStepLimitsHold() {
    LogNewtonLaw law = new LogNewtonLaw(new Settings(1000, 100, 5000, 2, 0.03));
    var up = law.next(1000, new Observation(10, 0.9));
    assertThat(up.limit()).as("at most x2 per period").isEqualTo(2000);
    var more = law.next(4000, new Observation(10, 0.9));
    assertThat(more.limit()).isEqualTo(5000);
    assertThat(more.state()).isEqualTo(ControlLaw.State.AtBound);
    var down = new LogNewtonLaw(new Settings(1000, 100, 5000, 2, 0.03)).next(150, new Observation(1e5, 0.1));
    assertThat(down.limit()).isEqualTo(100);
  }

  @Test
  void belowTargetWithoutThrottlingItIsDemandLimitedAndDoesNotRaise() {
    LogNewtonLaw law = new LogNewtonLaw(settings(1000));
    var s = law.next(2000, new Observation(500, 0.0));
    assertThat(s.state()).isEqualTo(ControlLaw.State.DemandLimited);
    assertThat(s.limit()).isEqualTo(2000);
    assertThat(s.reason()).contains("asks for less");
  }

  @Test
  void theLawBeatsTheBaselinesOnBothCurves() throws Exception {
    for (String[] c : new String[][] {{"read", "2000"}, {"scan", "600"}}) {
      double target = Double.parseDouble(c[1]);
      Simulation.Result ours = run(c[0], target, Scenario.steady, 7, 0.02);
      for (String base : new String[] {"static", "ratio", "aimd"}) {
        Simulation.Result b = Simulation.run(BaselineLaws.byName(base, settings(target)), curve(c[0]), target, target,
            30, 0.02, 7, Scenario.steady);
        boolean worse = b.settlePeriods() < 0 || b.settlePeriods() > ours.settlePeriods()
            || b.steadyErrorPct() > ours.steadyErrorPct() || b.writes() > ours.writes();
        assertThat(worse).as(c[0] + ": " + base + " is not worse than ours in settling, error or writes").isTrue();
      }
    }
  }
}
