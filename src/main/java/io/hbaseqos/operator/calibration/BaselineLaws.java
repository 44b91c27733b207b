package io.hbaseqos.operator.calibration;

/** The laws the operator's own is compared with. */
public final class BaselineLaws {
  private BaselineLaws() {}

  /** What users do today: set the limit to the target once and leave it. */
  public static ControlLaw fixed(Settings s) {
    return new ControlLaw() {
      public String name() {
        return "static";
      }

      public double initial(double currentLimit) {
        return s.clamp(s.target());
      }

      public Step next(double limit, Observation obs) {
        return new Step(limit, State.Converged, "static");
      }
    };
  }

  /** How a banded baseline moves the limit once the rate is measured and outside the band. */
  private interface Move {
    double next(double limit, double y);
  }

  /** A baseline with the shared parts: start where the limit is, hold without a measurement, the tolerance band. */
  private static ControlLaw banded(String name, Settings s, Move move) {
    return new ControlLaw() {
      public String name() {
        return name;
      }

      public double initial(double currentLimit) {
        return s.clamp(currentLimit);
      }

      public Step next(double limit, Observation obs) {
        double y = obs.ops();
        if (!(y > 0)) {
          return new Step(limit, State.MetricsUnavailable, "no measurement");
        }
        if (Math.abs(Math.log(s.target() / y)) <= s.band()) {
          return new Step(limit, State.Converged, "in band");
        }
        return new Step(s.clamp(move.next(limit, y)), State.Converging, name);
      }
    };
  }

  /** L <- L * T / y, within the step and bound clamps, with the same dead band. */
  public static ControlLaw ratio(Settings s) {
    return banded("ratio", s, (limit, y) -> limit * Math.max(1 / s.maxStep(), Math.min(s.maxStep(), s.target() / y)));
  }

  /** Additive increase (5% of the target per period), multiplicative decrease (x0.7), same dead band. */
  public static ControlLaw aimd(Settings s) {
    return banded("aimd", s, (limit, y) -> y < s.target() ? limit + 0.05 * s.target() : limit * 0.7);
  }

  public static ControlLaw byName(String name, Settings s) {
    return switch (name) {
      case LogNewtonLaw.NAME -> new LogNewtonLaw(s);
      case "static" -> fixed(s);
      case "ratio" -> ratio(s);
      case "aimd" -> aimd(s);
      default -> throw new IllegalArgumentException("unknown law '" + name + "' (ours, static, ratio, aimd)");
    };
  }
}
