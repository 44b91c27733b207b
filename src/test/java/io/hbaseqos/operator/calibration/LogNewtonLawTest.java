package io.hbaseqos.operator.calibration;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.calibration.sim.Simulation;
import io.hbaseqos.operator.calibration.sim.Simulation.Scenario;
import io.hbaseqos.operator.support.Paths;
import io.hbaseqos.operator.calibration.sim.Goals;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The operator's law against the two reference curves (bench/curves), 30 seeds each, 2% noise:
 * the goals of the calibration issue (see {@link Goals}), met on at least 27 of 30 seeds, with hard
 * caps on every seed.
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

  static List<Simulation.Result> seeds(String curveName, double target, Scenario scenario, double noise, int periods)
      throws Exception {
    List<Simulation.Result> out = new ArrayList<>();
    for (long seed = 1; seed <= SEEDS; seed++) {
      out.add(Simulation.run(new LogNewtonLaw(settings(target)), curve(curveName), target, target, periods, noise,
          seed, scenario));
    }
    return out;
  }

  static final int SEEDS = 30;
  /** The goals are met on at least this many of the 30 seeds; the rest stay within the hard caps below. */
  static final int MOST = 27;

  /**
   * The goals (settle within 5, overshoot at most 10%, steady error at most 3%, no write
   * once converged) on at least 27 of 30 noisy runs, and on every run no worse than settling in 8,
   * 4% steady error and one write after converging.
   */
  @ParameterizedTest
  @CsvSource({"read, 2000", "read, 1800", "read, 2400", "scan, 600", "scan, 450"})
  void settlesFastWithoutOvershootAndThenWritesNothing(String curveName, double target) throws Exception {
    List<Simulation.Result> runs = seeds(curveName, target, Scenario.steady, 0.02, 30);
    assertThat(runs.stream().filter(r -> Goals.met(r, "steady")).count()).as(curveName + " " + target)
        .isGreaterThanOrEqualTo(MOST);
    for (Simulation.Result r : runs) {
      String at = curveName + " target " + target;
      assertThat(r.settlePeriods()).as(at).isBetween(0, 8);
      assertThat(r.overshootPct()).as(at).isLessThanOrEqualTo(Goals.OVERSHOOT_PCT);
      assertThat(r.steadyErrorPct()).as(at).isLessThanOrEqualTo(4);
      assertThat(r.writesAfterConverged()).as(at).isLessThanOrEqualTo(1);
    }
  }

  @ParameterizedTest
  @CsvSource({"read, 2000", "read, 2400", "scan, 600"})
  void noWindupWhileDemandIsBelowTargetAndRecoveryWhenItReturns(String curveName, double target) throws Exception {
    for (Simulation.Result r : seeds(curveName, target, Scenario.demandDrop, 0.02, 30)) {
      assertThat(r.windupRatio()).as(curveName).isLessThanOrEqualTo(Goals.WINDUP);
      assertThat(r.recoveryPeriods()).as(curveName).isBetween(0, Goals.RECOVERY_DEMAND);
      assertThat(r.periods().subList(10, 20)).as(curveName).allMatch(p -> p.state() == ControlLaw.State.DemandLimited);
    }
  }

  @ParameterizedTest
  @CsvSource({"read, 2000", "read, 2400", "scan, 600", "scan, 450"})
  void moreRegionServersAreFollowed(String curveName, double target) throws Exception {
    List<Simulation.Result> runs = seeds(curveName, target, Scenario.rsChange, 0.02, 30);
    // a RegionServer change is not among the goals: recovery within 5 periods on 26 of 30 seeds
    assertThat(runs.stream().filter(r -> Goals.met(r, "rsChange")).count()).isGreaterThanOrEqualTo(26);
    assertThat(runs).allSatisfy(r -> assertThat(r.recoveryPeriods()).isBetween(0, 10));
  }

  @Test
  void atFivePercentNoiseItStaysWithinFivePercent() throws Exception {
    List<Simulation.Result> runs = seeds("read", 2000, Scenario.steady, 0.05, 30);
    assertThat(runs).allSatisfy(r -> assertThat(r.steadyErrorPct()).isLessThanOrEqualTo(5));
    assertThat(runs.stream().mapToInt(Simulation.Result::settlePeriods).sorted().toArray()[SEEDS / 2]).isBetween(0, 8);
  }

  /**
   * Over 300 periods of pure noise most runs write nothing after converging; a run of unlucky
   * samples (several 2-sigma periods in a row) may cause a correction, but never a burst.
   */
  @ParameterizedTest
  @CsvSource({"read, 2000", "read, 2400", "scan, 600"})
  void aConvergedLoopStaysQuietForHundredsOfPeriods(String curveName, double target) throws Exception {
    List<Simulation.Result> runs = seeds(curveName, target, Scenario.steady, 0.02, 300);
    assertThat(runs.stream().filter(r -> r.writesAfterConverged() == 0).count()).as(curveName).isGreaterThanOrEqualTo(20);
    assertThat(runs).allSatisfy(r -> assertThat(r.writesAfterConverged()).as(curveName).isLessThanOrEqualTo(4));
    assertThat(runs).allSatisfy(r -> assertThat(r.writes()).as(curveName).isLessThanOrEqualTo(12));
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

  /**
   * Wind-up when the target exceeds demand (the read curve's tenant stops at 3644 ops/s; target
   * 5000; throttling stops at limit 10000): DemandLimited holds at most twice the limit from which
   * the throttle stops holding the tenant back, on every seed; the one-period peak before the
   * throttle is seen to stop is reported by bin/calibration-sim, and stays under the spec's maxStep
   * times that limit.
   */
  @Test
  void aTargetAboveDemandHoldsAtMostTwiceTheLimitWhereThrottlingStopped() throws Exception {
    for (Simulation.Result r : seeds("read", 5000, Scenario.steady, 0.02, 30)) {
      assertThat(r.windupHeld()).as("held").isLessThanOrEqualTo(Goals.WINDUP_HELD);
      assertThat(r.windupPeak()).as("peak").isLessThanOrEqualTo(10);
      assertThat(r.periods().subList(10, 30)).allMatch(p -> p.state() == ControlLaw.State.DemandLimited);
      assertThat(r.writes()).isLessThanOrEqualTo(5);
    }
  }

  /**
   * The case on real HBase: near its demand a bursty tenant stays slightly throttled at any
   * limit, so the throttle looks binding while raising gains nothing. The raise that did not pay ends
   * the climb: DemandLimited, held at twice the limit before it, instead of 17k, 174k, 1.74M.
   */
  @Test
  void aRaiseThatDoesNotPayEndsTheClimb() {
    LogNewtonLaw law = new LogNewtonLaw(new Settings(5000, 1, 1e9, 10, 0.03));
    ControlLaw.Step first = law.next(5000, new Observation(3300, 0.02));
    assertThat(first.limit()).isGreaterThan(5000);
    // at the new limit: 3580 ops/s, still 1% throttled, 8.5% more for 2.3x the limit
    ControlLaw.Step judged = law.next(first.limit(), new Observation(3580, 0.01));
    assertThat(judged.state()).isEqualTo(ControlLaw.State.DemandLimited);
    assertThat(judged.reason()).contains("raising the limit from 5000 to").contains("its demand, not its throttle");
    ControlLaw.Step last = judged;
    double highest = Math.max(first.limit(), judged.limit());
    for (int i = 0; i < 20; i++) {
      last = law.next(last.limit(), new Observation(3600, 0.01));
      highest = Math.max(highest, last.limit());
    }
    assertThat(last.state()).isEqualTo(ControlLaw.State.DemandLimited);
    assertThat(Math.round(last.limit())).as("at most twice the limit before the raise that did not pay")
        .isLessThanOrEqualTo(10000);
    assertThat(highest).isLessThanOrEqualTo(first.limit());
    // demand comes back: throttled and getting more at the held limit, the loop acts again, x2 a period at most
    ControlLaw.Step back = law.next(last.limit(), new Observation(4200, 0.2));
    assertThat(back.limit()).isGreaterThan(last.limit()).isLessThanOrEqualTo(2 * last.limit());
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

  /**
   * HBase's default limiter refills in whole milliseconds, so a saturating client gets steps (here
   * as measured on HBase 2.6.4: 5999 req/s gives about 5290 ops/s, 6000 gives 6000). A target on
   * the riser cannot be met: the law must find the step, hold the side measured nearer, say so, and stop
   * writing instead of cycling between the two sides for ever.
   */
  @Test
  void aTargetBetweenStepsOfTheThrottleHoldsTheNearestSideAndStopsWriting() {
    PlantCurve stairs = new PlantCurve(List.of(new double[] {1000, 1000}, new double[] {5000, 5000},
        new double[] {5999, 5290}, new double[] {6000, 6000}, new double[] {6999, 6300}, new double[] {7000, 7000},
        new double[] {40000, 11200}));
    double target = 5611;
    int heldStep = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      LogNewtonLaw law = new LogNewtonLaw(new Settings(target, 1, 1e9, 4, 0.05));
      Simulation.Result r = Simulation.run(law, stairs, target, target, 60, 0.01, seed, Scenario.steady);
      List<Simulation.Period> p = r.periods();
      int firstConverged = -1;
      for (Simulation.Period x : p) {
        if (x.state() == ControlLaw.State.LimiterStep || x.state() == ControlLaw.State.Converged) {
          firstConverged = x.n();
          break;
        }
      }
      assertThat(firstConverged).as("seed %d converges on the nearest step", seed).isBetween(0, 30);
      double held = p.get(firstConverged + 1).limit();
      assertThat(p.subList(firstConverged + 1, p.size())).as("seed %d: no write once held", seed)
          .allSatisfy(x -> assertThat(x.limit()).isEqualTo(held));
      // a limit a fraction of a req/s below the riser may land inside the band (a real limit is whole)
      double ops = stairs.ops(held);
      // the two sides are -5.7% and +6.9% away: with 1% noise either may measure nearer
      if (Math.abs(ops - 5290) < 30 || Math.abs(ops - 6000) < 30) {
        heldStep++;
        // noise may make the held side look inside the band for a while; the average there then shows it is not
        assertThat(p.get(p.size() - 1).state()).as("seed %d: held outside the tolerance is not Converged", seed)
            .isEqualTo(ControlLaw.State.LimiterStep);
      } else {
        assertThat(Math.abs(ops / target - 1)).as("seed %d: within the band, or a side of the step (5290 or 6000): "
            + "%s", seed, ops).isLessThanOrEqualTo(0.05);
      }
      assertThat(r.writes()).as("seed %d", seed).isLessThanOrEqualTo(14);
    }
    assertThat(heldStep).as("seeds that found the step and held a side of it").isGreaterThanOrEqualTo(20);
    LogNewtonLaw law = new LogNewtonLaw(new Settings(target, 1, 1e9, 4, 0.05));
    Simulation.Result r = Simulation.run(law, stairs, target, target, 60, 0.01, 1, Scenario.steady);
    ControlLaw.Step last = law.next(r.periods().get(59).limit(), new Observation(5290, 0.5));
    assertThat(last.state()).isEqualTo(ControlLaw.State.LimiterStep);
    assertThat(last.reason()).contains("lies on a step of HBase's rate limiter").contains("holding the nearer side")
        .containsPattern("a step of \\d+ ops/s").contains("FixedInterval");
  }

  /**
   * The goals as the command line checks them by default (seed 1, 2% noise, 30 periods): on
   * both reference curves every goal holds, for steady load and for a demand drop and return.
   */
  @ParameterizedTest
  @CsvSource({"read, 2000", "scan, 600"})
  void theDefaultRunMeetsEveryGoalOnBothReferenceCurves(String curveName, double target) throws Exception {
    for (Scenario sc : new Scenario[] {Scenario.steady, Scenario.demandDrop}) {
      Simulation.Result r = run(curveName, target, sc, 1, 0.02);
      assertThat(Goals.met(r, sc.name())).as("%s %s: settle %d, overshoot %.1f%%, steady error %.1f%%, writes after "
          + "converged %d, windup %.2f, recovery %d", curveName, sc, r.settlePeriods(), r.overshootPct(),
          r.steadyErrorPct(), r.writesAfterConverged(), r.windupRatio(), r.recoveryPeriods()).isTrue();
    }
  }
}
