package io.hbaseqos.operator.calibration;

/**
 * The operator's law: a damped Newton step in log space, {@code ln L += g * ln(T/y) / e}, where
 * {@code e} is the plant's local elasticity {@code d ln y / d ln L}, learnt from the last move
 * (secant) and blended with what was known before in proportion to how large the move was. The
 * measurement right after a move still partly reflects the old limit, so from far below it takes
 * 85% of the step, from far above 70%, and within 15% of the target 60%. A move that lands in the
 * band is confirmed by one more period before the loop reports Converged.
 *
 * <p>Guard rails: a dead band (the tolerance) inside which nothing changes, and once converged a
 * smoothed measurement (an exponential average in log space, weight 1/3) must leave the band three
 * periods in a row before the loop moves again, so measurement noise does not make a converged loop write; at most {@code maxStep} per period; min/max clamps; missing or absurd metrics
 * hold the last limit (never zero, never unlimited); and a demand guard: below target while HBase
 * throttles almost nothing (under 1% of the tenant's requests refused), raising the limit would
 * not help, so it is not raised (no windup), and elasticity is not learnt from such periods.
 */
public final class LogNewtonLaw implements ControlLaw {
  public static final String NAME = "ours";
  static final double PRIOR_ELASTICITY = 0.3;
  static final double MIN_ELASTICITY = 0.05;
  static final double MIN_SECANT_MOVE = 0.05;
  static final double NOT_BINDING = 0.01;
  static final double GAIN_UP = 0.85;
  static final double GAIN_DOWN = 0.7;
  static final double NEAR = 0.15;
  static final double GAIN_NEAR = 0.6;
  /** Observations this far from the target (either way) are treated as broken metrics. */
  static final double ABSURD = 1000;

  private final Settings s;
  private double elasticity = PRIOR_ELASTICITY;
  private double lastLnL = Double.NaN;
  private double lastLnY = Double.NaN;
  private boolean converged;
  private double smoothed = Double.NaN;
  private int outside;
  private boolean movedLast;

  public LogNewtonLaw(Settings settings) {
    this.s = settings;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public double initial(double currentLimit) {
    return s.clamp(currentLimit);
  }

  public double elasticity() {
    return elasticity;
  }

  @Override
  public Step next(double limit, Observation obs) {
    double y = obs.ops();
    if (Double.isNaN(y) || y < 0 || Double.isInfinite(y) || y > s.target() * ABSURD) {
      return new Step(limit, State.MetricsUnavailable, "no usable measurement: holding the limit");
    }
    if (y == 0) {
      // nothing at all went through: either no demand or a broken source; never drop the limit for it
      return new Step(limit, State.DemandLimited, "the tenant did no operations: holding the limit");
    }
    double u = Math.log(limit);
    double x = Math.log(y);
    boolean binding = Double.isNaN(obs.throttledShare()) || obs.throttledShare() >= NOT_BINDING;
    if (binding && !Double.isNaN(lastLnL) && Math.abs(u - lastLnL) >= MIN_SECANT_MOVE) {
      double du = u - lastLnL;
      double measured = Math.max(MIN_ELASTICITY, Math.min(1.0, (x - lastLnY) / du));
      double w = du * du / (du * du + 0.01);
      elasticity = (1 - w) * elasticity + w * measured;
    }
    if (binding) {
      lastLnL = u;
      lastLnY = x;
    }
    double err = Math.log(s.target() / y);
    double band = Math.log(1 + s.tolerance());
    if (converged) {
      smoothed = Double.isNaN(smoothed) ? x : smoothed + (x - smoothed) / 3;
      double smoothedErr = Math.log(s.target()) - smoothed;
      outside = Math.abs(smoothedErr) > band ? outside + 1 : 0;
      if (outside < 3) {
        return new Step(limit, State.Converged, String.format("%.0f ops/s, target %.0f within %.0f%%", y, s.target(),
            s.tolerance() * 100));
      }
      converged = false;
      err = smoothedErr;
    } else if (Math.abs(err) <= band) {
      if (movedLast) {
        movedLast = false; // the period after a move is partly the old limit's: look once more
        return new Step(limit, State.Converging, String.format("%.0f ops/s is within %.0f%% of the target; "
            + "confirming", y, s.tolerance() * 100));
      }
      converged = true;
      smoothed = x;
      outside = 0;
      return new Step(limit, State.Converged, String.format("%.0f ops/s is within %.0f%% of the target",
          y, s.tolerance() * 100));
    }
    if (err > 0 && !binding) {
      return new Step(limit, State.DemandLimited, String.format("%.0f ops/s is below the target, but HBase throttles "
          + "%.1f%% of the tenant's requests: it asks for less, so a higher limit would change nothing", y,
          obs.throttledShare() * 100));
    }
    // near the target a measurement's noise is a large part of the error: take part of the step
    double gain = Math.abs(err) < NEAR ? GAIN_NEAR : err > 0 ? GAIN_UP : GAIN_DOWN;
    double step = Math.max(-Math.log(s.maxStep()), Math.min(Math.log(s.maxStep()), gain * err / elasticity));
    double next = s.clamp(limit * Math.exp(step));
    movedLast = next != limit;
    if (next == limit) {
      return new Step(limit, State.AtBound, "the limit is at its " + (err > 0 ? "maximum" : "minimum"));
    }
    return new Step(next, next == s.minLimit() || next == s.maxLimit() ? State.AtBound : State.Converging,
        String.format("%.0f ops/s, target %.0f: limit %.0f -> %.0f (elasticity %.2f)", y, s.target(), limit, next,
            elasticity));
  }
}
