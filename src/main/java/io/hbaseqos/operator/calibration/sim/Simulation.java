package io.hbaseqos.operator.calibration.sim;

import io.hbaseqos.operator.calibration.ControlLaw;
import io.hbaseqos.operator.calibration.Observation;
import io.hbaseqos.operator.calibration.PlantCurve;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded, deterministic simulation of a throttled tenant under a calibration law: each period
 * the tenant gets {@code curve(limit x RegionServer factor)} ops/s, capped by its demand, with the
 * first {@link #DEAD_TIME} of the period still under the previous limit (the time until every
 * RegionServer has the new quota), multiplicative log-normal measurement noise, and the share of
 * its requests HBase refuses. Scenarios add a demand drop (to half the target, then back) or a
 * RegionServer count change (+25%: MACHINE-scope limits apply per RegionServer).
 */
public final class Simulation {
  /**
   * Share of a period still under the previous limit: since HBase 2.6.3 RegionServers reload
   * quotas about a second after setQuota, so what lags is mostly the metrics window's edge.
   */
  public static final double DEAD_TIME = 0.1;
  /** Settled: within this of the target for {@link #HOLD} consecutive periods. */
  public static final double SETTLE_BAND = 0.05;
  public static final int HOLD = 5;

  public enum Scenario { steady, demandDrop, rsChange }

  /** One period: the limit in force, the true and the measured ops/s, and what the law said. */
  public record Period(int n, double limit, double trueOps, double measuredOps, double throttledShare,
      ControlLaw.State state) {}

  /**
   * @param settlePeriods first period from which the true ops stay within 5% for 5 periods (before
   *     any disturbance); -1 if never
   * @param overshootPct the most the true ops went past the target, to the side opposite the one they
   *     started on, after the first move and before any disturbance (started within 5% of the target:
   *     the most they exceeded it)
   * @param steadyErrorPct mean |true/target - 1| over the last 10 periods (at most half the undisturbed phase)
   * @param writesAfterConverged limit changes after the law said Converged and the true ops stayed within 5%
   * @param windupRatio demand drop: the highest limit during the drop over the limit when it began
   * @param recoveryPeriods periods after a disturbance ends (demand returns, RegionServers added) until settled
   * @param windupPeak a target above the tenant's demand: the highest limit over the limit from which
   *     the throttle stops holding it back (the curve's last point); NaN otherwise
   * @param windupHeld the same over the second half of the run: the limit the law settles on holding
   */
  public record Result(String law, double target, List<Period> periods, int settlePeriods, double overshootPct,
      double steadyErrorPct, int writes, int writesAfterConverged, double finalLimit, double finalOps,
      double windupRatio, int recoveryPeriods, double windupPeak, double windupHeld) {}

  private Simulation() {}

  public static Result run(ControlLaw law, PlantCurve curve, double target, double initialLimit, int periods,
      double noise, long seed, Scenario scenario) {
    return run(law, curve, target, initialLimit, periods, noise, seed, scenario, DEAD_TIME);
  }

