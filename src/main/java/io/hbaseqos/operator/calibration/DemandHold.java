package io.hbaseqos.operator.calibration;

/**
 * {@link LogNewtonLaw}'s demand-limited hold, which overlays any of its phases: below the target,
 * the tenant's demand, not its throttle, limits it, so the limit is held; and, after such a hold
 * ended, the cautious climb: raises of at most {@link LogNewtonLaw#HEADROOM} a period until one
 * returns half its prediction. Pure.
 */
final class DemandHold {
  private boolean held;
  /** The rate (ln) the tenant got when the hold began. */
  private double ref;
  private boolean cautious;

  /** Holds from now on; the tenant gets {@code x} (ln). */
  void enter(double x) {
    held = true;
    ref = x;
  }

  /** The tenant reached its target: nothing holds it. */
  void end() {
    held = false;
  }

  /** The tenant's demand came back: act again, raising cautiously until a raise pays. */
  void endToClimb() {
    held = false;
    cautious = true;
  }

  /** A raise was judged: the climb stays cautious only while raises return under half their prediction. */
  void stayCautiousIf(boolean gainedUnderHalf) {
    cautious = cautious && gainedUnderHalf;
  }

  boolean held() {
    return held;
  }

  double ref() {
    return ref;
  }

  boolean cautious() {
    return cautious;
  }
}
