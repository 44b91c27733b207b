package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/**
 * Which other Kubernetes namespaces may point TenantQuotas at an HBaseCluster, and which HBase
 * subjects each may name. The HBaseCluster's own namespace is the platform's: its TenantQuotas may
 * name any subject. Without grants, no other namespace may use the cluster.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TenancySpec {
  @Size(max = 32)
  @JsonPropertyDescription("Grants: each names Kubernetes namespaces and the HBase users, namespaces and tables "
      + "their TenantQuotas may name. A namespace's rights are the union of the grants that name it.")
  private List<TenantGrant> grants = new ArrayList<>();

  public List<TenantGrant> getGrants() {
    return grants;
  }

  public void setGrants(List<TenantGrant> grants) {
    this.grants = grants;
  }
}
