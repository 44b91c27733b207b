package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;

/** What the calibration loop sees and did. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CalibrationStatus {
  private Long targetOpsPerSecond;
  /** The last measured rate (reported when it moved by more than half the tolerance, or the state changed). */
  private Double observedOpsPerSecond;
  /** Percent of the tenant's requests HBase refused in the last period (when known). */
  private Double throttledPercent;
  /** The throttle the loop moves, and its limit in HBase now, e.g. {@code REQUEST_NUMBER}, {@code 1450req/sec}. */
  private String throttle;
  private Long limit;
  /** Converging, Converged, DemandLimited, MetricsUnavailable or AtBound. */
  private String state;
  private String message;
  private String lastMoveTime;
  private Long moves;
  @com.fasterxml.jackson.annotation.JsonPropertyDescription("What the loop learnt of the tenant's response to its "
      + "limit: d ln(ops) / d ln(limit) near the limit in force (1 = ops follow the limit one for one). A restarted "
      + "operator resumes from it.")
  private Double elasticity;

  public Double getElasticity() {
    return elasticity;
  }

  public void setElasticity(Double elasticity) {
    this.elasticity = elasticity;
  }

  public Long getTargetOpsPerSecond() {
    return targetOpsPerSecond;
  }

  public void setTargetOpsPerSecond(Long targetOpsPerSecond) {
    this.targetOpsPerSecond = targetOpsPerSecond;
  }

  public Double getObservedOpsPerSecond() {
    return observedOpsPerSecond;
  }

  public void setObservedOpsPerSecond(Double observedOpsPerSecond) {
    this.observedOpsPerSecond = observedOpsPerSecond;
  }

  public Double getThrottledPercent() {
    return throttledPercent;
  }

  public void setThrottledPercent(Double throttledPercent) {
    this.throttledPercent = throttledPercent;
  }

  public String getThrottle() {
    return throttle;
  }

  public void setThrottle(String throttle) {
    this.throttle = throttle;
  }

  public Long getLimit() {
    return limit;
  }

  public void setLimit(Long limit) {
    this.limit = limit;
  }

  public String getState() {
    return state;
  }

  public void setState(String state) {
    this.state = state;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public String getLastMoveTime() {
    return lastMoveTime;
  }

  public void setLastMoveTime(String lastMoveTime) {
    this.lastMoveTime = lastMoveTime;
  }

  public Long getMoves() {
    return moves;
  }

  public void setMoves(Long moves) {
    this.moves = moves;
  }
}
