package io.hbaseqos.operator.calibration;

/**
 * What {@link LogNewtonLaw} knows of how the tenant's rate follows its limit: the local elasticity
 * {@code d ln ops / d ln limit}, learnt from secants between the mean rates at two limits by a
 * scalar Kalman update (a secant over a small move is mostly noise), kept within
 * [{@link LogNewtonLaw#MIN_ELASTICITY}, {@link LogNewtonLaw#MAX_ELASTICITY}]. Until the first
 * secant it is the bound {@link LogNewtonLaw#MAX_ELASTICITY}. It also remembers the far end of the
 * next secant: the limit the last move left, its mean rate and whether HBase throttled there. Pure.
 */
final class Elasticity {
  private double value = LogNewtonLaw.MAX_ELASTICITY;
  private boolean learnt;
  /** The limit (ln) the last move left, its mean rate (ln), and whether HBase throttled the tenant there. */
  private double fromLnL = Double.NaN;
  private double fromMean = Double.NaN;
  private boolean fromBinding;

  double value() {
    return value;
  }

  boolean learnt() {
    return learnt;
  }

  /** The elasticity learnt; NaN while no secant has taught one. */
  double learntOrNaN() {
    return learnt ? value : Double.NaN;
  }

  /** Takes one a predecessor learnt, if it is a possible one. */
  void resume(double learntElasticity) {
    if (learntElasticity >= LogNewtonLaw.MIN_ELASTICITY && learntElasticity <= LogNewtonLaw.MAX_ELASTICITY) {
      value = learntElasticity;
      learnt = true;
    }
  }

  /** A move leaves limit {@code lnL}, where the tenant's mean rate was {@code mean}. */
  void leaving(double lnL, double mean, boolean binding) {
    fromLnL = lnL;
    fromMean = mean;
    fromBinding = binding;
  }

  /** The limit left is not to be a secant's end (the move was a demand hold's, not the law's). */
  void noSecantFromHere() {
    fromBinding = false;
  }

  double fromLnL() {
    return fromLnL;
  }

  double fromMean() {
    return fromMean;
  }

  /**
   * The span (ln) of the secant from the limit left to {@code lnL}, where the first measurement
   * is {@code binding} or not; NaN where none is taken: either end unthrottled (the rate there says
   * nothing of the limit), no move yet, or a move under 2%.
   */
  double span(double lnL, boolean binding) {
    if (!binding || !fromBinding || Double.isNaN(fromLnL)) {
      return Double.NaN;
    }
    double du = lnL - fromLnL;
    return Math.abs(du) < 0.02 ? Double.NaN : du;
  }

  /** Learns from the secant to a rate {@code x} (ln) over a span {@code du}, with a period's noise {@code sigma}. */
  void learn(double x, double du, double sigma) {
    double measured = Math.max(LogNewtonLaw.MIN_ELASTICITY, Math.min(LogNewtonLaw.MAX_ELASTICITY,
        (x - fromMean) / du));
    double secantVariance = 2 * sigma * sigma / (du * du);
    double spread = LogNewtonLaw.ELASTICITY_SPREAD;
    double w = spread * spread / (spread * spread + secantVariance);
    value = (1 - w) * value + w * measured;
    learnt = true;
  }
}
