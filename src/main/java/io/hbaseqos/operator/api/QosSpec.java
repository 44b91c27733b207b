package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A tenant's place in latency protection: its priority, the latency it is promised (a protected
 * tenant), and how far it may be slowed down for tenants of higher priority (a sheddable tenant).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "(has(self.latencyObjectives) && size(self.latencyObjectives) > 0) || has(self.sheddable)",
    message = "qos needs latencyObjectives (the tenant is protected), sheddable (the operator may slow it down "
        + "for tenants of higher priority), or both")
public class QosSpec {

  @Required
  @Min(0)
  @Max(1000000)
  @JsonPropertyDescription("Higher is more important: a tenant is only ever slowed down for the objectives of "
      + "tenants of strictly higher priority on the same HBaseCluster. A whole number, so any two compare.")
  private Integer priority;

  @Size(max = 4)
  @ValidationRule(value = "self.all(x, self.exists_one(y, y.operations == x.operations "
      + "&& y.statistic == x.statistic && (x.statistic == 'Mean' || y.percentile == x.percentile)))",
      message = "each latency objective (operations and statistic) may appear only once")
  @JsonPropertyDescription("What this tenant is promised: a latency bound on a percentile or the mean of its reads "
      + "or writes. A tenant with objectives is protected.")
  private List<LatencyObjectiveSpec> latencyObjectives = new ArrayList<>();

  @JsonPropertyDescription("How far this tenant may be slowed down when a tenant of higher priority misses an "
      + "objective: the operator moves one request-number throttle between floor and ceiling.")
  private SheddableSpec sheddable;

  public Integer getPriority() {
    return priority;
  }

  public void setPriority(Integer priority) {
    this.priority = priority;
  }

  public List<LatencyObjectiveSpec> getLatencyObjectives() {
    return latencyObjectives;
  }

  public void setLatencyObjectives(List<LatencyObjectiveSpec> latencyObjectives) {
    this.latencyObjectives = latencyObjectives;
  }

  public SheddableSpec getSheddable() {
    return sheddable;
  }

  public void setSheddable(SheddableSpec sheddable) {
    this.sheddable = sheddable;
  }

  /** A latency bound on one statistic of a tenant's reads or writes, judged every window. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @ValidationRule(value = "!has(self.percentile) || (self.percentile > 0.0 && self.percentile <= 100.0)",
      message = "latency objective percentile must be above 0 and at most 100, such as 99 or 99.9")
  @ValidationRule(value = "self.source != 'HBase' || self.boundMillis >= 1.0",
      message = "latency objective boundMillis must be at least 1 ms for source HBase: its latency histograms count "
          + "whole milliseconds")
  @ValidationRule(value = "self.source != 'CallQueue' || (self.operations == 'all' && self.statistic == 'Mean')",
      message = "latency objective source CallQueue judges the mean wait of every call in the RegionServers' call "
          + "queues: it needs operations all and statistic Mean")
  @ValidationRule(value = "self.source == 'CallQueue' || self.operations != 'all'",
      message = "latency objective operations all is for source CallQueue only: HBase and Prometheus objectives "
          + "judge reads or writes")
  @ValidationRule(value = "self.source != 'Prometheus' || has(self.prometheus)",
      message = "latency objective source Prometheus needs prometheus (a query; the url defaults to the HBaseCluster's spec.prometheus.url)")
  public static class LatencyObjectiveSpec {
    /** {@code all}: every call, for source CallQueue only. */
    public enum Operations { reads, writes, all }

    public enum Statistic { Percentile, Mean }

    public enum Source { HBase, Prometheus, CallQueue }

    @Default("reads")
    @JsonPropertyDescription("reads (gets and scans) or writes (single puts, deletes, increments, appends); all (every "
        + "call) for source CallQueue, and only there.")
    private Operations operations = Operations.reads;

    @Default("Percentile")
    @JsonPropertyDescription("Percentile (with percentile) or Mean.")
    private Statistic statistic = Statistic.Percentile;

    @Default("99")
    @JsonPropertyDescription("For statistic Percentile: which one, above 0 and at most 100 (99 = p99). HBase exports "
        + "p25, p50, p75, p90, p95, p98, p99, p99.9 and the maximum; another is read from the next one above it.")
    private Double percentile = 99.0;

    @Required
    @ValidationRule(value = "self > 0.0", message = "latency objective boundMillis must be above 0 ms")
    @Max(600000)
    @JsonPropertyDescription("The bound, in milliseconds: the statistic of a window must not exceed it.")
    private Double boundMillis;

