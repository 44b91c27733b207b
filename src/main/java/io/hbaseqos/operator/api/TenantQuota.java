package io.hbaseqos.operator.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** One tenant's HBase throttles and space quota, reconciled into {@code hbase:quota} of the referenced cluster. */
@Group(ApiGroup.GROUP)
@Version(ApiGroup.VERSION)
@ShortNames({"tq", "tquota"})
@AdditionalPrinterColumn(name = "Cluster", jsonPath = ".spec.clusterRef.name", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Subject", jsonPath = ".status.subject", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Limits", jsonPath = ".status.summary", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Usage", jsonPath = ".status.usage.summary", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Space", jsonPath = ".status.space.usage", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class TenantQuota extends CustomResource<TenantQuotaSpec, TenantQuotaStatus> implements Namespaced {
  @Override
  protected TenantQuotaStatus initStatus() {
    return new TenantQuotaStatus();
  }
}
