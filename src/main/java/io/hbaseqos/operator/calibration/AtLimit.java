package io.hbaseqos.operator.calibration;

/**
 * The periods {@link LogNewtonLaw} measured at the limit in force: their mean rate (ln ops/s), how
 * many count, and whether the first of them is provisional. The first period after a large move
 * still partly measures the old limit (the metrics window straddles the change): it counts until a
 * second one replaces it. Consecutive clean measurements here feed the {@link Noise} estimate. Pure.
 */
final class AtLimit {
  /** The limit (ln) the measurements below were taken at; NaN before the first. */
  private double lnL = Double.NaN;
  /** The move to this limit was large: the next period straddles it. */
  private boolean firstPending;
  /** The one measurement counted is provisional: a second one replaces it. */
  private boolean dropFirst;
  private int n;
  /** Periods measured at this limit, the dropped first one included. */
  private int seen;
  private double sum;
  private double last = Double.NaN;

  /** Starts over at limit {@code lnL}; {@code large}: the move there changes the rate noticeably. */
  void restart(double lnL, boolean large) {
    this.lnL = lnL;
    firstPending = large;
    dropFirst = false;
    n = 0;
    seen = 0;
    sum = 0;
    last = Double.NaN;
  }

  /** Whether {@code u} (ln) is the limit these measurements are of. */
  boolean isAt(double u) {
    return Math.abs(u - lnL) <= 1e-9; // false before the first (NaN)
  }

  /**
   * Whether the period now measured at {@code u} is the provisional one right after a large move to
   * this limit (never for a reading aligned with the write); asked once a period.
   */
  boolean takeProvisional(double u, boolean aligned) {
    boolean provisional = firstPending && !aligned && isAt(u);
    firstPending = false;
    return provisional;
  }

  /** Counts a period's measurement {@code x} (ln); a provisional one is replaced by the next. */
  void add(double x, boolean provisional, Noise noise) {
    if (n == 1 && dropFirst) {
      n = 0;
      sum = 0;
      dropFirst = false;
    } else if (n > 0) {
      noise.add(x - last);
    }
    dropFirst = dropFirst || provisional;
    last = x;
    seen++;
    n++;
    sum += x;
  }

  double lnL() {
    return lnL;
  }

  int n() {
    return n;
  }

  int seen() {
    return seen;
  }

  double mean() {
    return sum / n;
  }

  /** The mean of the measurements counted before the last one, {@code x}; needs two or more. */
  double meanBefore(double x) {
    return (sum - x) / (n - 1);
  }
}
