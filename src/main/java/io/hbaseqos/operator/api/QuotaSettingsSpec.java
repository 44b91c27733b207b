package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class QuotaSettingsSpec {

  public static final String DURATION_PATTERN = "^([0-9]+(ms|s|m|h))+$";

  public enum UnmanagedPolicy { Retain, Remove }

  public static final java.time.Duration DEFAULT_REFRESH = java.time.Duration.ofSeconds(30);

  @Default("true")
  @JsonPropertyDescription("hbase.quota.enabled the cluster is expected to run with; the operator reports when quotas are not supported.")
  private Boolean enabled = Boolean.TRUE;

  @Default("30s")
  @Size(max = 32)
  @ValidationRule(value = "self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "')",
      message = "must be a duration such as 30s, 1m30s or 500ms")
  @ValidationRule(value = "!self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "') || self.matches('[1-9]')",
      message = "must be longer than zero")
  @JsonPropertyDescription("hbase.quota.refresh.period the cluster runs with (HBase's own default is 12 h since 2.6.3; 30-60 s is recommended).")
  private String refreshPeriod = "30s";

  @Default("60s")
  @Size(max = 32)
  @ValidationRule(value = "self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "')",
      message = "must be a duration such as 30s, 1m30s or 500ms")
  @ValidationRule(value = "!self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "') || self.matches('[1-9]')",
      message = "must be longer than zero")
  @JsonPropertyDescription("How often the operator reads hbase:quota (one scan) to detect and undo changes made outside it.")
  private String resyncPeriod = "60s";

  @Default("Retain")
  @JsonPropertyDescription("Quotas in HBase that no TenantQuota owns: Retain leaves them alone, Remove deletes them (except those matching unmanagedIgnore).")
  private UnmanagedPolicy unmanagedPolicy = UnmanagedPolicy.Retain;

  @Size(max = 64)
  @JsonPropertyDescription("Regular expressions matched against a subject rendered as 'user=u', 'namespace=ns', 'table=ns:t', 'user=u,table=ns:t' or 'user=u,namespace=ns'; matching quotas are never removed.")
  private List<String> unmanagedIgnore = new ArrayList<>();

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public String getRefreshPeriod() {
    return refreshPeriod;
  }

  public void setRefreshPeriod(String refreshPeriod) {
    this.refreshPeriod = refreshPeriod;
  }

  public String getResyncPeriod() {
    return resyncPeriod;
  }

  public void setResyncPeriod(String resyncPeriod) {
    this.resyncPeriod = resyncPeriod;
  }

  public UnmanagedPolicy getUnmanagedPolicy() {
    return unmanagedPolicy;
  }

  public void setUnmanagedPolicy(UnmanagedPolicy unmanagedPolicy) {
    this.unmanagedPolicy = unmanagedPolicy;
  }

  public List<String> getUnmanagedIgnore() {
    return unmanagedIgnore;
  }

  public void setUnmanagedIgnore(List<String> unmanagedIgnore) {
    this.unmanagedIgnore = unmanagedIgnore;
  }
}
