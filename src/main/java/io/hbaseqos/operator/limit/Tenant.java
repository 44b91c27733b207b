package io.hbaseqos.operator.limit;

import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.TenantQuotaStatus;

/**
 * A TenantQuota as the limit decision sees it: plain data, no Kubernetes object.
 *
 * @param id {@code namespace/name}, unique within the operator
 * @param uid the resource's uid (a re-created resource is a new tenant)
 * @param clusterKey the HBaseCluster it names, {@code namespace/name}
 * @param status the status as last written (never null)
 */
public record Tenant(String id, String uid, String clusterKey, TenantQuotaSpec spec, TenantQuotaStatus status) {
  public Tenant {
    status = status == null ? new TenantQuotaStatus() : status;
  }
}