  /**
   * @param deadTime share of each period still under the previous limit (0 for readings aligned with
   *     the limit; 1 for counters a whole period stale)
   */
  public static Result run(ControlLaw law, PlantCurve curve, double target, double initialLimit, int periods,
      double noise, long seed, Scenario scenario, double deadTime) {
    Random rnd = new Random(seed);
    int dropStart = scenario == Scenario.demandDrop ? periods / 3 : Integer.MAX_VALUE;
    int dropEnd = scenario == Scenario.demandDrop ? 2 * periods / 3 : Integer.MAX_VALUE;
    int rsAt = scenario == Scenario.rsChange ? periods / 2 : Integer.MAX_VALUE;
    double limit = law.initial(initialLimit);
    double previous = limit;
    List<Period> out = new ArrayList<>();
    List<Integer> writeAt = new ArrayList<>();
    for (int n = 0; n < periods; n++) {
      double rs = n >= rsAt ? 1.25 : 1.0;
      double demand = n >= dropStart && n < dropEnd ? Math.min(curve.demand(), 0.5 * target) : curve.demand();
      double now = Math.min(demand, curve.ops(limit * rs));
      double before = Math.min(demand, curve.ops(previous * rs));
      double trueOps = (1 - deadTime) * now + deadTime * before;
      double measured = trueOps * Math.exp(noise * rnd.nextGaussian());
      double throttled = Math.max(0, (demand - trueOps) / demand);
      ControlLaw.Step step = law.next(limit, new Observation(measured, throttled));
      out.add(new Period(n, limit, trueOps, measured, throttled, step.state()));
      previous = limit;
      if (Math.abs(Math.log(step.limit() / limit)) > 1e-12) {
        writeAt.add(n + 1);
      }
      limit = step.limit();
    }
    int phaseEnd = Math.min(periods, Math.min(dropStart, rsAt));
    int settle = settle(out, target, 0, phaseEnd);
    double overshoot = 0;
    double start = out.get(0).trueOps() / target - 1;
    // the side the ops started on; within the settle band, any excess counts
    int side = Math.abs(start) <= SETTLE_BAND ? -1 : start > 0 ? 1 : -1;
    for (int n = 1; n < phaseEnd; n++) {
      overshoot = Math.max(overshoot, -side * (out.get(n).trueOps() / target - 1));
    }
    double err = 0;
    int from = Math.max(phaseEnd / 2, phaseEnd - 10);
    for (int n = from; n < phaseEnd; n++) {
      err += Math.abs(out.get(n).trueOps() / target - 1);
    }
    err /= Math.max(1, phaseEnd - from);
    int converged = Integer.MAX_VALUE;
    for (int n = phaseEnd - 1; n >= 0 && Math.abs(out.get(n).trueOps() / target - 1) <= SETTLE_BAND; n--) {
      if (out.get(n).state() == ControlLaw.State.Converged) {
        converged = n;
      }
    }
    int convergedAt = converged;
    int afterConverged = (int) writeAt.stream().filter(w -> w > convergedAt && w < phaseEnd).count();
    double windup = Double.NaN;
    int recovery = -1;
    if (scenario == Scenario.demandDrop) {
      double entry = out.get(dropStart).limit();
      double peak = out.subList(dropStart, dropEnd).stream().mapToDouble(Period::limit).max().orElse(entry);
      windup = peak / entry;
      recovery = settle(out, target, dropEnd, periods);
      recovery = recovery < 0 ? -1 : recovery - dropEnd;
    } else if (scenario == Scenario.rsChange) {
      recovery = settle(out, target, rsAt, periods);
      recovery = recovery < 0 ? -1 : recovery - rsAt;
    }
    double peak = Double.NaN;
    double held = Double.NaN;
    if (target > curve.demand()) {
      double stop = curve.saturationLimit();
      peak = out.stream().mapToDouble(Period::limit).max().orElse(limit) / stop;
      held = out.subList(periods / 2, periods).stream().mapToDouble(Period::limit).max().orElse(limit) / stop;
    }
    Period last = out.get(out.size() - 1);
    return new Result(law.name(), target, out, settle, overshoot * 100, err * 100, writeAt.size(), afterConverged, limit,
        last.trueOps(), windup, recovery, peak, held);
  }

  /** The first period from which the true ops stay within the band for HOLD periods (or to the end); -1 if never. */
  static int settle(List<Period> ps, double target, int from, int to) {
    for (int n = from; n < to; n++) {
      boolean ok = true;
      for (int m = n; m < Math.min(to, n + HOLD); m++) {
        if (Math.abs(ps.get(m).trueOps() / target - 1) > SETTLE_BAND) {
          ok = false;
          break;
        }
      }
      if (ok && Math.min(to, n + HOLD) - n >= Math.min(HOLD, to - from)) {
        return n;
      }
    }
    return -1;
  }
}
