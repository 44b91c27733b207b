package io.hbaseqos.operator.qos.sim;

import io.hbaseqos.operator.qos.ProtectionLaw;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * {@code bin/qos-sim --grid --mix}: the law with two protected tenants and sheddable tenants at two
 * priorities on one server, on {@link ProtectionSim.Plant}'s shapes, lag, noise and drift. U1
 * (priority 100) has the objective {@code factor} x p0, U2 (priority 80) a looser one, twice that;
 * both read the server's p99 (U's demand is theirs together), each with noise of its own, and the
 * machine's drift. T's demand is split: T1 (priority 10) two thirds, T2 (priority 20) a third. Each
 * written limit takes effect with its own lag draw. Nothing places the misses (both sheddable
 * tenants share U's server), so the law cuts the lowest level first.
 *
 * <p>The oracle is the pair of static limits, the lower priority cut first, with the highest
 * throughput of T1 and T2 together under which both objectives are met in 90% of periods (swept
 * on the same seeds, drift included): T1 swept with T2 at its ceiling, and when T1 at its floor is
 * not enough, T2 swept with T1 at its floor. The goals of a run are {@link ProtectionSim.Goals}'s:
 * both limits settled and each protected tenant meeting its objective after, T1 and T2 together
 * within 15% of the oracle; and the priorities kept (T2 never below its ceiling while T1 is above
 * its floor), which the law's rules guarantee and the run checks.
 */
public final class MixSim {
  private MixSim() {}

  /**
   * @param settle the first period from which both limits stay near where they end and each
   *     protected tenant meets its objective in 90% of the periods left
   * @param violatedAfter the worse protected tenant's share of missed periods after settling
   * @param share T1 and T2's throughput after settling over the oracle's
   * @param priorityKept T2 (the higher sheddable priority) was never below its ceiling while T1 was above its floor
   */
  public record Result(int settle, double violatedAfter, double share, boolean priorityKept) {
    public boolean met() {
      return settle <= ProtectionSim.Goals.SETTLE && violatedAfter <= ProtectionSim.Goals.VIOLATED
          && share >= ProtectionSim.Goals.SHARE && priorityKept;
    }
  }

  /** T1's share of T's demand. */
  static final double T1 = 2.0 / 3;

  /** T1's and T2's ops at their limits, and the server's noiseless p99. */
  static double[] at(ProtectionSim.Plant plant, double l1, double l2, int period) {
    double d = plant.demandT(period);
    double y1 = Math.min(T1 * d, plant.k() * l1);
    double y2 = Math.min((1 - T1) * d, plant.k() * l2);
    double yU = Math.min(plant.demandU(), Math.max(0, plant.capacity() - y1 - y2));
    return new double[] {y1, y2, plant.p99((y1 + y2 + yU) / plant.capacity())};
  }

  /** The seed's noise for U1 and U2, period by period (two streams of the seed). */
  static double[][] noise(ProtectionSim.Plant plant, int periods, long seed) {
    Random a = new Random(seed);
    Random b = new Random(seed * 7919 + 11);
    double[][] n = new double[2][periods];
    for (int p = 0; p < periods; p++) {
      n[0][p] = plant.noise() * a.nextGaussian();
      n[1][p] = plant.noise() * b.nextGaussian();
    }
    return n;
  }

  static boolean meets(ProtectionSim.Plant plant, double bound, double l1, double l2, double[] drift, double[][] noise) {
    int periods = drift.length;
    int ok1 = 0;
    int ok2 = 0;
    for (int p = 0; p < periods; p++) {
      double p99 = at(plant, l1, l2, p)[2] * Math.exp(drift[p]);
      ok1 += p99 * Math.exp(noise[0][p]) <= bound ? 1 : 0;
      ok2 += p99 * Math.exp(noise[1][p]) <= 2 * bound ? 1 : 0;
    }
    return ok1 >= 0.9 * periods && ok2 >= 0.9 * periods;
  }

  /** The oracle's limits of T1 and T2 (see the class comment). */
  static double[] oracle(ProtectionSim.Plant plant, double bound, long floor, long ceiling, double[] drift,
      double[][] noise) {
    double best1 = -1;
    for (double l = floor; l <= ceiling; l *= 1.02) {
      if (meets(plant, bound, l, ceiling, drift, noise)) {
        best1 = l;
      }
    }
    if (best1 > 0) {
      return new double[] {best1, ceiling};
    }
    double best2 = floor;
    for (double l = floor; l <= ceiling; l *= 1.02) {
      if (meets(plant, bound, floor, l, drift, noise)) {
        best2 = l;
      }
    }
    return new double[] {floor, best2};
  }

  /** One run; U1's objective is {@code factor} x p0, U2's twice that. */
  public static Result run(ProtectionSim.Plant plant, double factor, long floor, long ceiling, int periods, long seed) {
    double bound = factor * plant.p0();
    double[] drift = plant.drift(periods, seed);
    double[][] noise = noise(plant, periods, seed);
    double[] oracle = oracle(plant, bound, floor, ceiling, drift, noise);
    Random lag = new Random(seed * 31 + 7);
    ProtectionLaw.Memory memory = new ProtectionLaw.Memory();
    long[] limit = {ceiling, ceiling};
    long[] inForce = {ceiling, ceiling};
    long[] roof = {0, 0};
    long[][] limits = new long[2][periods];
    boolean[][] violated = new boolean[2][periods];
    double[] ops = new double[periods];
    boolean priorityKept = true;
    for (int p = 0; p < periods; p++) {
      double[] y = at(plant, inForce[0], inForce[1], p);
      double p1 = y[2] * Math.exp(drift[p] + noise[0][p]);
      double p2 = y[2] * Math.exp(drift[p] + noise[1][p]);
      violated[0][p] = p1 > bound;
      violated[1][p] = p2 > 2 * bound;
      ops[p] = y[0] + y[1];
      List<ProtectionLaw.Protected> protecteds = List.of(
          new ProtectionLaw.Protected("u1", 100, List.of(new ProtectionLaw.Objective("reads p99", bound, p1, null))),
          new ProtectionLaw.Protected("u2", 80, List.of(new ProtectionLaw.Objective("reads p99", 2 * bound, p2,
              null))));
      List<ProtectionLaw.Sheddable> below = List.of(
          new ProtectionLaw.Sheddable("t1", 10, floor, ceiling, limit[0], y[0] / plant.k(), roof[0]),
          new ProtectionLaw.Sheddable("t2", 20, floor, ceiling, limit[1], y[1] / plant.k(), roof[1]));
      ProtectionLaw.Decision d = ProtectionLaw.step(protecteds, below, memory, 0);
      String[] ids = {"t1", "t2"};
      for (int i = 0; i < 2; i++) {
        ProtectionLaw.Cap c = d.caps().get(ids[i]);
        limit[i] = c.limit();
        roof[i] = c.roof();
        limits[i][p] = limit[i];
        inForce[i] = lag.nextDouble() < plant.lag() ? inForce[i] : limit[i];
      }
      priorityKept &= limit[1] >= ceiling || limit[0] <= floor;
    }
    int settle = settle(limits, violated);
    int n = Math.max(1, periods - settle);
    double worst = 0;
    for (int u = 0; u < 2; u++) {
      int missed = 0;
      for (int p = settle; p < periods; p++) {
        missed += violated[u][p] ? 1 : 0;
      }
      worst = Math.max(worst, (double) missed / n);
    }
    double sum = 0;
    for (int p = settle; p < periods; p++) {
      sum += ops[p];
    }
    double oracleOps = 0;
    for (int p = 0; p < periods; p++) {
      double[] y = at(plant, oracle[0], oracle[1], p);
      oracleOps += (y[0] + y[1]) / periods;
    }
    return new Result(settle, worst, oracleOps == 0 ? Double.NaN : sum / n / oracleOps, priorityKept);
  }

  /**
   * {@link ProtectionSim#settle} for every limit and every protected tenant at once: the first
   * period from which each limit is within a factor 1.25 of where it ends (median of the last third)
   * in at least 90% of the periods left, and each protected tenant meets its objective in 90% of them.
   */
  static int settle(long[][] limits, boolean[][] violated) {
    int n = limits[0].length;
    double[] end = new double[limits.length];
    for (int i = 0; i < limits.length; i++) {
      long[] tail = java.util.Arrays.copyOfRange(limits[i], n - n / 3, n);
      java.util.Arrays.sort(tail);
      end[i] = tail[tail.length / 2];
    }
    for (int s = 0; s < n; s++) {
      boolean ok = true;
      for (int i = 0; i < limits.length && ok; i++) {
        int away = 0;
        for (int p = s; p < n; p++) {
          away += limits[i][p] <= end[i] * 1.25 && limits[i][p] >= end[i] / 1.25 ? 0 : 1;
        }
        ok = away <= 0.1 * (n - s);
      }
      for (int u = 0; u < violated.length && ok; u++) {
        int bad = 0;
        for (int p = s; p < n; p++) {
          bad += violated[u][p] ? 1 : 0;
        }
        ok = bad <= 0.1 * (n - s);
      }
      if (ok) {
        return s;
      }
    }
    return n;
  }

  /** The grid of {@link ProtectionSim#grid}'s cells with this mix of tenants: one Markdown row per cell. */
  static void grid(Map<String, String> o, int seeds, long seed0, int periods, long floor, long ceiling) {
    System.out.println("| plant | lag | noise | drift | U1's objective / unloaded p99 | goals met | settle p95 "
        + "| worse U missed after, p95 | T1+T2 / oracle, median | priority kept |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    int cells = 0;
    int passing = 0;
    for (String shape : ProtectionSim.GRID_SHAPES) {
      for (double lag : ProtectionSim.GRID_LAG) {
        for (double noise : ProtectionSim.GRID_NOISE) {
          for (double drift : ProtectionSim.GRID_DRIFT) {
            for (double factor : ProtectionSim.GRID_FACTOR) {
              ProtectionSim.Plant plant = ProtectionSim.plant(o, shape, noise, lag, drift);
              double unloaded = plant.p99(plant.demandU() / plant.capacity());
              List<Result> runs = new ArrayList<>();
              for (long s = seed0; s < seed0 + seeds; s++) {
                runs.add(run(plant, factor * unloaded / plant.p0(), floor, ceiling, periods, s));
              }
              double met = (double) runs.stream().filter(Result::met).count() / runs.size();
              cells++;
              passing += met >= 0.8 ? 1 : 0;
              String bold = met >= 0.8 ? "" : "**";
              System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1fx | %s%.0f%%%s | %.0f | %.2f | %.2f "
                  + "| %.0f%% |%n", shape, lag, noise, drift, factor, bold, 100 * met, bold,
                  ProtectionSim.q(runs.stream().mapToDouble(Result::settle).sorted().toArray(), 0.95),
                  ProtectionSim.q(runs.stream().mapToDouble(Result::violatedAfter).sorted().toArray(), 0.95),
                  ProtectionSim.q(runs.stream().mapToDouble(Result::share).sorted().toArray(), 0.5),
                  100.0 * runs.stream().filter(Result::priorityKept).count() / runs.size());
            }
          }
        }
      }
    }
    System.out.printf(Locale.ROOT, "%d of %d cells meet all goals in 80%% of seeds or more (%d seeds each, %d periods; "
        + "two protected tenants, two priorities of sheddable ones)%n", passing, cells, seeds, periods);
  }
}
