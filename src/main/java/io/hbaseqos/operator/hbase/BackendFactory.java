package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.api.ConnectionSpec;
import java.io.IOException;

/** Opens a {@link QuotaBackend} for a cluster's connection settings. */
@FunctionalInterface
public interface BackendFactory {
  QuotaBackend open(ConnectionSpec connection) throws IOException;

  BackendFactory HBASE = withSiteFile(null);

  /**
   * Connections configured from, in order of precedence: the cluster's {@code clientConfig}, the
   * operator-wide {@code hbase-site.xml} at {@code siteFile} (the Helm value
   * {@code hbase.clientConfig}, Kerberos login settings), the operator's built-in client defaults.
   */
  static BackendFactory withSiteFile(java.nio.file.Path siteFile) {
    return c -> HBaseQuotaBackend.connect(HBaseQuotaBackend.configuration(c.getZookeeperQuorum(), c.getZnodeParent(),
        siteFile, c.getClientConfig()));
  }
}
