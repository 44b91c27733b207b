package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.hbaseqos.operator.quota.ThrottleKind;

/**
 * A target the operator calibrates the tenant's request limit toward: it measures the tenant's
 * ops/s every period and rewrites one *_NUMBER throttle (req/sec) until the two agree.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.minLimit) || !has(self.maxLimit) || self.minLimit <= self.maxLimit",
    message = "calibration.minLimit must not exceed calibration.maxLimit")
@ValidationRule(value = "self.source != 'Prometheus' || has(self.prometheus)",
    message = "calibration.source Prometheus needs calibration.prometheus (a query; the url defaults to the HBaseCluster's spec.prometheus.url)")
public class CalibrationSpec {

  /** Which operations count, and the request-number throttle that limits them. */
  public enum Operations {
    all(ThrottleKind.REQUEST_NUMBER), reads(ThrottleKind.READ_NUMBER), writes(ThrottleKind.WRITE_NUMBER);

    private final ThrottleKind throttle;

    Operations(ThrottleKind throttle) {
      this.throttle = throttle;
    }

    public ThrottleKind throttle() {
      return throttle;
    }
  }

  public enum Source { HBase, Prometheus }

  @Required
  @Min(1)
  @Max(1.0E9)
  @JsonPropertyDescription("Ops/s the tenant should get (successful operations, summed over the cluster).")
  private Long targetOpsPerSecond;

  @Default("all")
  @JsonPropertyDescription("Which operations count, and which throttle the loop moves: all -> REQUEST_NUMBER, "
      + "reads -> READ_NUMBER, writes -> WRITE_NUMBER.")
  private Operations operations = Operations.all;

  @Default("1")
  @Min(1)
  @Max(1.0E12)
  @JsonPropertyDescription("The limit (req/sec) never goes below this.")
  private Long minLimit = 1L;

  @Default("1000000000")
  @Min(1)
  @Max(1.0E12)
  @JsonPropertyDescription("The limit (req/sec) never goes above this: a calibrated tenant is never unlimited.")
  private Long maxLimit = 1_000_000_000L;

  @Default("4")
  @Min(1.05)
  @Max(100)
  // the API server compares an integer against a fractional minimum truncated (1 >= 1.05 passes); CEL does not
  @ValidationRule(value = "self >= 1.05", message = "calibration.maxStep must be at least 1.05")
  @JsonPropertyDescription("Largest change of the limit in one period, as a factor (4 = at most 4x up or down to a quarter).")
  private Double maxStep = 4.0;

  @Default("3")
  @Min(0.5)
  @Max(25)
  @ValidationRule(value = "self >= 0.5", message = "calibration.tolerancePercent must be at least 0.5")
  @JsonPropertyDescription("Band around the target, in percent, inside which the limit is left alone.")
  private Double tolerancePercent = 3.0;

  @Default("30s")
  @Size(max = 8)
  @ValidationRule(value = "self.matches('^[1-9][0-9]*(s|m)$')",
      message = "calibration.period must be whole seconds or minutes, such as 30s or 1m")
  @ValidationRule(value = "!self.matches('^[1-9][0-9]*(s|m)$') || self.endsWith('m') "
      + "|| int(self.substring(0, self.size() - 1)) >= 10",
      message = "calibration.period must be at least 10s (the metrics window and HBase's quota reload need time)")
  @JsonPropertyDescription("How often the rate is measured and the limit may change (e.g. 30s, 1m; at least 10s).")
  private String period = "30s";

  @Default("HBase")
  @JsonPropertyDescription("Where the observed rate comes from: HBase (per-user RegionServer metrics summed over live "
      + "RegionServers; needs a user subject and hbase.regionserver.user.metrics.enabled=true) or Prometheus (a query).")
  private Source source = Source.HBase;

  @JsonPropertyDescription("For source Prometheus: the query that gives the tenant's successful ops/s, e.g. "
      + "sum(rate(app_ops_total{tenant=\"a\",result=\"ok\"}[1m])).")
  private PrometheusSource prometheus;

  public Long getTargetOpsPerSecond() {
    return targetOpsPerSecond;
  }

  public void setTargetOpsPerSecond(Long targetOpsPerSecond) {
    this.targetOpsPerSecond = targetOpsPerSecond;
  }

  public Operations getOperations() {
    return operations;
  }

  public void setOperations(Operations operations) {
    this.operations = operations;
  }

  public Long getMinLimit() {
    return minLimit;
  }

  public void setMinLimit(Long minLimit) {
    this.minLimit = minLimit;
  }

  public Long getMaxLimit() {
    return maxLimit;
  }

  public void setMaxLimit(Long maxLimit) {
    this.maxLimit = maxLimit;
  }

  public Double getMaxStep() {
    return maxStep;
  }

  public void setMaxStep(Double maxStep) {
    this.maxStep = maxStep;
  }

  public Double getTolerancePercent() {
    return tolerancePercent;
  }

  public void setTolerancePercent(Double tolerancePercent) {
    this.tolerancePercent = tolerancePercent;
  }

  public String getPeriod() {
    return period;
  }

  public void setPeriod(String period) {
    this.period = period;
  }

  public Source getSource() {
    return source;
  }

  public void setSource(Source source) {
    this.source = source;
  }

  public PrometheusSource getPrometheus() {
    return prometheus;
  }

  public void setPrometheus(PrometheusSource prometheus) {
    this.prometheus = prometheus;
  }

  /** A Prometheus query for the tenant's ops/s, and optionally one for its throttled requests/s. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class PrometheusSource extends PrometheusQuery {
    @io.fabric8.generator.annotation.Size(max = 4096)
    @JsonPropertyDescription("Optional PromQL returning the tenant's throttled requests/s (tells a binding limit from "
        + "a tenant that asks for less than its target).")
    private String throttledQuery;

    public String getThrottledQuery() {
      return throttledQuery;
    }

    public void setThrottledQuery(String throttledQuery) {
      this.throttledQuery = throttledQuery;
    }
  }
}
