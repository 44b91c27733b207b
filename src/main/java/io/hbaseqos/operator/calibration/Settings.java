package io.hbaseqos.operator.calibration;

/**
 * What a tenant declared for its loop.
 *
 * @param target ops/s the tenant should get
 * @param minLimit the limit never goes below this
 * @param maxLimit nor above this
 * @param maxStep the most the limit may change in one period, as a factor (10 = up to 10x up or
 *     down to a tenth)
 * @param tolerance relative band around the target inside which nothing is written (0.03 = 3%)
 */
public record Settings(double target, double minLimit, double maxLimit, double maxStep, double tolerance) {
  public Settings {
    if (!(target > 0) || !(minLimit > 0) || !(maxLimit >= minLimit) || !(maxStep > 1) || !(tolerance > 0)
        || tolerance >= 0.5) {
      throw new IllegalArgumentException("target, minLimit > 0, maxLimit >= minLimit, maxStep > 1 and "
          + "0 < tolerance < 0.5 are required");
    }
  }

  /** The tolerance as a distance in log space: |ln(target / ops)| within this is on target. */
  public double band() {
    return Math.log(1 + tolerance);
  }

  public double clamp(double limit) {
    return Math.max(minLimit, Math.min(maxLimit, limit));
  }
}
