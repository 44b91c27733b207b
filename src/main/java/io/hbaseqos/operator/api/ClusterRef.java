package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/**
 * Reference to an {@code HBaseCluster}: in the TenantQuota's namespace, or in another namespace
 * whose HBaseCluster grants this one the use of it ({@code spec.tenancy}).
 */
@com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
public class ClusterRef {
  @Required
  @ValidationRule(value = "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",
      message = "clusterRef.name must be the name of an HBaseCluster: lowercase letters, digits, '-' and '.'")
  @JsonPropertyDescription("Name of the HBaseCluster, in the namespace of this TenantQuota.")
  private String name;

  @io.fabric8.generator.annotation.Size(max = 63)
  @ValidationRule(value = "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
      message = "clusterRef.namespace must be a Kubernetes namespace name: lowercase letters, digits and '-'")
  @JsonPropertyDescription("Namespace of the HBaseCluster; absent: the namespace of this TenantQuota. An HBaseCluster "
      + "in another namespace must grant this namespace the subject (its spec.tenancy).")
  private String namespace;

  public ClusterRef() {}

  public ClusterRef(String name) {
    this.name = name;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  /** The namespace of the HBaseCluster, for a TenantQuota in {@code tenantNamespace}. */
  public String namespaceFor(String tenantNamespace) {
    return namespace == null || namespace.isEmpty() ? tenantNamespace : namespace;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClusterRef c && Objects.equals(name, c.name) && Objects.equals(namespace, c.namespace);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, namespace);
  }
}
