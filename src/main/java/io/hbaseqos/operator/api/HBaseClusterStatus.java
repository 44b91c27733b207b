package io.hbaseqos.operator.api;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class HBaseClusterStatus extends ConditionedStatus {
  private String hbaseVersion;
  private String clusterId;
  private Integer regionServers;
  private Boolean rpcThrottleEnabled;
  /** Whether the cluster has quota support (hbase.quota.enabled, i.e. an hbase:quota table). */
  private Boolean quotasEnabled;
  /** Subjects in hbase:quota owned by a TenantQuota. */
  private Integer managedQuotas;
  /** Subjects in hbase:quota no TenantQuota owns. */
  private Integer unmanagedQuotas;
  /** hbase.quota.refresh.period as the RegionServers run with it (from their /conf), e.g. "30s". */
  private String quotaRefreshPeriod;
  @com.fasterxml.jackson.annotation.JsonPropertyDescription("Declared quota settings (spec.quotas) some RegionServer runs "
      + "differently, one line per key with the servers and values found; empty when they all match.")
  private java.util.List<String> quotaSettingMismatches;
  /** The planned and the actual layout, when spec.topology is set. */
  private TopologyStatus topology;
  /** RegionServer throttles as HBase holds them (with spec.throttlePolicy). */
  private List<AppliedThrottle> regionServerThrottles;
  /** Under throttlePolicy.enforcement DryRun: the policy planned, and what its RegionServer throttles would do. */
  private DryRunStatus throttlePolicyDryRun;

  public DryRunStatus getThrottlePolicyDryRun() {
    return throttlePolicyDryRun;
  }

  public void setThrottlePolicyDryRun(DryRunStatus throttlePolicyDryRun) {
    this.throttlePolicyDryRun = throttlePolicyDryRun;
  }
  /** Whether exceed-throttle is on in HBase's quota table (with spec.throttlePolicy). */
  /** The RegionServers' block cache, read with the tenants' usage once per resync. */
  private BlockCacheStatus blockCache;

  public BlockCacheStatus getBlockCache() {
    return blockCache;
  }

  public void setBlockCache(BlockCacheStatus blockCache) {
    this.blockCache = blockCache;
  }

  private Boolean exceedThrottleEnabled;

  public List<AppliedThrottle> getRegionServerThrottles() {
    return regionServerThrottles;
  }

  public void setRegionServerThrottles(List<AppliedThrottle> regionServerThrottles) {
    this.regionServerThrottles = regionServerThrottles;
  }

  public Boolean getExceedThrottleEnabled() {
    return exceedThrottleEnabled;
  }

  public void setExceedThrottleEnabled(Boolean exceedThrottleEnabled) {
    this.exceedThrottleEnabled = exceedThrottleEnabled;
  }

  public java.util.List<String> getQuotaSettingMismatches() {
    return quotaSettingMismatches;
  }

  public void setQuotaSettingMismatches(java.util.List<String> quotaSettingMismatches) {
    this.quotaSettingMismatches = quotaSettingMismatches;
  }

  public String getQuotaRefreshPeriod() {
    return quotaRefreshPeriod;
  }

  public void setQuotaRefreshPeriod(String quotaRefreshPeriod) {
    this.quotaRefreshPeriod = quotaRefreshPeriod;
  }

  public String getHbaseVersion() {
    return hbaseVersion;
  }

  public void setHbaseVersion(String hbaseVersion) {
    this.hbaseVersion = hbaseVersion;
  }

  public String getClusterId() {
    return clusterId;
  }

  public void setClusterId(String clusterId) {
    this.clusterId = clusterId;
  }

  public Integer getRegionServers() {
    return regionServers;
  }

  public void setRegionServers(Integer regionServers) {
    this.regionServers = regionServers;
  }

  public Boolean getRpcThrottleEnabled() {
    return rpcThrottleEnabled;
  }

  public void setRpcThrottleEnabled(Boolean rpcThrottleEnabled) {
    this.rpcThrottleEnabled = rpcThrottleEnabled;
  }

  public Boolean getQuotasEnabled() {
    return quotasEnabled;
  }

  public void setQuotasEnabled(Boolean quotasEnabled) {
    this.quotasEnabled = quotasEnabled;
  }

  public Integer getManagedQuotas() {
    return managedQuotas;
  }

  public void setManagedQuotas(Integer managedQuotas) {
    this.managedQuotas = managedQuotas;
  }

  public Integer getUnmanagedQuotas() {
    return unmanagedQuotas;
  }

  public void setUnmanagedQuotas(Integer unmanagedQuotas) {
    this.unmanagedQuotas = unmanagedQuotas;
  }

  public TopologyStatus getTopology() {
    return topology;
  }

  public void setTopology(TopologyStatus topology) {
    this.topology = topology;
  }
}
