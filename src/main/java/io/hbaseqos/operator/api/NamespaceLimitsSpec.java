package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * A namespace's table and region maximums ({@code hbase.namespace.quota.maxtables} and
 * {@code maxregions} on the namespace descriptor). A maximum left out is removed from the
 * descriptor: the TenantQuota owns both.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "has(self.maxTables) || has(self.maxRegions)",
    message = "namespaceLimits must set maxTables, maxRegions or both; leave namespaceLimits out to leave the "
        + "namespace's limits as HBase has them")
public class NamespaceLimitsSpec {

  @ValidationRule(value = "self >= 1", message = "maxTables must be at least 1: HBase refuses 0 and negative values "
      + "(leave it out for no limit)")
  @JsonPropertyDescription("Most tables the namespace may hold (disabled ones count). Creating one more fails with "
      + "HBase's QuotaExceededException. Left out: no limit.")
  private Long maxTables;

  @ValidationRule(value = "self >= 1", message = "maxRegions must be at least 1: HBase refuses 0 and negative values "
      + "(leave it out for no limit)")
  @JsonPropertyDescription("Most regions the namespace's tables may have together; a table creation or a split "
      + "beyond it fails. Left out: no limit.")
  private Long maxRegions;

  public NamespaceLimitsSpec() {}

  public NamespaceLimitsSpec(Long maxTables, Long maxRegions) {
    this.maxTables = maxTables;
    this.maxRegions = maxRegions;
  }

  public Long getMaxTables() {
    return maxTables;
  }

  public void setMaxTables(Long maxTables) {
    this.maxTables = maxTables;
  }

  public Long getMaxRegions() {
    return maxRegions;
  }

  public void setMaxRegions(Long maxRegions) {
    this.maxRegions = maxRegions;
  }
}
