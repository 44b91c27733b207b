package io.hbaseqos.operator.calibration;

/**
 * A calibration law: from the measurement of the period just ended (under the limit it set for
 * that period), the limit for the next one. Deterministic, no I/O; state lives in the instance.
 */
public interface ControlLaw {

  /**
   * The loop's state after a step, as reported to users. {@code LimiterStep}: the target lies
   * between two steps of HBase's rate limiter, and the nearer side, held without further writes,
   * is outside the tolerance.
   */
  enum State { Converging, Converged, DemandLimited, MetricsUnavailable, AtBound, LimiterStep }

  record Step(double limit, State state, String reason) {}

  String name();

  /** The first limit (before anything was measured). */
  double initial(double currentLimit);

  Step next(double limitInForce, Observation obs);
}
