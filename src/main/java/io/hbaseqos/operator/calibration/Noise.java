package io.hbaseqos.operator.calibration;

/**
 * The spread of one period's ln(ops) at a fixed limit, from the differences between consecutive
 * clean measurements at one limit, blended with a prior ({@link LogNewtonLaw#PRIOR_NOISE}, worth
 * {@link LogNewtonLaw#PRIOR_NOISE_WEIGHT} differences): {@link LogNewtonLaw}'s noise estimate, in a
 * class of its own. It keeps every difference the loop has seen, across limits. Pure.
 */
final class Noise {
  /** The sum of squared differences, and their count. */
  private double sqDiff;
  private int diffs;

  /** One more difference between consecutive measurements (ln) at one limit. */
  void add(double difference) {
    sqDiff += difference * difference;
    diffs++;
  }

  /** Standard deviation of one period's ln(ops), from the data seen so far blended with the prior. */
  double sigma() {
    return Math.sqrt((LogNewtonLaw.PRIOR_NOISE * LogNewtonLaw.PRIOR_NOISE * LogNewtonLaw.PRIOR_NOISE_WEIGHT
        + sqDiff / 2) / (LogNewtonLaw.PRIOR_NOISE_WEIGHT + diffs));
  }
}
