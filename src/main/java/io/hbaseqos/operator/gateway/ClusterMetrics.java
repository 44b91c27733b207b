package io.hbaseqos.operator.gateway;

import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.hbase.CallQueues;
import io.hbaseqos.operator.hbase.MetricsUnavailableException;
import io.hbaseqos.operator.hbase.UsersMetrics;
import io.hbaseqos.operator.usage.BlockCache;
import java.io.IOException;
import java.time.Instant;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The metric reads the control loops make of one cluster: the port {@code limit} is given, which
 * {@link MetricsGateway} serves from the RegionServers and Prometheus and a test serves from memory.
 * A read may answer {@link MetricsPendingException}: the reading is being taken elsewhere, and
 * the caller comes back when woken ({@link #waking}) or on its own schedule.
 */
public interface ClusterMetrics {
  /**
   * A user's counters on each live RegionServer.
   *
   * @param notBefore the reading must be taken at or after this moment (null: a recent shared one will do)
   */
  CounterReading userCounters(String user, Set<String> ops, Instant notBefore) throws IOException;

  /**
   * Every user's metrics on every live RegionServer, read at or after {@code notBefore}, for judging
   * latencies: their histograms hold the window since the servers' previous read (each read resets
   * them), with what reads in between took.
   *
   * @param notBefore null: a recent reading will do
   */
  UsersMetrics allUserMetrics(Instant notBefore) throws IOException;

  /**
   * Every live RegionServer's call queues (lengths and calls taken), read at or after
   * {@code notBefore}: a gauge and a counter, which no other reader of the servers' metrics disturbs.
   *
   * @param notBefore null: a recent reading will do
   */
  default CallQueues callQueues(Instant notBefore) throws IOException {
    throw new MetricsUnavailableException("the RegionServers' call queues are not read here");
  }

  /**
   * One instant Prometheus query, answered at or after {@code notBefore} (null: a recent answer will
   * do); NaN when it returns no sample.
   */
  double prometheus(String url, String query, Instant notBefore) throws IOException;

  /** These metrics, whose pending readings wake {@code wake} when they are there (a reconcile of the asker). */
  default ClusterMetrics waking(Runnable wake) {
    return this;
  }

  /** The cluster's block cache over the last usage sample (null: not read). */
  default BlockCache blockCache() {
    return null;
  }

  /** These metrics, with the block cache the cluster's last usage sample read. */
  default ClusterMetrics withBlockCache(Supplier<BlockCache> cache) {
    return new WithBlockCache(this, cache);
  }

  /**
   * These metrics, with queries that name no Prometheus sent to {@code defaultUrl} (the cluster's
   * {@code spec.prometheus.url}; null: such a query fails, naming {@code cluster}).
   */
  default ClusterMetrics withDefaultPrometheus(String defaultUrl, String cluster) {
    return new WithDefaultPrometheus(this, defaultUrl, cluster);
  }

  /**
   * Metrics that pass every read on to others; a wrapper overrides what it changes, and says how
   * to wrap other metrics the same way ({@link #over}), so that a waking view is wrapped alike.
   */
  abstract class Forwarding implements ClusterMetrics {
    private final ClusterMetrics to;

    Forwarding(ClusterMetrics to) {
      this.to = to;
    }

    /** This same wrapper over {@code other}. */
    abstract Forwarding over(ClusterMetrics other);

    @Override
    public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) throws IOException {
      return to.userCounters(user, ops, notBefore);
    }

    @Override
    public UsersMetrics allUserMetrics(Instant notBefore) throws IOException {
      return to.allUserMetrics(notBefore);
    }

    @Override
    public double prometheus(String url, String query, Instant notBefore) throws IOException {
      return to.prometheus(url, query, notBefore);
    }

    @Override
    public CallQueues callQueues(Instant notBefore) throws IOException {
      return to.callQueues(notBefore);
    }

    @Override
    public BlockCache blockCache() {
      return to.blockCache();
    }

    @Override
    public ClusterMetrics waking(Runnable wake) {
      return over(to.waking(wake));
    }
  }

  /** Metrics with the block cache of the cluster's last usage sample. */
  final class WithBlockCache extends Forwarding {
    private final Supplier<BlockCache> cache;

    WithBlockCache(ClusterMetrics to, Supplier<BlockCache> cache) {
      super(to);
      this.cache = cache;
    }

    @Override
    Forwarding over(ClusterMetrics other) {
      return new WithBlockCache(other, cache);
    }

    @Override
    public BlockCache blockCache() {
      return cache.get();
    }
  }

  /** Metrics that send queries naming no Prometheus to the cluster's. */
  final class WithDefaultPrometheus extends Forwarding {
    private final String defaultUrl;
    private final String cluster;

    WithDefaultPrometheus(ClusterMetrics to, String defaultUrl, String cluster) {
      super(to);
      this.defaultUrl = defaultUrl;
      this.cluster = cluster;
    }

    @Override
    Forwarding over(ClusterMetrics other) {
      return new WithDefaultPrometheus(other, defaultUrl, cluster);
    }

    @Override
    public double prometheus(String url, String query, Instant notBefore) throws IOException {
      String use = url != null && !url.isBlank() ? url : defaultUrl;
      if (use == null || use.isBlank()) {
        throw new IOException("no Prometheus to query: the TenantQuota names no url and HBaseCluster " + cluster
            + " has no spec.prometheus.url");
      }
      return super.prometheus(use, query, notBefore);
    }
  }
}
