package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** Reference to an {@code HBaseCluster} in the same namespace. */
public class ClusterRef {
  @Required
  @ValidationRule(value = "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",
      message = "clusterRef.name must be the name of an HBaseCluster: lowercase letters, digits, '-' and '.'")
  @JsonPropertyDescription("Name of the HBaseCluster, in the namespace of this TenantQuota.")
  private String name;

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

  @Override
  public boolean equals(Object o) {
    return o instanceof ClusterRef c && Objects.equals(name, c.name);
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(name);
  }
}
