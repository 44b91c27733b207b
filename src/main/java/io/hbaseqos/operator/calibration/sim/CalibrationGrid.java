package io.hbaseqos.operator.calibration.sim;

import io.hbaseqos.operator.calibration.ControlLaw;
import io.hbaseqos.operator.calibration.LogNewtonLaw;
import io.hbaseqos.operator.calibration.PlantCurve;
import io.hbaseqos.operator.calibration.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code bin/calibration-sim --grid}: the calibration law on every plant shape it is judged on, each
 * scenario, measurement noise and dead time, many seeds, with issue 35's goals: settled within
 * {@link #SETTLE} periods, overshoot at most {@link Goals#OVERSHOOT_PCT}%, steady error at most
 * {@link Goals#STEADY_ERROR_PCT}% (before any disturbance; after it, the scenario's own goals of
 * {@link Goals}), and never {@code DemandLimited} while
 * HBase refuses a material share ({@link LogNewtonLaw#MATERIAL}, 5%) of the tenant's requests. One Markdown row per
 * cell.
 */
public final class CalibrationGrid {
  public static final int SETTLE = 8;
  static final double[] NOISE = {0.02, 0.05};
  static final double[] DEAD_TIME = {0.1, 0.5};

  /** A plant shape and the target it is calibrated to. */
  public record Plant(String name, PlantCurve curve, double target, String shape) {}

  /** One run's verdict: the grid's goals, and the periods it said DemandLimited while HBase refused a material share. */
  public record Verdict(boolean met, int demandLimitedWhileRefused) {}

  private CalibrationGrid() {}

  /**
   * The plants: the two reference curves measured on HBase (read, scan), a flat plant (ops rise from
   * 200 to 420 over four decades of limit), a saturating client's (ops one for one with the limit up
   * to the demand) and a bend (one for one, then almost flat past it: a target just past the bend
   * needs a limit nine times higher).
   */
  public static List<Plant> plants(Path curves) throws IOException {
    return List.of(
        new Plant("read", PlantCurve.parseCsv(Files.readString(curves.resolve("read.csv"))), 2000,
            "reference read curve"),
        new Plant("scan", PlantCurve.parseCsv(Files.readString(curves.resolve("scan.csv"))), 600,
            "reference scan curve"),
        new Plant("flat", new PlantCurve(List.of(new double[] {1, 200}, new double[] {10, 255},
            new double[] {100, 310}, new double[] {1000, 365}, new double[] {10000, 420})), 400, "flat"),
        new Plant("linear", new PlantCurve(List.of(new double[] {100, 180}, new double[] {2000, 3600},
            new double[] {100000, 3600})), 1800, "saturating client"),
        new Plant("bend", new PlantCurve(List.of(new double[] {100, 100}, new double[] {1500, 1500},
            new double[] {100000, 1900})), 1650, "bend"));
  }

  /**
   * Issue 35's goals for one run, before any disturbance, and the scenario's own after it
   * ({@link Goals}: after a demand drop, no wind-up and recovery within {@link Goals#RECOVERY_DEMAND}
   * periods; after RegionServers are added, recovery within {@link Goals#RECOVERY_SERVERS}); and its
   * DemandLimited periods while a material share was refused.
   */
  public static Verdict judge(Simulation.Result r, Simulation.Scenario scenario) {
    int wrong = 0;
    for (Simulation.Period p : r.periods()) {
      if (p.state() == ControlLaw.State.DemandLimited && p.throttledShare() >= LogNewtonLaw.MATERIAL) {
        wrong++;
      }
    }
    boolean met = r.settlePeriods() >= 0 && r.settlePeriods() <= SETTLE && r.overshootPct() <= Goals.OVERSHOOT_PCT
        && r.steadyErrorPct() <= Goals.STEADY_ERROR_PCT && wrong == 0
        && (scenario == Simulation.Scenario.steady || Goals.met(r, scenario.name()));
    return new Verdict(met, wrong);
  }

  /** One run of the law on a plant, from a stale limit a third of the target. */
  public static Simulation.Result run(Plant plant, Simulation.Scenario scenario, double noise, double deadTime,
      int periods, long seed) {
    double target = plant.target();
    return Simulation.run(new LogNewtonLaw(new Settings(target, 1, 1e12, 10, 0.03)), plant.curve(), target,
        target / 3, periods, noise, seed, scenario, deadTime);
  }

  /** Prints the grid: one Markdown row per cell, then how many cells meet every goal in 80% of seeds. */
  public static void print(Path curves, int seeds, long seed0, int periods) throws IOException {
    System.out.println("| plant | scenario | noise | dead time | goals met | settle p95 | overshoot max "
        + "| steady error p95 | DemandLimited while refused >= 5% (periods, all seeds) |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    int cells = 0;
    int passing = 0;
    for (Plant plant : plants(curves)) {
      for (Simulation.Scenario scenario : Simulation.Scenario.values()) {
        for (double noise : NOISE) {
          for (double dead : DEAD_TIME) {
            List<Simulation.Result> runs = new ArrayList<>();
            int met = 0;
            int wrong = 0;
            for (long s = seed0; s < seed0 + seeds; s++) {
              Simulation.Result r = run(plant, scenario, noise, dead, periods, s);
              Verdict v = judge(r, scenario);
              met += v.met() ? 1 : 0;
              wrong += v.demandLimitedWhileRefused();
              runs.add(r);
            }
            double share = (double) met / seeds;
            cells++;
            passing += share >= 0.8 ? 1 : 0;
            double[] settle = runs.stream()
                .mapToDouble(r -> r.settlePeriods() < 0 ? Double.POSITIVE_INFINITY : r.settlePeriods()).sorted().toArray();
            double[] error = runs.stream().mapToDouble(Simulation.Result::steadyErrorPct).sorted().toArray();
            double settle95 = q95(settle);
            String bold = share >= 0.8 ? "" : "**";
            System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %.1f | %s%.0f%%%s | %s | %.1f%% | %.1f%% | %d |%n",
                plant.name(), scenario, noise, dead, bold, 100 * share, bold,
                Double.isInfinite(settle95) ? "-" : String.format(Locale.ROOT, "%.0f", settle95),
                runs.stream().mapToDouble(Simulation.Result::overshootPct).max().orElse(0), q95(error), wrong);
          }
        }
      }
    }
    System.out.printf(Locale.ROOT, "%d of %d cells meet all goals in 80%% of seeds or more (%d seeds each, %d periods; "
        + "settled within %d, overshoot <= %.0f%%, steady error <= %.0f%%, never DemandLimited while refused >= 5%%)%n",
        passing, cells, seeds, periods, SETTLE, Goals.OVERSHOOT_PCT, Goals.STEADY_ERROR_PCT);
  }

  private static double q95(double[] sorted) {
    return sorted[(int) Math.ceil(0.95 * sorted.length) - 1];
  }
}
