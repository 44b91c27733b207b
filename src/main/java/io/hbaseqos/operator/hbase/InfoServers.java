package io.hbaseqos.operator.hbase;

import java.io.IOException;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The RegionServers' info servers ({@code /conf}, {@code /prometheus}) of one cluster, read over HTTP on
 * threads of their own: never inside an HBase call and its deadline, so slow or dead info ports
 * cost a tenant its measurement ({@code MetricsUnavailable}), never the cluster its connection.
 */
public final class InfoServers implements AutoCloseable {
  private final ExecutorService pool;
  private final InfoServerConf quotaSettings;
  private final RegionServerMetrics metrics;

  public InfoServers(boolean https, Clock clock) {
    this(https, clock, Negotiator.NONE);
  }

  /** @param negotiator answers info servers that ask for SPNEGO (a Kerberos-secured HBase) */
  public InfoServers(boolean https, Clock clock, Negotiator negotiator) {
    this(https, clock, negotiator, new InfoServerRequests());
  }

  /** @param requests counts every request sent (the operator's metric) */
  public InfoServers(boolean https, Clock clock, Negotiator negotiator, InfoServerRequests requests) {
    this(https, null, clock, negotiator, requests);
  }

  /** @param trust the certificates HTTPS info servers are checked against (null: the JVM's default) */
  public InfoServers(boolean https, javax.net.ssl.SSLContext trust, Clock clock, Negotiator negotiator,
      InfoServerRequests requests) {
    this.pool = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "hbaseqos-infoserver");
      t.setDaemon(true);
      return t;
    });
    InfoServerHttp http = new InfoServerHttp(https, trust, InfoServerConf.TIMEOUT, negotiator, requests);
    this.quotaSettings = new InfoServerConf(ServerConf.QUOTA_KEYS, http, clock);
    this.metrics = new RegionServerMetrics(http, clock, pool);
  }

  /** The quota properties ({@link ServerConf#QUOTA_KEYS}) each live RegionServer runs with (see {@link InfoServerConf}). */
  public Map<String, ServerSettings> quotaSettings(Map<String, Map.Entry<String, Integer>> servers) {
    return quotaSettings.read(servers);
  }

  /**
   * One sample of every live RegionServer for every reader (see {@link RegionServerMetrics#read}):
   * every user's metrics, with {@code cache} the block cache, with {@code tables} every table's and
   * with {@code queues} the call queues; the servers are read in parallel, each within a short timeout.
   */
  public MetricsSample sample(Map<String, Map.Entry<String, Integer>> servers, boolean cache, boolean tables,
      boolean queues) {
    return metrics.read(servers, cache, tables, queues);
  }

  /**
   * A sample's users' metrics for judging latencies, with the windows the samples since the last
   * judged one took (see {@link RegionServerMetrics#latencies}).
   *
   * @throws MetricsUnavailableException naming a server that could not be read
   */
  public UsersMetrics latencies(MetricsSample sample) throws IOException {
    return metrics.latencies(sample);
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
