package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.hbaseqos.operator.quota.SpaceLimit;
import io.hbaseqos.operator.quota.SpaceUsage;
import java.time.Instant;
import java.util.Objects;

/**
 * A space quota as HBase last reported it (its master's space quota snapshots, read in bulk once
 * per resync). Written when the violation state, the limit or the whole used percentage changes, or
 * the used bytes by more than a tenth, so a tenant whose usage creeps by a few bytes causes no
 * status writes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SpaceStatus {
  /** For {@code kubectl get}: e.g. {@code 12% of 10G} or {@code 104% of 1M, NO_INSERTS in force}. */
  private String usage;
  private Long usedBytes;
  private Long limitBytes;
  private Integer usedPercent;
  private String policy;
  /** Whether HBase enforces the policy now. */
  private Boolean inViolation;
  /** Set while a DISABLE policy holds the table offline. */
  private Boolean tableDisabled;
  /** When HBase's report was first seen at these values. */
  private String observedTime;

  /**
   * The status for a space limit HBase holds and the master's last report of it (null: not
   * reported yet). The percentage is of the limit HBase holds now; whether the policy is in force
   * is the master's word. When {@code before} reads the same ({@link #sameReading}), it is returned
   * as it was, so a small change of usage writes no status.
   */
  public static SpaceStatus of(SpaceLimit limit, SpaceUsage usage, boolean table, SpaceStatus before, Instant now) {
    SpaceStatus s = new SpaceStatus();
    s.limitBytes = limit.bytes();
    s.policy = limit.policy().name();
    if (usage == null) {
      s.usage = SpaceLimit.formatSize(limit.bytes()) + ", usage not reported yet";
      s.inViolation = false;
    } else {
      SpaceUsage u = new SpaceUsage(usage.usedBytes(), limit.bytes(), usage.inViolation(), usage.policy());
      s.usedBytes = usage.usedBytes();
      s.usedPercent = u.usedPercent();
      s.inViolation = usage.inViolation();
      s.usage = u.describe();
      if (table && usage.inViolation() && usage.policy() == SpaceLimit.Policy.DISABLE) {
        s.tableDisabled = true;
      }
    }
    if (before != null && s.sameReading(before)) {
      return before;
    }
    s.observedTime = now.toString();
    return s;
  }

  /**
   * Same limit, policy, percentage and violation state, and used bytes within a tenth of each
   * other (so status follows growth on a log scale, 0 to 1 MiB of a 10 GiB limit included, but not
   * every byte).
   */
  @JsonIgnore
  public boolean sameReading(SpaceStatus o) {
    return o != null && Objects.equals(limitBytes, o.limitBytes) && Objects.equals(policy, o.policy)
        && Objects.equals(usedPercent, o.usedPercent) && Objects.equals(inViolation, o.inViolation)
        && Objects.equals(tableDisabled, o.tableDisabled) && withinATenth(usedBytes, o.usedBytes)
        && Objects.equals(usage, o.usage);
  }

  private static boolean withinATenth(Long a, Long b) {
    if (a == null || b == null) {
      return a == null && b == null;
    }
    long hi = Math.max(a, b);
    return hi - Math.min(a, b) <= hi / 10;
  }

  public String getUsage() {
    return usage;
  }

  public void setUsage(String usage) {
    this.usage = usage;
  }

  public Long getUsedBytes() {
    return usedBytes;
  }

  public void setUsedBytes(Long usedBytes) {
    this.usedBytes = usedBytes;
  }

  public Long getLimitBytes() {
    return limitBytes;
  }

  public void setLimitBytes(Long limitBytes) {
    this.limitBytes = limitBytes;
  }

  public Integer getUsedPercent() {
    return usedPercent;
  }

  public void setUsedPercent(Integer usedPercent) {
    this.usedPercent = usedPercent;
  }

  public String getPolicy() {
    return policy;
  }

  public void setPolicy(String policy) {
    this.policy = policy;
  }

  public Boolean getInViolation() {
    return inViolation;
  }

  public void setInViolation(Boolean inViolation) {
    this.inViolation = inViolation;
  }

  public Boolean getTableDisabled() {
    return tableDisabled;
  }

  public void setTableDisabled(Boolean tableDisabled) {
    this.tableDisabled = tableDisabled;
  }

  public String getObservedTime() {
    return observedTime;
  }

  public void setObservedTime(String observedTime) {
    this.observedTime = observedTime;
  }
}
