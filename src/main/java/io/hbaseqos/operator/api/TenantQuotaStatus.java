package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class TenantQuotaStatus extends ConditionedStatus {
  /** The subject, rendered (e.g. {@code user=alice,table=default:t1}). */
  private String subject;
  /** The throttles in HBase now, rendered in shell syntax, for {@code kubectl get}. */
  private String summary;
  /** The throttles in HBase now for this subject. */
  private List<AppliedThrottle> throttles = new ArrayList<>();
  private Boolean bypassGlobals;
  /** When HBase was last brought in line with this resource (a write, or first seen in sync). */
  private String lastSyncTime;
  /** How often a change made outside the operator was undone. */
  private Long driftCorrections;
  private String lastDriftTime;
  private CalibrationStatus calibration;
  /** Latency protection: objectives met, who is held down and by whom. */
  private QosStatus qos;

  public QosStatus getQos() {
    return qos;
  }

  public void setQos(QosStatus qos) {
    this.qos = qos;
  }
  /** The space quota's usage as HBase last reported it (table and namespace subjects with spec.space). */
  private SpaceStatus space;
  /** The namespace's limits and counts in use (namespace subjects with spec.namespaceLimits). */
  private NamespaceStatus namespace;
  /** What the tenant did over the last sampling period: ops/s, the share HBase throttled, its spread over servers. */
  private UsageStatus usage;
  /** Under enforcement DryRun: what is planned and what HBase would do with it. */
  private DryRunStatus dryRun;

  public DryRunStatus getDryRun() {
    return dryRun;
  }

  public void setDryRun(DryRunStatus dryRun) {
    this.dryRun = dryRun;
  }

  public UsageStatus getUsage() {
    return usage;
  }

  public void setUsage(UsageStatus usage) {
    this.usage = usage;
  }

  public NamespaceStatus getNamespace() {
    return namespace;
  }

  public void setNamespace(NamespaceStatus namespace) {
    this.namespace = namespace;
  }

  public SpaceStatus getSpace() {
    return space;
  }

  public void setSpace(SpaceStatus space) {
    this.space = space;
  }

  public CalibrationStatus getCalibration() {
    return calibration;
  }

  public void setCalibration(CalibrationStatus calibration) {
    this.calibration = calibration;
  }

  public String getSubject() {
    return subject;
  }

  public void setSubject(String subject) {
    this.subject = subject;
  }

  public String getSummary() {
    return summary;
  }

  public void setSummary(String summary) {
    this.summary = summary;
  }

  public List<AppliedThrottle> getThrottles() {
    return throttles;
  }

  public void setThrottles(List<AppliedThrottle> throttles) {
    this.throttles = throttles;
  }

  public Boolean getBypassGlobals() {
    return bypassGlobals;
  }

  public void setBypassGlobals(Boolean bypassGlobals) {
    this.bypassGlobals = bypassGlobals;
  }

  public String getLastSyncTime() {
    return lastSyncTime;
  }

  public void setLastSyncTime(String lastSyncTime) {
    this.lastSyncTime = lastSyncTime;
  }

  public Long getDriftCorrections() {
    return driftCorrections;
  }

  public void setDriftCorrections(Long driftCorrections) {
    this.driftCorrections = driftCorrections;
  }

  public String getLastDriftTime() {
    return lastDriftTime;
  }

  public void setLastDriftTime(String lastDriftTime) {
    this.lastDriftTime = lastDriftTime;
  }
}
