package io.hbaseqos.operator.calibration;

import java.util.ArrayList;
import java.util.List;

/**
 * A measured throttle response: ops/s a tenant observes at a limit, as (limit, ops) points.
 * Interpolated piecewise-linearly in log-log space (monotone between monotone points); below the
 * first point the first segment's slope continues; from the last point on, ops stay at the last
 * point's value, the tenant's demand ceiling. Pure.
 */
public final class PlantCurve {
  private final double[] lnL;
  private final double[] lnY;

  public PlantCurve(List<double[]> points) {
    if (points.size() < 2) {
      throw new IllegalArgumentException("a plant curve needs at least two points");
    }
    List<double[]> p = new ArrayList<>(points);
    p.sort((a, b) -> Double.compare(a[0], b[0]));
    lnL = new double[p.size()];
    lnY = new double[p.size()];
    for (int i = 0; i < p.size(); i++) {
      double[] pt = p.get(i);
      if (!(pt[0] > 0) || !(pt[1] > 0)) {
        throw new IllegalArgumentException("limit and ops must be positive: " + pt[0] + "," + pt[1]);
      }
      if (i > 0 && (pt[0] == p.get(i - 1)[0] || pt[1] < p.get(i - 1)[1])) {
        throw new IllegalArgumentException("points must have distinct limits and non-decreasing ops: "
            + p.get(i - 1)[0] + "," + p.get(i - 1)[1] + " then " + pt[0] + "," + pt[1]);
      }
      lnL[i] = Math.log(pt[0]);
      lnY[i] = Math.log(pt[1]);
    }
  }

  /** Parses {@code limit,ops} lines (a header line and # comments are skipped). */
  public static PlantCurve parseCsv(String text) {
    List<double[]> pts = new ArrayList<>();
    int n = 0;
    for (String raw : text.split("\\R")) {
      n++;
      String line = raw.trim();
      if (line.isEmpty() || line.startsWith("#") || line.toLowerCase().startsWith("limit")) {
        continue;
      }
      String[] f = line.split(",");
      try {
        pts.add(new double[] {Double.parseDouble(f[0].trim()), Double.parseDouble(f[1].trim())});
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("line " + n + ": expected limit,ops but found '" + line + "'");
      }
    }
    return new PlantCurve(pts);
  }

  /** Ops/s at a limit. */
  public double ops(double limit) {
    double u = Math.log(limit);
    int last = lnL.length - 1;
    if (u >= lnL[last]) {
      return Math.exp(lnY[last]);
    }
    int i = 0;
    while (i < last - 1 && u > lnL[i + 1]) {
      i++;
    }
    double slope = (lnY[i + 1] - lnY[i]) / (lnL[i + 1] - lnL[i]);
    return Math.exp(lnY[i] + slope * (u - lnL[i]));
  }

  /** The limit from which the throttle no longer holds the tenant back (the last point's). */
  public double saturationLimit() {
    return Math.exp(lnL[lnL.length - 1]);
  }

  /** The ops/s the tenant does unthrottled (the last point). */
  public double demand() {
    return Math.exp(lnY[lnY.length - 1]);
  }
}
