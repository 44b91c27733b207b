package io.hbaseqos.operator.calibration.sim;

import io.hbaseqos.operator.calibration.BaselineLaws;
import io.hbaseqos.operator.calibration.ControlLaw;
import io.hbaseqos.operator.calibration.PlantCurve;
import io.hbaseqos.operator.calibration.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bin/calibration-sim}: runs a calibration law against a plant curve and prints one JSON
 * line per law. Interface kept stable for users replaying their own measured curves:
 * {@code --plant FILE --target OPS [--periods N] [--noise F] [--seed N] [--law ours|static|ratio|aimd|all]
 * [--scenario steady|demandDrop|rsChange] [--initial-limit L] [--max-step F] [--tolerance F]
 * [--min-limit L] [--max-limit L] [--trace]}.
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
      if (k.equals("trace") || k.equals("help")) {
        o.put(k, "true");
      } else if (i + 1 < args.length) {
        o.put(k, args[++i]);
      } else {
        usage("--" + k + " needs a value");
      }
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
    for (String name : laws) {
      ControlLaw law = BaselineLaws.byName(name, s);
      Simulation.Result r = Simulation.run(law, curve, target, Double.parseDouble(o.getOrDefault("initial-limit",
          o.get("target"))), Integer.parseInt(o.getOrDefault("periods", "30")),
          Double.parseDouble(o.getOrDefault("noise", "0.02")), Long.parseLong(o.getOrDefault("seed", "1")),
          Simulation.Scenario.valueOf(o.getOrDefault("scenario", "steady")));
      if (o.containsKey("trace")) {
        for (Simulation.Period p : r.periods()) {
          System.err.printf(Locale.ROOT, "%s period %2d limit %12.1f true %9.1f measured %9.1f throttled %5.1f%% %s%n",
              name, p.n(), p.limit(), p.trueOps(), p.measuredOps(), p.throttledShare() * 100, p.state());
        }
      }
      System.out.println(json(r, o.get("plant"), o.getOrDefault("scenario", "steady")));
    }
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
        + "       [--max-step FACTOR] [--tolerance FRACTION] [--min-limit L] [--max-limit L] [--trace]\n"
        + "FILE: CSV with a 'limit,ops' header; points are interpolated in log-log space; the last point's ops is\n"
        + "the tenant's demand ceiling. Prints one JSON line per law.");
    System.exit(problem == null ? 0 : 2);
  }
}
