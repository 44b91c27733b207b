package io.hbaseqos.operator.calibration;

/**
 * A calibration law: from the measurement of the period just ended (under the limit it set for
 * that period), the limit for the next one. Deterministic, no I/O; state lives in the instance.
 */
public interface ControlLaw {

  /** The loop's state after a step, as reported to users. */
  enum State { Converging, Converged, DemandLimited, MetricsUnavailable, AtBound }

  /**
   * @param nearest Converged on the nearest achievable rate rather than within the tolerance (the
   *     target lies between two steps of the throttle)
   */
  record Step(double limit, State state, String reason, boolean nearest) {
    public Step(double limit, State state, String reason) {
      this(limit, state, reason, false);
    }
  }

  String name();

  /** The first limit (before anything was measured). */
  double initial(double currentLimit);

  Step next(double limitInForce, Observation obs);
}