    @Default("30s")
    @Size(max = 8)
    @ValidationRule(value = "self.matches('^[1-9][0-9]*(s|m)$')",
        message = "latency objective window must be whole seconds or minutes, such as 30s or 1m")
    @ValidationRule(value = "!self.matches('^[1-9][0-9]*(s|m)$') || self.endsWith('m') "
        + "|| int(self.substring(0, self.size() - 1)) >= 10",
        message = "latency objective window must be at least 10s (HBase's quota reload and metrics need time)")
    @JsonPropertyDescription("How long one judgement of the objective lasts; the operator acts at most once per "
        + "window (the shortest window of the cluster's objectives).")
    private String window = "30s";

    @Default("HBase")
    @JsonPropertyDescription("HBase: the RegionServers' per-user latency histograms (server-side time, without the "
        + "wait in the call queue; needs a user subject and hbase.regionserver.user.metrics.enabled=true). "
        + "Prometheus: a query over the client's own histograms, in milliseconds. CallQueue: the mean wait of a call "
        + "in the call queues of the RegionServer where it is longest, from the queue lengths and call counts HBase reports "
        + "(Little's law); needs no client histogram and no per-user metrics, and any subject (operations all, "
        + "statistic Mean).")
    private Source source = Source.HBase;

    @JsonPropertyDescription("For source Prometheus: the query that yields the statistic in milliseconds, e.g. "
        + "1000 * histogram_quantile(0.99, sum by (le) (rate(app_read_seconds_bucket{tenant=\"u\"}[30s]))).")
    private PrometheusQuery prometheus;

    public Operations getOperations() {
      return operations;
    }

    public void setOperations(Operations operations) {
      this.operations = operations;
    }

    public Statistic getStatistic() {
      return statistic;
    }

    public void setStatistic(Statistic statistic) {
      this.statistic = statistic;
    }

    public Double getPercentile() {
      return percentile;
    }

    public void setPercentile(Double percentile) {
      this.percentile = percentile;
    }

    public Double getBoundMillis() {
      return boundMillis;
    }

    public void setBoundMillis(Double boundMillis) {
      this.boundMillis = boundMillis;
    }

    public String getWindow() {
      return window;
    }

    public void setWindow(String window) {
      this.window = window;
    }

    public Source getSource() {
      return source;
    }

    public void setSource(Source source) {
      this.source = source;
    }

    public PrometheusQuery getPrometheus() {
      return prometheus;
    }

    public void setPrometheus(PrometheusQuery prometheus) {
      this.prometheus = prometheus;
    }

    /** "reads p99", "writes mean": how status names the objective. */
    /** Whether the two judge the same statistic of the same operations (a Mean has no percentile). */
    public boolean sameStatistic(LatencyObjectiveSpec o) {
      Statistic a = statistic == null ? Statistic.Percentile : statistic;
      Statistic b = o.statistic == null ? Statistic.Percentile : o.statistic;
      return Objects.equals(operations == null ? Operations.reads : operations,
          o.operations == null ? Operations.reads : o.operations) && a == b
          && (a == Statistic.Mean || Objects.equals(percentile == null ? 99.0 : percentile,
              o.percentile == null ? 99.0 : o.percentile));
    }

    public String describe() {
      String what = source == Source.CallQueue ? "call queue wait mean" : operations + " "
          + (statistic == Statistic.Mean ? "mean" : "p" + (percentile == null ? "99" : number(percentile)));
      return what + " <= " + (boundMillis == null ? "?" : number(boundMillis)) + "ms";
    }

    /** 5 for 5.0, 99.9 as it is. */
    private static String number(double x) {
      return x == Math.rint(x) ? String.valueOf((long) x) : String.valueOf(x);
    }
  }

  /** The range the operator may move a sheddable tenant's request-number throttle in. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @ValidationRule(value = "self.floor <= self.ceiling", message = "sheddable.floor must not exceed sheddable.ceiling")
  public static class SheddableSpec {
    @Default("all")
    @JsonPropertyDescription("Which throttle is moved: all -> REQUEST_NUMBER, reads -> READ_NUMBER, writes -> "
        + "WRITE_NUMBER. The operator owns it: it is not also listed in throttles.")
    private CalibrationSpec.Operations operations = CalibrationSpec.Operations.all;

    @Required
    @Min(1)
    @Max(1.0E12)
    @JsonPropertyDescription("The limit (req/sec) is never lowered below this, whatever the latency of others.")
    private Long floor;

    @Required
    @Min(1)
    @Max(1.0E12)
    @JsonPropertyDescription("The limit (req/sec) when no tenant above needs protecting; never exceeded.")
    private Long ceiling;

    public CalibrationSpec.Operations getOperations() {
      return operations;
    }

    public void setOperations(CalibrationSpec.Operations operations) {
      this.operations = operations;
    }

    public Long getFloor() {
      return floor;
    }

    public void setFloor(Long floor) {
      this.floor = floor;
    }

    public Long getCeiling() {
      return ceiling;
    }

    public void setCeiling(Long ceiling) {
      this.ceiling = ceiling;
    }
  }
}
