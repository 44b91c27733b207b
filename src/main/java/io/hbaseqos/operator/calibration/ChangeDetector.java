package io.hbaseqos.operator.calibration;

/**
 * A two-sided cumulative-sum detector on a converged loop's rate (ln ops/s): it fires when the
 * deviations from the converged rate, less {@link LogNewtonLaw#ALARM_DRIFT} noise deviations a
 * period, add up to {@link LogNewtonLaw#ALARM_SIGMAS} of them, so measurement noise never makes a
 * converged loop write while a real change of its operating point does within a few periods. Pure.
 */
final class ChangeDetector {
  /** The converged rate (ln) watched when the limit has only one measurement. */
  private double reference;
  private double up;
  private double down;

  /** Watches {@code reference} (ln) from now on, with nothing summed yet. */
  void watch(double reference) {
    this.reference = reference;
    up = 0;
    down = 0;
  }

  double reference() {
    return reference;
  }

  /** Adds a period's rate {@code x} against {@code from}; whether the rate has left it for real. */
  boolean fired(double x, double from, double sigma) {
    up = Math.max(0, up + (x - from) - LogNewtonLaw.ALARM_DRIFT * sigma);
    down = Math.max(0, down + (from - x) - LogNewtonLaw.ALARM_DRIFT * sigma);
    return !(up <= LogNewtonLaw.ALARM_SIGMAS * sigma && down <= LogNewtonLaw.ALARM_SIGMAS * sigma);
  }
}
