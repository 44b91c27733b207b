package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class HBaseClusterSpec {

  @Required
  @JsonPropertyDescription("How the operator reaches the cluster.")
  private ConnectionSpec connection;

  @JsonPropertyDescription("Quota settings the cluster runs with, and how the operator keeps quotas in sync.")
  private QuotaSettingsSpec quotas = new QuotaSettingsSpec();

  @JsonPropertyDescription("Cluster-wide throttle policy: RegionServer throttles, exceed-throttle, RPC throttling. "
      + "Absent: the operator leaves them as HBase has them.")
  private ThrottlePolicySpec throttlePolicy;

  public ThrottlePolicySpec getThrottlePolicy() {
    return throttlePolicy;
  }

  public void setThrottlePolicy(ThrottlePolicySpec throttlePolicy) {
    this.throttlePolicy = throttlePolicy;
  }

  @JsonPropertyDescription("The Prometheus the cluster's TenantQuotas query (calibration and latency objectives of "
      + "source Prometheus) when they name none; TenantQuotas from other namespaces may name none.")
  private PrometheusEndpointSpec prometheus;

  public PrometheusEndpointSpec getPrometheus() {
    return prometheus;
  }

  public void setPrometheus(PrometheusEndpointSpec prometheus) {
    this.prometheus = prometheus;
  }

  @JsonPropertyDescription("Which other Kubernetes namespaces may point TenantQuotas at this cluster, and for which "
      + "HBase users, namespaces and tables. Absent: only TenantQuotas in this HBaseCluster's namespace may use it.")
  private TenancySpec tenancy;

  public TenancySpec getTenancy() {
    return tenancy;
  }

  public void setTenancy(TenancySpec tenancy) {
    this.tenancy = tenancy;
  }

  @JsonPropertyDescription("RegionServers and masters the operator runs for this cluster; absent when the cluster runs elsewhere.")
  private TopologySpec topology;

  public ConnectionSpec getConnection() {
    return connection;
  }

  public void setConnection(ConnectionSpec connection) {
    this.connection = connection;
  }

  public QuotaSettingsSpec getQuotas() {
    return quotas;
  }

  public void setQuotas(QuotaSettingsSpec quotas) {
    this.quotas = quotas;
  }

  public TopologySpec getTopology() {
    return topology;
  }

  public void setTopology(TopologySpec topology) {
    this.topology = topology;
  }
}
