package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.hbaseqos.operator.quota.SpaceLimit;

/**
 * A table's or namespace's space quota: the most its store files may hold, and what HBase does
 * beyond it. The policy has no default: {@code DISABLE} takes a table offline, so each tenant
 * states what it wants.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SpaceSpec {
  /** A size's shape: digits then letters (each rule below assumes the ones before it hold). */
  static final String SHAPE = "^[0-9]+[a-zA-Z]*$";
  static final String KNOWN_UNIT = "(?i)^[0-9]+[bkmgtp]?$";

  @Required
  @Size(max = 24)
  @ValidationRule(value = "size(self) > 0", message = "space limit is empty; write a size such as 10G")
  @ValidationRule(value = "size(self) == 0 || self.matches('^[0-9]')",
      message = "space limit must start with a whole number, such as 10G or 500M")
  @ValidationRule(value = "!self.matches('^[0-9]') || self.matches('" + SHAPE + "')",
      message = "space limit must be <number><unit>, such as 10G or 500M")
  @ValidationRule(value = "!self.matches('" + SHAPE + "') || self.matches('" + KNOWN_UNIT + "')",
      message = "space limit has an unknown unit: use B, K, M, G, T or P (powers of 1024, as in the HBase shell), "
          + "or no unit for bytes")
  @ValidationRule(value = "!self.matches('^[0-9]') || self.matches('^0*[1-9]')",
      message = "space limit must be greater than 0")
  @ValidationRule(value = "!self.matches('" + KNOWN_UNIT + "') || (size(self.find('^[0-9]+')) <= 16 && "
      + "int(self.find('^[0-9]+')) <= (self.matches('(?i)k$') ? 8796093022208 : self.matches('(?i)m$') ? 8589934592 "
      + ": self.matches('(?i)g$') ? 8388608 : self.matches('(?i)t$') ? 8192 : self.matches('(?i)p$') ? 8 "
      + ": 9007199254740992))",
      message = "space limit is too large: at most 8P (2^53 bytes)")
  @JsonPropertyDescription("Most bytes the subject's store files may hold, HBase shell syntax: <number>[B|K|M|G|T|P] "
      + "(powers of 1024), e.g. '10G'. HBase snapshots' files count toward it.")
  private String limit;

  @Required
  @JsonPropertyDescription("What HBase does while usage is over the limit: NO_INSERTS (refuse puts, appends, "
      + "increments), NO_WRITES (also deletes), NO_WRITES_COMPACTIONS (also compactions), DISABLE (take the table "
      + "offline). No default: DISABLE takes tables offline, so it is always an explicit choice.")
  private SpaceLimit.Policy policy;

  public SpaceSpec() {}

  public SpaceSpec(String limit, SpaceLimit.Policy policy) {
    this.limit = limit;
    this.policy = policy;
  }

  public String getLimit() {
    return limit;
  }

  public void setLimit(String limit) {
    this.limit = limit;
  }

  public SpaceLimit.Policy getPolicy() {
    return policy;
  }

  public void setPolicy(SpaceLimit.Policy policy) {
    this.policy = policy;
  }
}
