package io.hbaseqos.operator.bench;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The policy run of {@link QosBenchmark} as an SVG: above, U's client-side p99 per period against
 * its bound; below, T's limit in HBase, T's ops/s and the oracle's static limit.
 */
final class QosChart {
  static final int W = 760;
  static final int L = 70;
  static final int R = 20;
  static final int PANEL = 170;

  private QosChart() {}

  static String svg(String title, List<QosBenchmark.Period> ps, double bound, long oracle) {
    int n = Math.max(2, ps.size());
    StringBuilder s = new StringBuilder();
    int h = 40 + 2 * PANEL + 80;
    s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n", W, h));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"14\">%s</text>%n", L,
        title.replace("&", "&amp;").replace("<", "&lt;")));
    double maxMs = bound * 1.2;
    for (QosBenchmark.Period p : ps) {
      maxMs = Math.max(maxMs, p.uP99());
    }
    int top1 = 40;
    panel(s, top1, maxMs * 1.1, "U p99 ms", n, ps);
    hline(s, top1, maxMs * 1.1, bound, "#d62728", "objective " + bound + " ms");
    series(s, ps, n, top1, maxMs * 1.1, "#1f77b4", QosBenchmark.Period::uP99);
    double maxReq = oracle;
    for (QosBenchmark.Period p : ps) {
      maxReq = Math.max(maxReq, Math.max(p.tOps(), p.limit() == null ? 0 : p.limit()));
    }
    int top2 = top1 + PANEL + 30;
    panel(s, top2, maxReq * 1.1, "req/s, ops/s", n, ps);
    if (oracle > 0) {
      hline(s, top2, maxReq * 1.1, oracle, "#2ca02c", "best static limit " + oracle);
    }
    series(s, ps, n, top2, maxReq * 1.1, "#ff7f0e", p -> p.limit() == null ? Double.NaN : p.limit());
    series(s, ps, n, top2, maxReq * 1.1, "#9467bd", QosBenchmark.Period::tOps);
    String[][] legend = {{"#1f77b4", "U p99 (client)"}, {"#d62728", "U objective"},
        {"#ff7f0e", "T limit in HBase"}, {"#9467bd", "T ops/s"}, {"#2ca02c", "oracle's static limit"}};
    for (int i = 0; i < legend.length; i++) {
      int x = L + i * 135;
      s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"%d\">%s</text>%n", x, h - 22, legend[i][0], x + 16, h - 12, legend[i][1]));
    }
    return s.append("</svg>\n").toString();
  }

  static double x(int i, int n) {
    return L + (W - L - R) * (double) i / (n - 1);
  }

  static double y(double v, int top, double max) {
    return top + PANEL - PANEL * v / max;
  }

  static void panel(StringBuilder s, int top, double max, String label, int n, List<QosBenchmark.Period> ps) {
    for (int i = 0; i <= 4; i++) {
      double v = max * i / 4;
      s.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
          + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", L, W - R, y(v, top, max), y(v, top, max),
          L - 6, y(v, top, max) + 4, max < 20 ? String.format(Locale.ROOT, "%.1f", v)
              : String.format(Locale.ROOT, "%.0f", v)));
    }
    for (QosBenchmark.Period p : ps) {
      s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%d</text>%n",
          x(p.n() - 1, n), top + PANEL + 13, p.n()));
    }
    s.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
        + "text-anchor=\"middle\">%s</text>%n", top + PANEL / 2, top + PANEL / 2, label));
  }

  static void hline(StringBuilder s, int top, double max, double v, String color, String label) {
    s.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
        + "stroke-dasharray=\"6,4\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%s</text>%n", L, W - R,
        y(v, top, max), y(v, top, max), color, W - R, y(v, top, max) - 4, color, label));
  }

  static void series(StringBuilder s, List<QosBenchmark.Period> ps, int n, int top, double max, String color,
      ToDoubleFunction<QosBenchmark.Period> f) {
    StringBuilder pts = new StringBuilder();
    for (QosBenchmark.Period p : ps) {
      double v = f.applyAsDouble(p);
      if (!Double.isNaN(v)) {
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(p.n() - 1, n), y(v, top, max)));
      }
    }
    s.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
        pts.toString().trim(), color));
  }
}
