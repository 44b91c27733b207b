package io.hbaseqos.operator.gateway;

import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.hbase.UsersMetrics;
import java.io.IOException;
import java.time.Instant;
import java.util.Set;

/**
 * The metric reads the control loops make of one cluster: the port {@code limit} is given, which
 * {@link MetricsGateway} serves from the RegionServers and Prometheus and a test serves from memory.
 */
public interface ClusterMetrics {
  /**
   * A user's counters on each live RegionServer.
   *
   * @param notBefore the reading must be taken at or after this moment (null: a recent shared one will do)
   */
  CounterReading userCounters(String user, Set<String> ops, Instant notBefore) throws IOException;

  /** Every user's metrics on every live RegionServer, read now (one request per server). */
  UsersMetrics allUserMetrics() throws IOException;

  /** One instant Prometheus query; NaN when it returns no sample. */
  double prometheus(String url, String query) throws IOException;

  /** The cluster's block cache over the last usage sample (null: not read). */
  default io.hbaseqos.operator.usage.BlockCache blockCache() {
    return null;
  }

  /** These metrics, with the block cache the cluster's last usage sample read. */
  default ClusterMetrics withBlockCache(java.util.function.Supplier<io.hbaseqos.operator.usage.BlockCache> cache) {
    return new Forwarding(this) {
      @Override
      public io.hbaseqos.operator.usage.BlockCache blockCache() {
        return cache.get();
      }
    };
  }

  /**
   * These metrics, with queries that name no Prometheus sent to {@code defaultUrl} (the cluster's
   * {@code spec.prometheus.url}; null: such a query fails, naming {@code cluster}).
   */
  default ClusterMetrics withDefaultPrometheus(String defaultUrl, String cluster) {
    return new Forwarding(this) {
      @Override
      public double prometheus(String url, String query) throws IOException {
        String use = url != null && !url.isBlank() ? url : defaultUrl;
        if (use == null || use.isBlank()) {
          throw new IOException("no Prometheus to query: the TenantQuota names no url and HBaseCluster " + cluster
              + " has no spec.prometheus.url");
        }
        return super.prometheus(use, query);
      }
    };
  }

  /** Metrics that pass every read on to others; a wrapper overrides what it changes. */
  class Forwarding implements ClusterMetrics {
    private final ClusterMetrics to;

    Forwarding(ClusterMetrics to) {
      this.to = to;
    }

    @Override
    public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) throws IOException {
      return to.userCounters(user, ops, notBefore);
    }

    @Override
    public UsersMetrics allUserMetrics() throws IOException {
      return to.allUserMetrics();
    }

    @Override
    public double prometheus(String url, String query) throws IOException {
      return to.prometheus(url, query);
    }

    @Override
    public io.hbaseqos.operator.usage.BlockCache blockCache() {
      return to.blockCache();
    }
  }

}
