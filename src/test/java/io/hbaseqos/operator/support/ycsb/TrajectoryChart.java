package io.hbaseqos.operator.support.ycsb;

import java.util.List;
import java.util.Locale;

/**
 * A calibration run as an SVG line chart a person can open in a browser: T's client-side ops/s and
 * the limit in HBase per period, the target and its tolerance band, U's ops/s for comparison.
 */
public final class TrajectoryChart {
  static final int W = 760;
  static final int H = 420;
  static final int L = 70;
  static final int R = 20;
  static final int T = 40;
  static final int B = 50;

  private TrajectoryChart() {}

  public static String svg(String title, List<CalibrationRun.Row> rows, double target, double tolerancePct) {
    double max = target * (1 + tolerancePct / 100);
    for (CalibrationRun.Row r : rows) {
      max = Math.max(max, Math.max(r.sample().tOps(), r.sample().uOps()));
      if (r.limit() != null) {
        max = Math.max(max, r.limit());
      }
    }
    max *= 1.1;
    int n = Math.max(2, rows.size());
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n", W, H));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"15\">%s</text>%n", L, escape(title)));
    double lo = y(target * (1 - tolerancePct / 100), max);
    double hi = y(target * (1 + tolerancePct / 100), max);
    s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#2ca02c\" "
        + "fill-opacity=\"0.15\"/>%n", L, hi, W - L - R, lo - hi));
    s.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#2ca02c\" "
        + "stroke-dasharray=\"6,4\"/>%n", L, W - R, y(target, max), y(target, max)));
    for (int i = 0; i <= 5; i++) {
      double v = max * i / 5;
      s.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
          + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>%n", L, W - R, y(v, max), y(v, max), L - 6,
          y(v, max) + 4, v));
    }
    for (CalibrationRun.Row r : rows) {
      s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>%n",
          x(r.period() - 1, n), H - B + 16, r.period()));
    }
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">period</text>%n",
        (L + W - R) / 2, H - 12));
    s.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" "
        + "text-anchor=\"middle\">ops/s, req/s</text>%n", (T + H - B) / 2, (T + H - B) / 2));
    line(s, rows, n, max, "#1f77b4", 2.5, r -> r.sample().tOps());
    line(s, rows, n, max, "#ff7f0e", 1.5, r -> r.limit() == null ? Double.NaN : r.limit());
    line(s, rows, n, max, "#999", 1.5, r -> r.sample().uOps());
    String[][] legend = {{"#1f77b4", "T client ops/s"}, {"#ff7f0e", "T limit in HBase (req/s)"},
        {"#999", "U ops/s (unthrottled)"}, {"#2ca02c", String.format(Locale.ROOT, "target %.0f \u00b1 %.0f%%",
            target, tolerancePct)}};
    for (int i = 0; i < legend.length; i++) {
      int lx = L + 10 + i * 170;
      s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"%d\">%s</text>%n", lx, T - 6, legend[i][0], lx + 18, T - 1, escape(legend[i][1])));
    }
    return s.append("</svg>\n").toString();
  }

  private static void line(StringBuilder s, List<CalibrationRun.Row> rows, int n, double max, String color,
      double width, java.util.function.ToDoubleFunction<CalibrationRun.Row> f) {
    StringBuilder pts = new StringBuilder();
    for (CalibrationRun.Row r : rows) {
      double v = f.applyAsDouble(r);
      if (!Double.isNaN(v)) {
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(r.period() - 1, n), y(v, max)));
      }
    }
    s.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" points=\"%s\"/>%n",
        color, width, pts.toString().trim()));
  }

  static double x(int i, int n) {
    return L + (W - L - R) * (double) i / (n - 1);
  }

  static double y(double v, double max) {
    return H - B - (H - B - T) * v / max;
  }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
