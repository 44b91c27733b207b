package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

/**
 * Namespaces granted the use of an HBaseCluster for some HBase subjects: those it names, and those
 * its selector chooses by their labels. A pattern is a name, or a prefix followed by '*'
 * ('svc_a_*'); '*' alone matches every name. A table is granted when it matches {@code tables} or
 * when its HBase namespace matches {@code hbaseNamespaces}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "(has(self.fromNamespaces) && size(self.fromNamespaces) > 0) "
    + "|| has(self.fromNamespaceSelector)",
    message = "a grant names its Kubernetes namespaces in fromNamespaces, or chooses them by fromNamespaceSelector")
@ValidationRule(value = "(has(self.users) && size(self.users) > 0) || (has(self.hbaseNamespaces) "
    + "&& size(self.hbaseNamespaces) > 0) || (has(self.tables) && size(self.tables) > 0)",
    message = "a grant names at least one of users, hbaseNamespaces or tables")
public class TenantGrant {
  /** A pattern's character rule, in CEL: a name of the given characters, optionally ending in '*'. */
  private static final String USER = "^([\\\\p{L}\\\\p{N}_][\\\\p{L}\\\\p{N}_.-]*)?[*]?$";
  private static final String HBASE_NAMESPACE = "^[A-Za-z0-9_]*[*]?$";
  private static final String TABLE = "^([A-Za-z0-9_]+:)?([A-Za-z0-9_][A-Za-z0-9_.-]*)?[*]?$";

  @Size(max = 32)
  @ValidationRule(value = "self.all(n, n.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'))",
      message = "fromNamespaces must be Kubernetes namespace names (lowercase letters, digits and '-', at most 63)")
  @JsonPropertyDescription("Kubernetes namespaces whose TenantQuotas this grant applies to, by name.")
  private List<@Size(min = 1, max = 63) String> fromNamespaces = new ArrayList<>();

  @JsonPropertyDescription("Kubernetes namespaces whose TenantQuotas this grant applies to, by their labels "
      + "(as a label selector; it may not be empty). Select on labels tenants cannot set: whoever may label a "
      + "namespace may give it this grant. kubernetes.io/metadata.name holds every namespace's own name.")
  private NamespaceSelector fromNamespaceSelector;

  @Size(max = 32)
  @ValidationRule(value = "self.all(p, p.matches('" + USER + "'))",
      message = "users must be HBase user names or prefixes ending in '*': letters, digits, '_', '.' and '-'")
  @JsonPropertyDescription("HBase users the namespaces may throttle: names, or prefixes ending in '*'.")
  private List<@Size(min = 1, max = 128) String> users;

  @Size(max = 32)
  @ValidationRule(value = "self.all(p, p.matches('" + HBASE_NAMESPACE + "'))",
      message = "hbaseNamespaces must be HBase namespace names or prefixes ending in '*': letters, digits and '_'")
  @JsonPropertyDescription("HBase namespaces the namespaces may set quotas on, with every table in them.")
  private List<@Size(min = 1, max = 128) String> hbaseNamespaces;

  @Size(max = 32)
  @ValidationRule(value = "self.all(p, p.matches('" + TABLE + "'))",
      message = "tables must be [namespace:]table names or prefixes ending in '*'")
  @JsonPropertyDescription("HBase tables ('namespace:table', or 'table' in the default namespace) the namespaces "
      + "may set quotas on: names, or prefixes ending in '*'.")
  private List<@Size(min = 1, max = 256) String> tables;

  @io.fabric8.generator.annotation.Min(0)
  @io.fabric8.generator.annotation.Max(1000000)
  @JsonPropertyDescription("The highest spec.qos.priority the namespaces' TenantQuotas may declare: a protected tenant "
      + "is served by slowing down sheddable tenants of lower priority on the whole cluster, other teams' included. "
      + "Absent in every grant of a namespace: 0, so its protected tenants slow down nobody.")
  private Integer maxPriority;

  @JsonPropertyDescription("Whether the namespaces' TenantQuotas may run their own PromQL against the cluster's "
      + "Prometheus (calibration or latency objectives of source Prometheus), which can read every series it holds. "
      + "Absent or false: they use source HBase.")
  private Boolean prometheusQueries;

  public Integer getMaxPriority() {
    return maxPriority;
  }

  public void setMaxPriority(Integer maxPriority) {
    this.maxPriority = maxPriority;
  }

  public Boolean getPrometheusQueries() {
    return prometheusQueries;
  }

  public void setPrometheusQueries(Boolean prometheusQueries) {
    this.prometheusQueries = prometheusQueries;
  }

  public TenantGrant() {}

  public TenantGrant(List<String> fromNamespaces, List<String> users, List<String> hbaseNamespaces,
      List<String> tables) {
    this.fromNamespaces = fromNamespaces;
    this.users = users;
    this.hbaseNamespaces = hbaseNamespaces;
    this.tables = tables;
  }

  public NamespaceSelector getFromNamespaceSelector() {
    return fromNamespaceSelector;
  }

  public void setFromNamespaceSelector(NamespaceSelector fromNamespaceSelector) {
    this.fromNamespaceSelector = fromNamespaceSelector;
  }

  public List<String> getFromNamespaces() {
    return fromNamespaces;
  }

  public void setFromNamespaces(List<String> fromNamespaces) {
    this.fromNamespaces = fromNamespaces;
  }

  public List<String> getUsers() {
    return users;
  }

  public void setUsers(List<String> users) {
    this.users = users;
  }

  public List<String> getHbaseNamespaces() {
    return hbaseNamespaces;
  }

  public void setHbaseNamespaces(List<String> hbaseNamespaces) {
    this.hbaseNamespaces = hbaseNamespaces;
  }

  public List<String> getTables() {
    return tables;
  }

  public void setTables(List<String> tables) {
    this.tables = tables;
  }
}
