package io.hbaseqos.operator.calibration.sim;

/**
 * The calibration goals for one simulated run: settles within 5 periods, overshoot at most 10%,
 * steady-state error at most 3%, no writes once converged; after a demand drop, no windup (the
 * limit grows at most 5%) and recovery within 3 periods; after a RegionServer change, recovery
 * within 5 periods; with a target above the tenant's demand, the limit held at most twice the one
 * from which the throttle stops holding it back.
 */
public final class Goals {
  public static final int SETTLE = 5;
  public static final double OVERSHOOT_PCT = 10;
  public static final double STEADY_ERROR_PCT = 3;
  public static final double WINDUP = 1.05;
  public static final int RECOVERY_DEMAND = 3;
  public static final int RECOVERY_SERVERS = 5;
  public static final double WINDUP_HELD = 2.0;

  private Goals() {}

  public static boolean met(Simulation.Result r, String scenario) {
    return switch (scenario) {
      case "demandDrop" -> r.windupRatio() <= WINDUP && r.recoveryPeriods() >= 0
          && r.recoveryPeriods() <= RECOVERY_DEMAND;
      case "rsChange" -> r.recoveryPeriods() >= 0 && r.recoveryPeriods() <= RECOVERY_SERVERS;
      default -> !Double.isNaN(r.windupHeld()) ? r.windupHeld() <= WINDUP_HELD
          : r.settlePeriods() >= 0 && r.settlePeriods() <= SETTLE && r.overshootPct() <= OVERSHOOT_PCT
          && r.steadyErrorPct() <= STEADY_ERROR_PCT && r.writesAfterConverged() == 0;
    };
  }
}
