package io.hbaseqos.operator.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** An HBase cluster the operator manages quotas (and, later, topology) for. */
@Group(ApiGroup.GROUP)
@Version(ApiGroup.VERSION)
@ShortNames({"hbc", "hbcluster"})
@AdditionalPrinterColumn(name = "Version", jsonPath = ".status.hbaseVersion", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "RegionServers", jsonPath = ".status.regionServers", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Throttling", jsonPath = ".status.rpcThrottleEnabled", type = AdditionalPrinterColumn.Type.BOOLEAN)
@AdditionalPrinterColumn(name = "Managed", jsonPath = ".status.managedQuotas", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "BlockCache", jsonPath = ".status.blockCache.summary", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class HBaseCluster extends CustomResource<HBaseClusterSpec, HBaseClusterStatus> implements Namespaced {
  @Override
  protected HBaseClusterStatus initStatus() {
    return new HBaseClusterStatus();
  }
}
