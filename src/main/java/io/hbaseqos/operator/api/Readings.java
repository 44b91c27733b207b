package io.hbaseqos.operator.api;

/** When two readings of a status are the same as far as anyone acts on them: one rule for every status. */
final class Readings {
  private Readings() {}

  /** Rates (or sizes) within a tenth of the larger one, or within 1; both absent is the same too. */
  static boolean close(Double a, Double b) {
    if (a == null || b == null) {
      return a == null && b == null;
    }
    double hi = Math.max(Math.abs(a), Math.abs(b));
    return Math.abs(a - b) <= Math.max(1, hi / 10);
  }

  /** Percentages less than {@code points} apart; both absent is the same too. */
  static boolean within(Double a, Double b, double points) {
    if (a == null || b == null) {
      return a == null && b == null;
    }
    return Math.abs(a - b) < points;
  }
}
