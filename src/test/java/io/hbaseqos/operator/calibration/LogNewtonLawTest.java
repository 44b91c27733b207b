package io.hbaseqos.operator.calibration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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
  /**
   * The goals (settle within 5, overshoot at most 10%, steady error at most 3%, no write
   * once converged) on at least 27 of 30 noisy runs (25 for the targets on a flat stretch of a curve,
   * read 1800 and scan 450, where 2% noise in ops is 17-25% in the limit); on every run overshoot
   * at most 10% and 4% steady error; every run settles, and all but one within 8 periods and with
   * at most one write after converging (the other: two, an average at its first limit that read
   * 2% low on the flat stretch corrected as more periods came in).
   */
  @ParameterizedTest
  @CsvSource({"read, 2000, 27", "read, 1800, 25", "read, 2400, 27", "scan, 600, 27", "scan, 450, 25"})
  void settlesFastWithoutOvershootAndThenWritesNothing(String curveName, double target, int most) throws Exception {
    List<Simulation.Result> runs = seeds(curveName, target, Scenario.steady, 0.02, 30);
    assertThat(runs.stream().filter(r -> Goals.met(r, "steady")).count()).as(curveName + " " + target)
        .isGreaterThanOrEqualTo(most);
    assertThat(runs.stream().filter(r -> r.settlePeriods() > 8).count()).as("runs settling after 8 periods")
        .isLessThanOrEqualTo(1);
    for (Simulation.Result r : runs) {
      String at = curveName + " target " + target;
      assertThat(r.settlePeriods()).as(at).isBetween(0, 20);
      assertThat(r.overshootPct()).as(at).isLessThanOrEqualTo(Goals.OVERSHOOT_PCT);
      assertThat(r.steadyErrorPct()).as(at).isLessThanOrEqualTo(4);
      assertThat(r.writesAfterConverged()).as(at).isLessThanOrEqualTo(2);
    }
    assertThat(runs.stream().filter(r -> r.writesAfterConverged() > 1).count()).as("runs writing twice after converging")
        .isLessThanOrEqualTo(1);
  }

  /**
   * Plants the law was never tuned on, shaped like HBase under a saturating client (ops follow the
   * limit one for one up to the demand, or nearly so), from a stale limit a third of the target and
   * one 1.7 times it (past the demand). An elasticity assumed from the reference curves (0.3)
   * overshot these by 15-64% on the first move; the first move now falls short of the target on
   * every seed (within the noise), and the goals hold on 27 of 30.
   */
  @ParameterizedTest
  @CsvSource({"linear, 600", "linear, 3000", "bend, 600", "bend, 3000"})
  void theFirstMoveFallsShortOfTheTargetOnPlantsSteeperThanTheReferenceCurves(String shape, double start) {
    PlantCurve plant = "linear".equals(shape)
        ? new PlantCurve(List.of(new double[] {100, 180}, new double[] {2000, 3600}, new double[] {100000, 3600}))
        : new PlantCurve(List.of(new double[] {100, 150}, new double[] {1000, 1300}, new double[] {2000, 2300},
            new double[] {3000, 2900}, new double[] {6000, 3600}, new double[] {100000, 3700}));
    double target = 1800;
    int met = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      Simulation.Result r = Simulation.run(new LogNewtonLaw(settings(target)), plant, target, start, 30, 0.02, seed,
          Scenario.steady);
      double before = r.periods().get(0).trueOps() / target - 1;
      double after = r.periods().get(1).trueOps() / target - 1;
      String at = shape + " from " + start + " seed " + seed;
      assertThat(r.periods().get(1).limit()).as(at + ": the first move").isNotEqualTo(start);
      // on the start's side of the target, give or take the noise of the one measurement it was made from
      assertThat(Math.signum(before) * after).as(at + ": after the first move").isGreaterThanOrEqualTo(-0.06);
      assertThat(r.overshootPct()).as(at).isLessThanOrEqualTo(Goals.OVERSHOOT_PCT);
      met += Goals.met(r, "steady") ? 1 : 0;
    }
    assertThat(met).as(shape + " from " + start).isGreaterThanOrEqualTo(27);
  }

  @ParameterizedTest
  @CsvSource({"read, 2000", "read, 2400", "scan, 600"})
  void noWindupWhileDemandIsBelowTargetAndRecoveryWhenItReturns(String curveName, double target) throws Exception {
    List<Simulation.Result> runs = seeds(curveName, target, Scenario.demandDrop, 0.02, 30);
    // one run may still be hunting on the flat top of the scan curve when the demand drops
    assertThat(runs.stream().filter(r -> r.recoveryPeriods() > Goals.RECOVERY_DEMAND).count()).as(curveName)
        .isLessThanOrEqualTo(1);
    for (Simulation.Result r : runs) {
      assertThat(r.windupRatio()).as(curveName).isLessThanOrEqualTo(Goals.WINDUP);
      assertThat(r.recoveryPeriods()).as(curveName).isBetween(0, 2 * Goals.RECOVERY_DEMAND);
      assertThat(r.periods().subList(10, 20)).as(curveName).allMatch(p -> p.state() == ControlLaw.State.DemandLimited);
    }
  }

  @ParameterizedTest
  @CsvSource({"read, 2000", "read, 2400", "scan, 600", "scan, 450"})
  void moreRegionServersAreFollowed(String curveName, double target) throws Exception {
    List<Simulation.Result> runs = seeds(curveName, target, Scenario.rsChange, 0.02, 30);
    // a RegionServer change is not among the goals: recovery within 5 periods on 24 of 30 seeds, within
    // 10 on 29. (On scan 450 the change moves ops by 6%; a run whose converged average read 2% high sees 4%,
    // under the detector's alarm, and holds 5.6% over the target.)
    assertThat(runs.stream().filter(r -> Goals.met(r, "rsChange")).count()).isGreaterThanOrEqualTo(24);
    assertThat(runs.stream().filter(r -> r.recoveryPeriods() >= 0 && r.recoveryPeriods() <= 10).count())
        .isGreaterThanOrEqualTo(29);
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
   * Wind-up when the target exceeds demand (the read curve's tenant stops at 3644 ops/s, the scan
   * curve's at 690; throttling stops at the curve's last limit): DemandLimited holds at most twice
   * the limit from which the throttle stops holding the tenant back, on every seed, and keeps the
   * tenant within 10% of its demand (a raise on the flat top of the scan curve may gain under a
   * third of what was predicted, and hold there). The one-period peak before the throttle is seen
   * to stop is reported by bin/calibration-sim: under the spec's maxStep (10) times that limit on the read curve; on the scan
   * curve, whose top is flat (elasticity 0.08), up to 28x on 29 seeds of 30, a second 10x raise made on a
   * period that still counted the old limit's throttling (0.3%), taken back the period after; on one, 52x:
   * a raise that paid little while HBase still refused 5% or more of the requests, which the law counts as
   * the throttle holding the tenant back (never DemandLimited), so it climbed once more. A loop that moved
   * every period, each first period straddling the move, once knew no binding limit but its first:
   * its hold dropped the scan tenant to twice that (1600 req/s, a quarter of its demand) and climbed
   * again, for ever.
   */
  @ParameterizedTest
  @CsvSource({"read, 5000, 10, 10, 5", "read, 4000, 10, 10, 5", "scan, 800, 60, 15, 12"})
  void aTargetAboveDemandHoldsAtMostTwiceTheLimitWhereThrottlingStopped(String curveName, double target,
      double peak, int heldFrom, int writes) throws Exception {
    double demand = curve(curveName).demand();
    for (Simulation.Result r : seeds(curveName, target, Scenario.steady, 0.02, 30)) {
      assertThat(r.windupHeld()).as("held").isLessThanOrEqualTo(Goals.WINDUP_HELD);
      assertThat(r.windupPeak()).as("peak").isLessThanOrEqualTo(peak);
      assertThat(r.periods().subList(heldFrom, 30)).allMatch(p -> p.state() == ControlLaw.State.DemandLimited)
          .allSatisfy(p -> assertThat(p.trueOps()).as("held near its demand").isGreaterThan(0.9 * demand));
      assertThat(r.writes()).as("no climb-and-drop cycle").isLessThanOrEqualTo(writes);
    }
  }

  /**
   * The case on real HBase: near its demand a bursty tenant stays slightly throttled at any
   * limit, so the throttle looks binding while raising gains nothing. The first raise is the
   * proportional one (5000 x 5000/3300); the raise after it, sized by the elasticity it taught,
   * does not pay and ends the climb: DemandLimited, held at twice the limit before it, instead of
   * 17k, 174k, 1.74M.
   */
  @Test
  void aRaiseThatDoesNotPayEndsTheClimb() {
    LogNewtonLaw law = new LogNewtonLaw(new Settings(5000, 1, 1e9, 10, 0.03));
    ControlLaw.Step first = law.next(5000, new Observation(3300, 0.02));
    assertThat(first.limit()).as("the proportional move, no further").isCloseTo(5000 * 5000 / 3300.0, within(1.0));
    // at the new limit: 3580 ops/s, still 1% throttled: 8.5% more for 1.5x the limit, an elasticity of 0.2
    ControlLaw.Step second = law.next(first.limit(), new Observation(3580, 0.01));
    assertThat(second.state()).isEqualTo(ControlLaw.State.Converging);
    assertThat(second.limit()).isGreaterThan(first.limit());
    // the raise the learnt elasticity asked for gains nothing
    ControlLaw.Step judged = law.next(second.limit(), new Observation(3600, 0.01));
    assertThat(judged.state()).isEqualTo(ControlLaw.State.DemandLimited);
    assertThat(judged.reason()).contains(String.format("raising the limit from %.0f to", first.limit()))
        .contains("HBase refuses 1.0% of its requests, so with none refused it would do about 3636 ops/s")
        .contains("its demand, not its throttle");
    ControlLaw.Step last = judged;
    double highest = Math.max(second.limit(), judged.limit());
    for (int i = 0; i < 20; i++) {
      last = law.next(last.limit(), new Observation(3600, 0.01));
      highest = Math.max(highest, last.limit());
    }
    assertThat(last.state()).isEqualTo(ControlLaw.State.DemandLimited);
    assertThat(last.limit()).as("at most twice the limit before the raise that did not pay")
        .isLessThanOrEqualTo(2 * first.limit() + 1);
    assertThat(highest).as("one raise past the demand, not a climb to millions").isLessThanOrEqualTo(20000);
    // demand comes back: throttled and getting more at the held limit, the loop acts again, x2 a period at most
    ControlLaw.Step back = law.next(last.limit(), new Observation(4200, 0.2));
    assertThat(back.limit()).isGreaterThan(last.limit()).isLessThanOrEqualTo(2 * last.limit());
  }

  /**
   * A flat plant, as a scan tenant is: its ops rise from 200 to 420 over four decades of limit, so
   * every raise pays little, while HBase refuses 5-20% of its requests. A raise that paid little
   * ended the climb as DemandLimited, 10-33% below the target, in 2 of 3 seeds. The refused share
   * says the throttle holds it back (served, those requests would reach the target): the law never
   * says DemandLimited while that is so, climbs by the small elasticity it learnt, and settles.
   */
  @Test
  void aFlatPlantHBaseThrottlesIsNeverCalledDemandLimitedAndReachesItsTarget() {
    PlantCurve flat = new PlantCurve(List.of(new double[] {1, 200}, new double[] {10, 255}, new double[] {100, 310},
        new double[] {1000, 365}, new double[] {10000, 420}));
    double target = 400;
    for (long seed = 1; seed <= SEEDS; seed++) {
      Simulation.Result r = Simulation.run(new LogNewtonLaw(settings(target)), flat, target, target, 30, 0.02, seed,
          Scenario.steady);
      assertThat(r.periods()).as("seed " + seed).noneMatch(p -> p.state() == ControlLaw.State.DemandLimited
          && p.throttledShare() >= LogNewtonLaw.NOT_BINDING && p.trueOps() / (1 - p.throttledShare()) >= target);
      // the calibration goals of a plant the law was not developed on: settled within 8 periods, overshoot
      // at most 10%, steady error at most 3%, no write once converged (2% noise in ops is about 30% in
      // the limit at this elasticity, so 5 periods, the reference curves' goal, is met on 22 of 30)
      assertThat(r.settlePeriods()).as("seed " + seed + " settles").isBetween(0, 8);
      assertThat(r.overshootPct()).as("seed " + seed).isLessThanOrEqualTo(Goals.OVERSHOOT_PCT);
      assertThat(r.steadyErrorPct()).as("seed " + seed).isLessThanOrEqualTo(Goals.STEADY_ERROR_PCT);
      assertThat(r.writesAfterConverged()).as("seed " + seed).isZero();
    }
  }

  /**
   * Out of reach under the maximum limit on a flat plant HBase still throttles: AtBound, naming
   * the refused share and the limit the learnt elasticity says the target needs, never DemandLimited.
   */
  @Test
  void aTargetOutOfReachBelowTheMaximumSaysWhyWithTheRefusedShare() {
    LogNewtonLaw law = new LogNewtonLaw(new Settings(400, 1, 2000, 10, 0.03));
    PlantCurve flat = new PlantCurve(List.of(new double[] {1, 200}, new double[] {10, 255}, new double[] {100, 310},
        new double[] {1000, 365}, new double[] {10000, 420}));
    double limit = 400;
    ControlLaw.Step step = null;
    for (int i = 0; i < 12; i++) {
      double ops = flat.ops(limit);
      step = law.next(limit, new Observation(ops, (420 - ops) / 420));
      assertThat(step.state()).as("period " + i).isNotEqualTo(ControlLaw.State.DemandLimited);
      limit = step.limit();
    }
    assertThat(step.state()).isEqualTo(ControlLaw.State.AtBound);
    assertThat(step.limit()).isEqualTo(2000);
    double atMax = flat.ops(2000);
    assertThat(step.reason()).startsWith(String.format("the limit is at its maximum; %.0f ops/s is below the target 400 "
        + "while HBase refuses %.1f%% of the tenant's requests: the target is out of reach below the maximum limit "
        + "(2000 req/s); by the elasticity learnt (0.", atMax, (420 - atMax) / 420 * 100))
        .matches(".*it would need about [0-9]+ req/s");
    // the curve's own answer: 400 ops/s lies at about 4300 req/s on it, so the learnt figure is of that order
    double needed = Double.parseDouble(step.reason().replaceAll(".*about ([0-9]+) req/s$", "$1"));
    assertThat(needed).isBetween(2500.0, 10000.0);
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
      // the two sides are -5.7% and +6.9% away: with 1% noise either may measure nearer. The riser itself is
      // 1 req/s wide here; a limit on it (no whole limit is) is a side measured there, outside the band too
      boolean onRiser = held > 5999 && held < 6000 && Math.abs(ops / target - 1) > 0.05;
      if (Math.abs(ops - 5290) < 30 || Math.abs(ops - 6000) < 30 || onRiser) {
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
