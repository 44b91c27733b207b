package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/**
 * What the tenant did over the operator's last sampling period (the cluster's resync period), from
 * the metrics its RegionServers already export, read once per period for every tenant together
 * ({@code usage/UsageReport} makes it). Written only when it changes materially ({@link #sameReading}),
 * so a steady tenant causes no status writes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UsageStatus {
  /** For {@code kubectl get}: e.g. {@code 1.9k/s (76% of limit), 3% throttled}. */
  private String summary;
  private Double readOpsPerSecond;
  private Double writeOpsPerSecond;
  /** The share of its requests HBase refused with a throttling exception (HBase 2.6.4+ counts them). */
  private Double throttledPercent;
  /** The busiest RegionServer's share of its operations. */
  private Integer busiestServerPercent;
  /** RegionServers that served it in the period. */
  private Integer servers;
  /**
   * Its use against its request limit: on the busiest server for a MACHINE limit (each server
   * enforces it), over all servers for a CLUSTER one.
   */
  private Integer limitUsedPercent;
  /** A table's or namespace's store files over all servers. */
  private Long dataBytes;
  /** Whether those fit the cluster's block cache, in words. */
  private String cacheFit;
  /** Advice, when the last periods show its limit far above its use, or HBase refusing most of it. */
  private String hint;
  /** When this reading was first seen. */
  private String observedTime;

  /**
   * The same reading, as far as anyone acts on it: ops/s within a tenth (or 1/s), throttled share within
   * two points, busiest server within ten (an idle period, which has none, changes nothing), use of the
   * limit within ten, the same kind of hint, data within a tenth, the same fit. The number of servers
   * that served it is not compared: a light tenant touches a different number every period.
   */
  @JsonIgnore
  public boolean sameReading(UsageStatus o) {
    return o != null && Readings.close(readOpsPerSecond, o.readOpsPerSecond)
        && Readings.close(writeOpsPerSecond, o.writeOpsPerSecond)
        && Readings.within(throttledPercent, o.throttledPercent, 2) && (busiestServerPercent == null
        || o.busiestServerPercent == null
        || Readings.within(toDouble(busiestServerPercent), toDouble(o.busiestServerPercent), 10))
        && Readings.within(toDouble(limitUsedPercent), toDouble(o.limitUsedPercent), 10)
        && Objects.equals(hint == null, o.hint == null)
        && Readings.close(dataBytes == null ? null : dataBytes.doubleValue(), o.dataBytes == null ? null
            : o.dataBytes.doubleValue()) && Objects.equals(fitKind(cacheFit), fitKind(o.cacheFit))
        && (hint == null || hint.substring(0, Math.min(12, hint.length())).equals(
            o.hint.substring(0, Math.min(12, o.hint.length()))));
  }

  private static String fitKind(String fit) {
    return fit == null ? null : fit.substring(0, Math.max(0, fit.indexOf(':')));
  }

  private static Double toDouble(Integer i) {
    return i == null ? null : i.doubleValue();
  }

  public String getSummary() {
    return summary;
  }

  public void setSummary(String summary) {
    this.summary = summary;
  }

  public Double getReadOpsPerSecond() {
    return readOpsPerSecond;
  }

  public void setReadOpsPerSecond(Double readOpsPerSecond) {
    this.readOpsPerSecond = readOpsPerSecond;
  }

  public Double getWriteOpsPerSecond() {
    return writeOpsPerSecond;
  }

  public void setWriteOpsPerSecond(Double writeOpsPerSecond) {
    this.writeOpsPerSecond = writeOpsPerSecond;
  }

  public Double getThrottledPercent() {
    return throttledPercent;
  }

  public void setThrottledPercent(Double throttledPercent) {
    this.throttledPercent = throttledPercent;
  }

  public Integer getBusiestServerPercent() {
    return busiestServerPercent;
  }

  public void setBusiestServerPercent(Integer busiestServerPercent) {
    this.busiestServerPercent = busiestServerPercent;
  }

  public Integer getServers() {
    return servers;
  }

  public void setServers(Integer servers) {
    this.servers = servers;
  }

  public Integer getLimitUsedPercent() {
    return limitUsedPercent;
  }

  public void setLimitUsedPercent(Integer limitUsedPercent) {
    this.limitUsedPercent = limitUsedPercent;
  }

  public Long getDataBytes() {
    return dataBytes;
  }

  public void setDataBytes(Long dataBytes) {
    this.dataBytes = dataBytes;
  }

  public String getCacheFit() {
    return cacheFit;
  }

  public void setCacheFit(String cacheFit) {
    this.cacheFit = cacheFit;
  }

  public String getHint() {
    return hint;
  }

  public void setHint(String hint) {
    this.hint = hint;
  }

  public String getObservedTime() {
    return observedTime;
  }

  public void setObservedTime(String observedTime) {
    this.observedTime = observedTime;
  }
}
