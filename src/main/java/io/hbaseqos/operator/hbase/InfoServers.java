package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.calibration.CounterReading;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The RegionServers' info servers ({@code /conf}, {@code /prometheus}) of one cluster, read over HTTP on
 * threads of their own: never inside an HBase call and its deadline, so slow or dead info ports
 * cost a tenant its measurement ({@code MetricsUnavailable}), never the cluster its connection.
 */
public final class InfoServers implements AutoCloseable {
  /** How long one reading of every user's counters serves other readers (see {@link RegionServerMetrics}). */
  public static final java.time.Duration REUSE = RegionServerMetrics.REUSE;
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
   * A user's cumulative counters on each live RegionServer, for calibration; the servers are read
   * in parallel, each within a short timeout.
   *
   * @param ops per-user operation metrics to add up ({@code get}, {@code scanTime}, {@code put}, ...)
   * @param notBefore the reading must be taken at or after this moment (null: a recent shared one will do)
   * @throws MetricsUnavailableException naming a server that could not be read
   */
  public CounterReading userCounters(Map<String, Map.Entry<String, Integer>> servers, String user, Set<String> ops,
      Instant notBefore) throws IOException {
    return metrics.userCounters(servers, user, ops, notBefore);
  }

  /** Every user's metrics on every server, read now in one request per server (see {@link RegionServerMetrics}). */
  public UsersMetrics allUsers(Map<String, Map.Entry<String, Integer>> servers) throws IOException {
    return metrics.allUsers(servers);
  }

  /** Every user's (and with {@code tables} every table's) counters on every server now (see {@link RegionServerMetrics}). */
  public ServersSample sample(Map<String, Map.Entry<String, Integer>> servers, boolean tables) throws IOException {
    return metrics.sample(servers, tables);
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
