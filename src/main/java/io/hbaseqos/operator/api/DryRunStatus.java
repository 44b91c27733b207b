package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What HBase would do with a dry-run tenant's plan, predicted from the requests the tenant sent each
 * RegionServer over the last sampling period ({@code usage/DryRunPrediction} makes it). Nothing of
 * the plan is in HBase. Written only when the prediction moves materially ({@link #sameReading}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DryRunStatus {
  /** What Enforce would write, as {@code status.summary} words it (e.g. {@code READ_NUMBER=500req/sec}). */
  private String plan;
  /** The prediction in words, with what it rests on and what it cannot see. */
  private String message;
  /** Operations per second the tenant did over the last period, over all RegionServers. */
  private Double measuredOpsPerSecond;
  /** Operations per second it would get under the plan. */
  private Double predictedOpsPerSecond;
  /**
   * Operations per second it would get if its requests to each RegionServer went independently (null:
   * within 5% of {@link #predictedOpsPerSecond}, which assumes a client whose threads wait on each request, so
   * that the server keeping the least of what it is sent slows it down everywhere).
   */
  private Double upToOpsPerSecond;

  public Double getUpToOpsPerSecond() {
    return upToOpsPerSecond;
  }

  public void setUpToOpsPerSecond(Double upToOpsPerSecond) {
    this.upToOpsPerSecond = upToOpsPerSecond;
  }

  /**
   * The share of its requests over the plan's limits: those HBase would refuse, or by which it would slow down a
   * client that waits and retries (HBase's own client waits the interval HBase names, and is rarely refused twice).
   */
  private Double rejectedPercent;
  /** Per RegionServer, busiest first (at most {@link #MAX_SERVERS}). */
  private List<Server> servers = new ArrayList<>();
  /** When this prediction was first made. */
  private String observedTime;

  /**
   * What the calibration loop had learnt of the tenant when its calibration gave way to this dry run,
   * kept while the dry run lasts (absent: it was not calibrated, or had learnt nothing yet).
   */
  private Learnt learnt;
  /**
   * Operations per second the learnt response predicts at the plan's limit of the same throttle (absent:
   * nothing learnt, the plan has no such limit, or it is too far from where the loop learnt).
   */
  private Double learntOpsPerSecond;

  public Learnt getLearnt() {
    return learnt;
  }

  public void setLearnt(Learnt learnt) {
    this.learnt = learnt;
  }

  public Double getLearntOpsPerSecond() {
    return learntOpsPerSecond;
  }

  public void setLearntOpsPerSecond(Double learntOpsPerSecond) {
    this.learntOpsPerSecond = learntOpsPerSecond;
  }

  /**
   * How the tenant's ops/s answered its limit near where the calibration loop last held it: at
   * {@code limit} per second of {@code throttle} ({@code scope}) it did {@code opsPerSecond}, and
   * {@code elasticity} is d ln(ops) / d ln(limit) there.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Learnt {
    private String throttle;
    private Long limit;
    private String scope;
    private Double opsPerSecond;
    private Double elasticity;

    public Learnt() {}

    public Learnt(String throttle, Long limit, String scope, Double opsPerSecond, Double elasticity) {
      this.throttle = throttle;
      this.limit = limit;
      this.scope = scope;
      this.opsPerSecond = opsPerSecond;
      this.elasticity = elasticity;
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

    public String getScope() {
      return scope;
    }

    public void setScope(String scope) {
      this.scope = scope;
    }

    public Double getOpsPerSecond() {
      return opsPerSecond;
    }

    public void setOpsPerSecond(Double opsPerSecond) {
      this.opsPerSecond = opsPerSecond;
    }

    public Double getElasticity() {
      return elasticity;
    }

    public void setElasticity(Double elasticity) {
      this.elasticity = elasticity;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Learnt l && Objects.equals(throttle, l.throttle) && Objects.equals(limit, l.limit)
          && Objects.equals(scope, l.scope) && Objects.equals(opsPerSecond, l.opsPerSecond)
          && Objects.equals(elasticity, l.elasticity);
    }

    @Override
    public int hashCode() {
      return Objects.hash(throttle, limit, scope, opsPerSecond, elasticity);
    }
  }

  /** How many servers status lists. */
  public static final int MAX_SERVERS = 16;

  /** One RegionServer's share of the prediction. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Server {
    private String name;
    /** Requests per second the tenant sent it (served, plus refused ones when HBase counts them). */
    private Double requestsPerSecond;
    /** The limit it would enforce for the tenant, per second (a CLUSTER limit's share). */
    private Double limitPerSecond;
    private Double predictedOpsPerSecond;
    private Double rejectedPercent;

    public Server() {}

    public Server(String name, Double requestsPerSecond, Double limitPerSecond, Double predictedOpsPerSecond,
        Double rejectedPercent) {
      this.name = name;
      this.requestsPerSecond = requestsPerSecond;
      this.limitPerSecond = limitPerSecond;
      this.predictedOpsPerSecond = predictedOpsPerSecond;
      this.rejectedPercent = rejectedPercent;
    }

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public Double getRequestsPerSecond() {
      return requestsPerSecond;
    }

    public void setRequestsPerSecond(Double requestsPerSecond) {
      this.requestsPerSecond = requestsPerSecond;
    }

    public Double getLimitPerSecond() {
      return limitPerSecond;
    }

    public void setLimitPerSecond(Double limitPerSecond) {
      this.limitPerSecond = limitPerSecond;
    }

    public Double getPredictedOpsPerSecond() {
      return predictedOpsPerSecond;
    }

    public void setPredictedOpsPerSecond(Double predictedOpsPerSecond) {
      this.predictedOpsPerSecond = predictedOpsPerSecond;
    }

    public Double getRejectedPercent() {
      return rejectedPercent;
    }

    public void setRejectedPercent(Double rejectedPercent) {
      this.rejectedPercent = rejectedPercent;
    }
  }

  /**
   * The same prediction, as far as anyone acts on it: the same plan and the same kind of message, ops/s within a
   * tenth (or 1/s), refused shares less than two points apart, the same learnt response and its prediction within a
   * tenth. Servers and times are not compared.
   */
  @JsonIgnore
  public boolean sameReading(DryRunStatus o) {
    return o != null && Objects.equals(plan, o.plan) && Objects.equals(kind(message), kind(o.message))
        && Readings.close(measuredOpsPerSecond, o.measuredOpsPerSecond)
        && Readings.close(predictedOpsPerSecond, o.predictedOpsPerSecond)
        && Readings.within(rejectedPercent, o.rejectedPercent, 2) && Objects.equals(learnt, o.learnt)
        && Readings.close(learntOpsPerSecond, o.learntOpsPerSecond);
  }

  private static String kind(String m) {
    return m == null ? null : m.substring(0, Math.min(16, m.length()));
  }

  public String getPlan() {
    return plan;
  }

  public void setPlan(String plan) {
    this.plan = plan;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public Double getMeasuredOpsPerSecond() {
    return measuredOpsPerSecond;
  }

  public void setMeasuredOpsPerSecond(Double measuredOpsPerSecond) {
    this.measuredOpsPerSecond = measuredOpsPerSecond;
  }

  public Double getPredictedOpsPerSecond() {
    return predictedOpsPerSecond;
  }

  public void setPredictedOpsPerSecond(Double predictedOpsPerSecond) {
    this.predictedOpsPerSecond = predictedOpsPerSecond;
  }

  public Double getRejectedPercent() {
    return rejectedPercent;
  }

  public void setRejectedPercent(Double rejectedPercent) {
    this.rejectedPercent = rejectedPercent;
  }

  public List<Server> getServers() {
    return servers;
  }

  public void setServers(List<Server> servers) {
    this.servers = servers;
  }

  public String getObservedTime() {
    return observedTime;
  }

  public void setObservedTime(String observedTime) {
    this.observedTime = observedTime;
  }
}
