package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.hbaseqos.operator.quota.ThrottleKind;

/**
 * One throttle: its HBase type and a limit, either in the shell syntax ({@code limit: 2500req/sec})
 * or structured ({@code value: 10, sizeUnit: M, timeUnit: sec}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "has(self.limit) != has(self.value)",
    message = "set either limit (shell syntax such as '2500req/sec') or value (with timeUnit), exactly one")
@ValidationRule(value = "!has(self.limit) || !self.limit.matches('" + ThrottleSpec.SHAPE + "') "
    + "|| !self.limit.matches('" + ThrottleSpec.KNOWN_UNIT + "') || "
    + "(self.type.endsWith('_NUMBER') ? self.limit.matches('(?i)^[0-9]+req/') : "
    + "self.type.endsWith('_CAPACITY_UNIT') ? self.limit.matches('(?i)^[0-9]+cu/') : "
    + "self.type == 'REQUEST_HANDLER_USAGE_MS' ? self.limit.matches('(?i)^[0-9]+ms/') : "
    + "self.limit.matches('(?i)^[0-9]+[bkmgtp]/'))",
    message = "limit has the wrong unit for its type: *_NUMBER types take 'req', *_SIZE types B, K, M, G, T or P, "
        + "*_CAPACITY_UNIT types 'CU', REQUEST_HANDLER_USAGE_MS 'ms'")
@ValidationRule(value = "!has(self.sizeUnit) || self.type.endsWith('_SIZE')",
    message = "sizeUnit applies to *_SIZE throttle types only")
@ValidationRule(value = "!has(self.timeUnit) || has(self.value)",
    message = "timeUnit goes with value; a shell limit carries its own time unit (e.g. '/sec')")
@ValidationRule(value = "!has(self.value) || !has(self.sizeUnit) || self.value <= "
    + "(self.sizeUnit == 'K' ? 8796093022208 : self.sizeUnit == 'M' ? 8589934592 : self.sizeUnit == 'G' ? 8388608 "
    + ": self.sizeUnit == 'T' ? 8192 : self.sizeUnit == 'P' ? 8 : 9007199254740992)",
    message = "value is too large for its sizeUnit: at most 2^53 bytes (8 PiB) per time unit")
public class ThrottleSpec {
  /** A limit's shape: digits, a unit, '/', a time unit (each rule below assumes the ones before it hold). */
  static final String SHAPE = "^[0-9]+[a-zA-Z]+/[a-zA-Z]+$";
  static final String KNOWN_UNIT = "(?i)^[0-9]+(req|cu|ms|b|k|m|g|t|p)/";

  public enum SizeUnit { B, K, M, G, T, P }

  public enum TimeUnitName { sec, min, hour, day }

  @Required
  @JsonPropertyDescription("HBase throttle type (org.apache.hadoop.hbase.quotas.ThrottleType).")
  private ThrottleKind type;

  @Size(max = 40)
  @ValidationRule(value = "size(self) > 0", message = "limit is empty; write e.g. 2500req/sec")
  @ValidationRule(value = "size(self) == 0 || self.matches('^[0-9]')",
      message = "limit must start with a whole number, such as 2500req/sec or 10M/sec")
  @ValidationRule(value = "!self.matches('^[0-9]') || self.matches('" + SHAPE + "')",
      message = "limit must be <number><unit>/<time unit>, such as 2500req/sec or 10M/sec")
  @ValidationRule(value = "!self.matches('" + SHAPE + "') || self.matches('" + KNOWN_UNIT + "')",
      message = "limit has an unknown unit: use req, B, K, M, G, T, P, CU or ms")
  @ValidationRule(value = "!self.matches('" + SHAPE + "') || self.matches('(?i)/(sec|min|hour|day)$')",
      message = "limit has an unknown time unit: use sec, min, hour or day")
  @ValidationRule(value = "!self.matches('^[0-9]') || self.matches('^0*[1-9]')",
      message = "limit must be greater than 0")
  @ValidationRule(value = "!self.matches('" + SHAPE + "') || !self.matches('" + KNOWN_UNIT + "') || "
      + "(size(self.find('^[0-9]+')) <= 16 && int(self.find('^[0-9]+')) <= "
      + "(self.matches('(?i)^[0-9]+k/') ? 8796093022208 : self.matches('(?i)^[0-9]+m/') ? 8589934592 "
      + ": self.matches('(?i)^[0-9]+g/') ? 8388608 : self.matches('(?i)^[0-9]+t/') ? 8192 "
      + ": self.matches('(?i)^[0-9]+p/') ? 8 : 9007199254740992))",
      message = "limit is too large: at most 2^53 (9007199254740992) requests, bytes, CU or ms per time unit")
  @JsonPropertyDescription("Limit in HBase shell syntax: <number><req|B|K|M|G|T|P|CU|ms>/<sec|min|hour|day>, e.g. '2500req/sec', '10M/sec', '100CU/min'.")
  private String limit;

  @ValidationRule(value = "self >= 1", message = "value must be greater than 0")
  @ValidationRule(value = "self <= 9007199254740992",
      message = "value is too large: at most 2^53 (9007199254740992) requests, bytes, CU or ms per time unit")
  @JsonPropertyDescription("Structured limit: amount per timeUnit (requests, bytes times sizeUnit, capacity units or ms).")
  private Long value;

  @JsonPropertyDescription("Size unit of value for *_SIZE types (default B).")
  private SizeUnit sizeUnit;

  @JsonPropertyDescription("Time unit of value (default sec).")
  private TimeUnitName timeUnit;

  @JsonPropertyDescription("Overrides spec.scope for this throttle.")
  private TenantQuotaSpec.Scope scope;

  public ThrottleSpec() {}

  public static ThrottleSpec shell(ThrottleKind type, String limit) {
    ThrottleSpec t = new ThrottleSpec();
    t.type = type;
    t.limit = limit;
    return t;
  }

  public ThrottleKind getType() {
    return type;
  }

  public void setType(ThrottleKind type) {
    this.type = type;
  }

  public String getLimit() {
    return limit;
  }

  public void setLimit(String limit) {
    this.limit = limit;
  }

  public Long getValue() {
    return value;
  }

  public void setValue(Long value) {
    this.value = value;
  }

  public SizeUnit getSizeUnit() {
    return sizeUnit;
  }

  public void setSizeUnit(SizeUnit sizeUnit) {
    this.sizeUnit = sizeUnit;
  }

  public TimeUnitName getTimeUnit() {
    return timeUnit;
  }

  public void setTimeUnit(TimeUnitName timeUnit) {
    this.timeUnit = timeUnit;
  }

  public TenantQuotaSpec.Scope getScope() {
    return scope;
  }

  public void setScope(TenantQuotaSpec.Scope scope) {
    this.scope = scope;
  }
}
