package io.hbaseqos.operator.calibration.sim;

import io.hbaseqos.operator.calibration.BaselineLaws;
import io.hbaseqos.operator.calibration.PlantCurve;
import io.hbaseqos.operator.calibration.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bin/calibration-sim}: runs a calibration law against a plant curve and prints one JSON
 * line per law. Interface kept stable for users replaying their own measured curves:
 * {@code --plant FILE --target OPS [--periods N] [--noise F] [--seed N] [--law ours|static|ratio|aimd|all]
 * [--scenario steady|demandDrop|rsChange] [--initial-limit L] [--max-step F] [--tolerance F]
 * [--min-limit L] [--max-limit L] [--seeds N] [--trace] [--dead-time F]}; {@code --grid [--seeds 30]
 * [--periods 40] [--curves DIR]} prints {@link CalibrationGrid}'s table.
 */
public final class CalibrationSim {
  private CalibrationSim() {}

  public static void main(String[] args) throws IOException {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) {
        usage("unexpected argument " + args[i]);
      }
      String k = args[i].substring(2);
      if (k.equals("trace") || k.equals("help") || k.equals("grid")) {
        o.put(k, "true");
      } else if (i + 1 < args.length) {
        o.put(k, args[++i]);
      } else {
        usage("--" + k + " needs a value");
      }
    }
    if (o.containsKey("grid") && !o.containsKey("help")) {
      CalibrationGrid.print(Path.of(o.getOrDefault("curves", System.getProperty("calibration.curves", "bench/curves"))),
          Integer.parseInt(o.getOrDefault("seeds", "30")), Long.parseLong(o.getOrDefault("seed", "1")),
          Integer.parseInt(o.getOrDefault("periods", "40")));
      return;
    }
    if (o.containsKey("help") || !o.containsKey("plant") || !o.containsKey("target")) {
      usage(null);
    }
    PlantCurve curve = PlantCurve.parseCsv(Files.readString(Path.of(o.get("plant"))));
    double target = Double.parseDouble(o.get("target"));
    Settings s = new Settings(target, Double.parseDouble(o.getOrDefault("min-limit", "1")),
        Double.parseDouble(o.getOrDefault("max-limit", "1e12")), Double.parseDouble(o.getOrDefault("max-step", "10")),
        Double.parseDouble(o.getOrDefault("tolerance", "0.03")));
    String lawName = o.getOrDefault("law", "ours");
    List<String> laws = lawName.equals("all") ? List.of("static", "ratio", "aimd", "ours") : List.of(lawName);
    int seeds = Integer.parseInt(o.getOrDefault("seeds", "1"));
    long seed0 = Long.parseLong(o.getOrDefault("seed", "1"));
    String scenario = o.getOrDefault("scenario", "steady");
    for (String name : laws) {
      List<Simulation.Result> runs = new ArrayList<>();
      for (long seed = seed0; seed < seed0 + seeds; seed++) {
        Simulation.Result r = Simulation.run(BaselineLaws.byName(name, s), curve, target,
            Double.parseDouble(o.getOrDefault("initial-limit", o.get("target"))),
            Integer.parseInt(o.getOrDefault("periods", "30")), Double.parseDouble(o.getOrDefault("noise", "0.02")),
            seed, Simulation.Scenario.valueOf(scenario),
            Double.parseDouble(o.getOrDefault("dead-time", String.valueOf(Simulation.DEAD_TIME))));
        if (o.containsKey("trace")) {
          for (Simulation.Period p : r.periods()) {
            System.err.printf(Locale.ROOT, "%s seed %d period %2d limit %12.1f true %9.1f measured %9.1f throttled "
                + "%5.1f%% %s%n", name, seed, p.n(), p.limit(), p.trueOps(), p.measuredOps(), p.throttledShare() * 100,
                p.state());
          }
        }
        runs.add(r);
      }
      System.out.println(seeds == 1 ? json(runs.get(0), o.get("plant"), scenario)
          : summary(runs, o.get("plant"), scenario));
    }
  }

  /**
   * Many seeds: the median of each figure as the usual fields, plus its 95th percentile and worst
   * ({@code *_p95}, {@code *_max}) and the share of seeds that met every goal.
   */
  static String summary(List<Simulation.Result> runs, String plant, String scenario) {
    Simulation.Result first = runs.get(0);
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
        "{\"law\":\"%s\",\"plant\":\"%s\",\"scenario\":\"%s\",\"target\":%s,\"periods\":%d,\"seeds\":%d",
        first.law(), plant.replace("\"", ""), scenario, num(first.target()), first.periods().size(), runs.size()));
    figure(sb, "settle_periods", runs, r -> r.settlePeriods() < 0 ? Double.POSITIVE_INFINITY : r.settlePeriods());
    figure(sb, "overshoot_pct", runs, Simulation.Result::overshootPct);
    figure(sb, "steady_error_pct", runs, Simulation.Result::steadyErrorPct);
    figure(sb, "writes", runs, r -> r.writes());
    figure(sb, "writes_after_converged", runs, r -> r.writesAfterConverged());
    if (!"steady".equals(scenario)) {
      figure(sb, "recovery_periods", runs,
          r -> r.recoveryPeriods() < 0 ? Double.POSITIVE_INFINITY : r.recoveryPeriods());
    }
    if ("demandDrop".equals(scenario)) {
      figure(sb, "windup_ratio", runs, Simulation.Result::windupRatio);
    }
    if (!Double.isNaN(first.windupPeak())) {
      figure(sb, "windup_peak", runs, Simulation.Result::windupPeak);
      figure(sb, "windup_held", runs, Simulation.Result::windupHeld);
    }
    long met = runs.stream().filter(r -> Goals.met(r, scenario)).count();
    return sb.append(String.format(Locale.ROOT, ",\"goals_met_pct\":%.1f}", 100.0 * met / runs.size())).toString();
  }

  private static void figure(StringBuilder sb, String key, List<Simulation.Result> runs,
      java.util.function.ToDoubleFunction<Simulation.Result> f) {
    double[] v = runs.stream().mapToDouble(f).sorted().toArray();
    sb.append(",\"").append(key).append("\":").append(fmt(v[(v.length - 1) / 2]))
        .append(",\"").append(key).append("_p95\":").append(fmt(v[(int) Math.ceil(0.95 * v.length) - 1]))
        .append(",\"").append(key).append("_max\":").append(fmt(v[v.length - 1]));
  }

  private static String fmt(double d) {
    return Double.isInfinite(d) ? "null" : d == Math.rint(d) ? String.valueOf((long) d)
        : String.format(Locale.ROOT, "%.2f", d);
  }

  static String json(Simulation.Result r, String plant, String scenario) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "{\"law\":\"%s\",\"plant\":\"%s\",\"scenario\":\"%s\",\"target\":%s,"
            + "\"periods\":%d,\"settle_periods\":%s,\"overshoot_pct\":%.1f,\"steady_error_pct\":%.1f,\"writes\":%d,"
            + "\"writes_after_converged\":%d,\"final_limit\":%.1f,\"final_ops\":%.1f", r.law(), plant.replace("\"", ""),
        scenario, num(r.target()), r.periods().size(), r.settlePeriods() < 0 ? "null" : r.settlePeriods(),
        r.overshootPct(), r.steadyErrorPct(), r.writes(), r.writesAfterConverged(), r.finalLimit(), r.finalOps()));
    if (!Double.isNaN(r.windupRatio())) {
      sb.append(String.format(Locale.ROOT, ",\"windup_ratio\":%.2f", r.windupRatio()));
    }
    if (!Double.isNaN(r.windupPeak())) {
      sb.append(String.format(Locale.ROOT, ",\"windup_peak\":%.2f,\"windup_held\":%.2f", r.windupPeak(),
          r.windupHeld()));
    }
    if (!"steady".equals(scenario)) {
      sb.append(",\"recovery_periods\":").append(r.recoveryPeriods() < 0 ? "null" : r.recoveryPeriods());
    }
    return sb.append('}').toString();
  }

  private static String num(double d) {
    return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
  }

  private static void usage(String problem) {
    if (problem != null) {
      System.err.println("calibration-sim: " + problem);
    }
    System.err.println("usage: bin/calibration-sim --plant FILE --target OPS [--periods N] [--noise FRACTION] [--seed N]\n"
        + "       [--law ours|static|ratio|aimd|all] [--scenario steady|demandDrop|rsChange] [--initial-limit L]\n"
        + "       [--max-step FACTOR] [--tolerance FRACTION] [--min-limit L] [--max-limit L] [--seeds N] [--trace]\n"
        + "       [--dead-time FRACTION]\n"
        + "       bin/calibration-sim --grid [--seeds 30] [--seed 1] [--periods 40] [--curves bench/curves]\n"
        + "FILE: CSV with a 'limit,ops' header; points are interpolated in log-log space; the last point's ops is\n"
        + "the tenant's demand ceiling. Prints one JSON line per law; with --seeds N (seeds --seed..), the median,\n"
        + "95th percentile and worst of each figure and the share of seeds that met every goal.\n"
        + "overshoot_pct: how far past the target the ops went after the first move. With a target above the\n"
        + "demand, windup_peak / windup_held: the highest limit (over the run / its second half) over the limit\n"
        + "from which the throttle stops holding the tenant back. --dead-time: share of each period still under\n"
        + "the previous limit (default 0.1; 1 = counters a whole period stale).");
    System.exit(problem == null ? 0 : 2);
  }
}
