package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The RegionServers' throttle rate limiter ({@code hbase.quota.rate.limiter}) and its refill interval. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.refillInterval) || self.type == 'FixedInterval'",
    message = "refillInterval applies to the FixedInterval limiter only (AverageInterval refills continuously)")
public class RateLimiterSpec {

  public enum Type { AverageInterval, FixedInterval }

  @Required
  @JsonPropertyDescription("AverageInterval (HBase's default): tokens refill continuously, and a throttled client is "
      + "told to retry in a few ms. FixedInterval: tokens refill once per refillInterval, and a throttled client waits "
      + "for the next refill. The calibration loop measures whichever runs; see docs/operations.md.")
  private Type type;

  @Size(max = 8)
  @ValidationRule(value = "self.matches('^[0-9]+ms$') || self == '1s'",
      message = "refillInterval must be in milliseconds, such as 100ms (or 1s)")
  @ValidationRule(value = "!self.matches('^[0-9]+ms$') || (size(self) <= 6 && int(self.find('^[0-9]+')) >= 1 "
      + "&& int(self.find('^[0-9]+')) <= 1000)",
      message = "refillInterval must be between 1ms and 1000ms: HBase uses at most one second, the time unit of a /sec throttle")
  @JsonPropertyDescription("hbase.quota.rate.limiter.refill.interval.ms (HBase 2.6.0+, HBASE-28453) for FixedInterval: "
      + "how often the tokens refill, 1ms to 1000ms (HBase's default 1s). 100ms keeps waits short without the retry "
      + "storms of AverageInterval.")
  private String refillInterval;

  public Type getType() {
    return type;
  }

  public void setType(Type type) {
    this.type = type;
  }

  public String getRefillInterval() {
    return refillInterval;
  }

  public void setRefillInterval(String refillInterval) {
    this.refillInterval = refillInterval;
  }
}
