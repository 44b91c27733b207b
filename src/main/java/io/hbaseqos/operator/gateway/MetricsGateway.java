package io.hbaseqos.operator.gateway;

import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.hbase.InfoServers;
import io.hbaseqos.operator.hbase.MetricsUnavailableException;
import io.hbaseqos.operator.hbase.ServerSettings;
import io.hbaseqos.operator.hbase.ServersSample;
import io.hbaseqos.operator.hbase.UsersMetrics;
import io.hbaseqos.operator.metrics.PrometheusClient;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;

/**
 * What the operator reads of one HBase cluster's load and settings, outside HBase's RPC: the
 * RegionServers' per-user metrics and quota properties from their info servers, and the
 * Prometheus queries its tenants declare. A failed read is the reader's problem (a tenant's
 * {@code MetricsUnavailable}, a condition's Unknown), never the cluster's connection or back-off,
 * which {@code ClusterState} keeps apart. One gateway per cluster and connection: a changed
 * connection gets a new one.
 *
 * <p>The loops' reads never run on the caller's thread: a {@link MetricsSampler} takes them on the
 * cluster's own threads, and a caller whose reading is not there yet gets
 * {@link MetricsPendingException} and is woken (through {@link #waking}) when it is.
 */
public final class MetricsGateway implements ClusterMetrics, AutoCloseable {

  /** The live RegionServers' info servers, by server name: host and port. */
  @FunctionalInterface
  public interface LiveServers {
    Map<String, Map.Entry<String, Integer>> infoServers() throws MetricsUnavailableException;
  }

  /** How old a reading that asks for no moment may be (one read serves every tenant meanwhile). */
  static final Duration REUSE = InfoServers.REUSE;
  private final Object connection;
  private final Object owner;
  private final InfoServers infoServers;
  private final LiveServers live;
  private final PrometheusClient prometheus;
  private final MetricsSampler sampler;
  private volatile Map<String, ServerSettings> serverSettings = Map.of();

  /**
   * @param connection the connection settings it was made for (compared by identity)
   * @param owner what holds the connection (compared by identity: a cluster made again is another owner)
   */
  public MetricsGateway(Object connection, Object owner, InfoServers infoServers, LiveServers live,
      PrometheusClient prometheus) {
    this(connection, owner, infoServers, live, prometheus, Clock.systemUTC(), "cluster");
  }

  /** @param name names the sampler's threads (the cluster's key) */
  public MetricsGateway(Object connection, Object owner, InfoServers infoServers, LiveServers live,
      PrometheusClient prometheus, Clock clock, String name) {
    this.connection = connection;
    this.owner = owner;
    this.infoServers = infoServers;
    this.live = live;
    this.prometheus = prometheus;
    this.sampler = new MetricsSampler(clock, name);
  }

  /** Whether it was made for exactly these connection settings of this owner. */
  public boolean isFor(Object connection, Object owner) {
    return this.connection == connection && this.owner == owner;
  }

  @Override
  public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) throws IOException {
    return waking(null).userCounters(user, ops, notBefore);
  }

  @Override
  public UsersMetrics allUserMetrics(Instant notBefore) throws IOException {
    return waking(null).allUserMetrics(notBefore);
  }

  /** One instant query; NaN when it returns no sample. */
  @Override
  public double prometheus(String url, String query, Instant notBefore) throws IOException {
    return waking(null).prometheus(url, query, notBefore);
  }

  /** These metrics, with every reading that must be taken first waking {@code wake} when it is there. */
  @Override
  public ClusterMetrics waking(Runnable wake) {
    return new View(wake);
  }

  /** The gateway's reads, waking a caller when its reading is there. */
  private final class View implements ClusterMetrics {
    private final Runnable wake;

    View(Runnable wake) {
      this.wake = wake;
    }

    @Override
    public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) throws IOException {
      // a shared reading of every user may be older than its read: the slot goes by the reading's time
      return take(List.of("counters", user, ops), MetricsSampler.Kind.INFO_SERVERS, notBefore, MetricsSampler.Read
          .timed(() -> read(() -> infoServers.userCounters(live.infoServers(), user, ops, notBefore)),
              CounterReading::at));
    }

    @Override
    public UsersMetrics allUserMetrics(Instant notBefore) throws IOException {
      return take("allUsers", MetricsSampler.Kind.INFO_SERVERS, notBefore,
          MetricsSampler.Read.timed(() -> read(() -> infoServers.allUsers(live.infoServers())), UsersMetrics::at));
    }

    @Override
    public double prometheus(String url, String query, Instant notBefore) throws IOException {
      return take(List.of("prometheus", url, query), MetricsSampler.Kind.PROMETHEUS, notBefore,
          () -> prometheus.query(url, query));
    }

    @Override
    public ClusterMetrics waking(Runnable other) {
      return new View(other);
    }

    private <T> T take(Object key, MetricsSampler.Kind kind, Instant notBefore, MetricsSampler.Read<T> read)
        throws IOException {
      return sampler.get(key, kind, notBefore, REUSE, read, wake);
    }
  }

  /**
   * Every tenant's counters on every live RegionServer, at most {@link #REUSE} old: one read per
   * server (two with {@code tables}), whatever the number of tenants, taken on the sampler's thread
   * like the loops' readings. Never waits for it: a sample not there yet is
   * {@link MetricsPendingException}, and {@code wake} runs once the read ends, whatever its outcome.
   */
  public ServersSample usageSample(boolean tables, Runnable wake) throws IOException {
    return sampler.get(List.of("usage", tables), MetricsSampler.Kind.INFO_SERVERS, null, REUSE,
        MetricsSampler.Read.timed(() -> read(() -> infoServers.sample(live.infoServers(), tables)),
            ServersSample::at), wake);
  }

  /**
   * The last usage sample taken, however long its read took: what the asker woken by that read
   * records (null: none yet, or a read runs).
   *
   * @throws IOException that read's failure
   */
  public ServersSample lastUsageSample(boolean tables) throws IOException {
    return sampler.latest(List.of("usage", tables));
  }

  private interface Read<T> {
    T get() throws IOException;
  }

  /** A read on a gateway closed meanwhile (its connection changed) is the reader's MetricsUnavailable. */
  private static <T> T read(Read<T> read) throws IOException {
    try {
      return read.get();
    } catch (RejectedExecutionException e) {
      throw new MetricsUnavailableException("the connection changed while reading; read again next period");
    }
  }

  /**
   * Reads the quota properties of the given RegionServers from their {@code /conf}, and keeps them
   * for {@link #serverSettings()}.
   */
  public void readServerSettings(Map<String, Map.Entry<String, Integer>> servers) {
    try {
      serverSettings = infoServers.quotaSettings(servers);
    } catch (RejectedExecutionException e) {
      // closed while reading (the connection changed): the last reading stands
    }
  }

  /** The quota properties of each live RegionServer, as last read. */
  public Map<String, ServerSettings> serverSettings() {
    return serverSettings;
  }

  @Override
  public void close() {
    sampler.close();
    infoServers.close();
  }
}
