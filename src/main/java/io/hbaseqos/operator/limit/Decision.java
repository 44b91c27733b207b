package io.hbaseqos.operator.limit;

import io.hbaseqos.operator.api.CalibrationStatus;
import io.hbaseqos.operator.api.QosStatus;
import io.hbaseqos.operator.quota.SubjectQuota;
import java.time.Duration;
import java.util.List;

/**
 * What {@link TenantLimits#decide} concluded for one tenant at one time.
 *
 * @param quota the settings HBase must hold for the tenant's subject (calibrated and protected limits in)
 * @param qos {@code status.qos} (null: the tenant takes no part in latency protection)
 * @param calibration {@code status.calibration} (null: not calibrated)
 * @param conditions the conditions of the two loops to set or remove, in order
 * @param notes events to record now
 * @param moved ids of the other tenants whose limits or standings moved (they should apply it now)
 * @param lookAgain when a loop wants to be asked again (null: neither runs)
 * @param protection the protection gauges of this tenant (null: no qos)
 * @param calibrationGauge the calibration gauges of this tenant (null: not calibrated or held)
 */
public record Decision(SubjectQuota quota, QosStatus qos, CalibrationStatus calibration, List<Report> conditions,
    List<Note> notes, List<String> moved, Duration lookAgain, ProtectionGauge protection,
    CalibrationGauge calibrationGauge) {

  /** An event about the tenant. */
  public record Note(boolean warning, String reason, String message) {
    public static Note normal(String reason, String message) {
      return new Note(false, reason, message);
    }

    public static Note warning(String reason, String message) {
      return new Note(true, reason, message);
    }
  }

  /**
   * A condition as a loop reports it.
   *
   * @param status True, False or Unknown; null removes the condition
   * @param onChange an event to record when the condition's reason differs from the one last written
   * @param stableMessage keep the message last written while the reason stays the same (a reading that
   *     changes every period is not rewritten)
   */
  public record Report(String type, String status, String reason, String message, Note onChange,
      boolean stableMessage) {
    public static Report of(String type, boolean status, String reason, String message) {
      return new Report(type, status ? "True" : "False", reason, message, null, false);
    }

    public static Report removed(String type) {
      return new Report(type, null, null, null, null, false);
    }
  }

  /** @param latencyOverBound the worst objective's reading over its bound (NaN: none read); limit NaN: not sheddable */
  public record ProtectionGauge(double latencyOverBound, boolean outOfCapacity, double limit, boolean shed) {}

  public record CalibrationGauge(double target, double observed, String state) {}
}
