package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.api.ConnectionSpec;
import java.io.IOException;

/** Opens a {@link QuotaBackend} for a cluster's connection settings. */
@FunctionalInterface
public interface BackendFactory {
  QuotaBackend open(ConnectionSpec connection) throws IOException;

  BackendFactory HBASE = c -> HBaseQuotaBackend.connect(
      HBaseQuotaBackend.configuration(c.getZookeeperQuorum(), c.getZnodeParent(), c.getClientConfig()));
}
