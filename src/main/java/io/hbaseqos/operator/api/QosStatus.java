package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** Where the tenant stands in latency protection. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class QosStatus {
  @JsonPropertyDescription("A protected tenant's objectives: the last reading and how often each was met.")
  private List<Objective> objectives;
  @JsonPropertyDescription("Sheddable tenants (namespace/name) held below their ceiling for this tenant's objectives.")
  private List<String> holding;
  @JsonPropertyDescription("A sheddable tenant: the throttle moved and its limit (req/sec) now.")
  private String throttle;
  private Long limit;
  @JsonPropertyDescription("Free (at its ceiling), Squeezed, Held, Released (given back part of the way) or Frozen "
      + "(held because a latency above it is unknown).")
  private String state;
  @JsonPropertyDescription("Protected tenants (namespace/name) this tenant is held down for.")
  private List<String> heldBy;
  private String message;
  @JsonPropertyDescription("The load at which the tenant was last squeezed: give-backs go at most halfway to it, "
      + "and not past it until enough periods pass without a squeeze; a restarted operator resumes from it.")
  private Long roof;
  @JsonPropertyDescription("When the limit took its present value (RFC 3339): on an HBase that enforces a quota only at "
      + "its refresh, a restarted operator judges no period measured before the limit was in force.")
  private String limitSince;

  public List<Objective> getObjectives() {
    return objectives;
  }

  public void setObjectives(List<Objective> objectives) {
    this.objectives = objectives;
  }

  public List<String> getHolding() {
    return holding;
  }

  public void setHolding(List<String> holding) {
    this.holding = holding;
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

  public List<String> getHeldBy() {
    return heldBy;
  }

  public void setHeldBy(List<String> heldBy) {
    this.heldBy = heldBy;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public Long getRoof() {
    return roof;
  }

  public void setRoof(Long roof) {
    this.roof = roof;
  }

  public String getLimitSince() {
    return limitSince;
  }

  public void setLimitSince(String limitSince) {
    this.limitSince = limitSince;
  }

  /** One objective's last reading and attainment. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Objective {
    @JsonPropertyDescription("The objective, e.g. 'reads p99 <= 5ms'.")
    private String objective;
    private Double observedMillis;
    @JsonPropertyDescription("Met, MetWithMargin, Idle, Missed or Unknown.")
    private String verdict;
    @JsonPropertyDescription("Periods met out of the periods judged (the last 20).")
    private Integer metPeriods;
    private Integer judgedPeriods;

    public String getObjective() {
      return objective;
    }

    public void setObjective(String objective) {
      this.objective = objective;
    }

    public Double getObservedMillis() {
      return observedMillis;
    }

    public void setObservedMillis(Double observedMillis) {
      this.observedMillis = observedMillis;
    }

    public String getVerdict() {
      return verdict;
    }

    public void setVerdict(String verdict) {
      this.verdict = verdict;
    }

    public Integer getMetPeriods() {
      return metPeriods;
    }

    public void setMetPeriods(Integer metPeriods) {
      this.metPeriods = metPeriods;
    }

    public Integer getJudgedPeriods() {
      return judgedPeriods;
    }

    public void setJudgedPeriods(Integer judgedPeriods) {
      this.judgedPeriods = judgedPeriods;
    }
  }
}
