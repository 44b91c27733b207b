package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.api.ConnectionSpec;
import java.io.IOException;
import java.time.Clock;

/** Opens a {@link QuotaBackend} for a cluster's connection settings, and its info-server reader. */
@FunctionalInterface
public interface BackendFactory {
  QuotaBackend open(ConnectionSpec connection) throws IOException;

  /**
   * The cluster's RegionServer info servers (plain HTTP unless the factory knows better), counting each
   * request in {@code requests}.
   */
  default InfoServers infoServers(ConnectionSpec connection, InfoServerRequests requests) {
    return new InfoServers(false, io.hbaseqos.operator.quota.MonotonicClock.system(), Negotiator.NONE, requests);
  }

  BackendFactory HBASE = withSiteFile(null);

  /**
   * Connections configured from, in order of precedence: the cluster's {@code clientConfig}, the
   * operator-wide {@code hbase-site.xml} at {@code siteFile} (the Helm value
   * {@code hbase.clientConfig}, Kerberos login settings), the operator's built-in client defaults.
   */
  static BackendFactory withSiteFile(java.nio.file.Path siteFile) {
    return withSiteFile(siteFile, Negotiator.NONE);
  }

  /** The same, answering SPNEGO challenges of info servers with {@code negotiator}. */
  static BackendFactory withSiteFile(java.nio.file.Path siteFile, Negotiator negotiator) {
    return new BackendFactory() {
      @Override
      public QuotaBackend open(ConnectionSpec c) throws IOException {
        org.apache.hadoop.conf.Configuration conf = HBaseQuotaBackend.configuration(c.getZookeeperQuorum(),
            c.getZnodeParent(), siteFile, c.getClientConfig());
        if (negotiator instanceof KerberosLogin) {
          // the process is logged in already (principal with _HOST resolved, renewed on a schedule):
          // the connection must not log in again from the site file's unresolved principal
          conf.unset("hbase.client.keytab.file");
          conf.unset("hbase.client.keytab.principal");
        }
        return HBaseQuotaBackend.connect(conf);
      }

      @Override
      public InfoServers infoServers(ConnectionSpec c, InfoServerRequests requests) {
        org.apache.hadoop.conf.Configuration conf = HBaseQuotaBackend.configuration(c.getZookeeperQuorum(),
            c.getZnodeParent(), siteFile, c.getClientConfig());
        boolean https = conf.getBoolean("hbase.ssl.enabled", false);
        javax.net.ssl.SSLContext trust = null;
        try {
          trust = InfoServerTrust.context(conf);
        } catch (IllegalArgumentException e) {
          // reads of the info servers then fail on their certificates, each naming why (MetricsUnavailable)
          org.slf4j.LoggerFactory.getLogger(BackendFactory.class).warn("the truststore for HTTPS info servers of {} "
              + "cannot be read, the JVM's default trust is used: {}", c.getZookeeperQuorum(), e.getMessage());
        }
        return new InfoServers(https, trust, io.hbaseqos.operator.quota.MonotonicClock.system(), negotiator, requests);
      }
    };
  }
}
