package io.hbaseqos.operator.gateway;

import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.hbase.CallQueues;
import io.hbaseqos.operator.hbase.InfoServers;
import io.hbaseqos.operator.hbase.MetricsSample;
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
 * {@link MetricsPendingException} and is woken (through {@link #waking}) when it is. The
 * RegionServers are read as one {@link MetricsSample} per {@link #PERIOD} at most, whoever asks:
 * calibration's counters, latency protection's histograms and the tenants' usage all come from it.
 */
public final class MetricsGateway implements ClusterMetrics, AutoCloseable {

  /** The live RegionServers' info servers, by server name: host and port. */
  @FunctionalInterface
  public interface LiveServers {
    Map<String, Map.Entry<String, Integer>> infoServers() throws MetricsUnavailableException;
  }

  /**
   * How old a sample that asks for no moment may be, and how often at most one is taken: one
   * sample per RegionServer per period serves every reader of the cluster meanwhile.
   */
  public static final Duration PERIOD = Duration.ofSeconds(5);
  /** The sampler's slot of the cluster's sample. */
  private static final String SAMPLE = "sample";
  private final Object connection;
  private final Object owner;
  private final InfoServers infoServers;
  private final LiveServers live;
  private final PrometheusClient prometheus;
  private final MetricsSampler sampler;
  private final Clock clock;
  /** What the next sample reads for usage besides every user's metrics: nothing, {@link #CACHE} or {@link #TABLES}. */
  private final java.util.concurrent.atomic.AtomicInteger usageWanted = new java.util.concurrent.atomic.AtomicInteger();
  /** The block cache. */
  private static final int CACHE = 1;
  /** The block cache and every table's metrics. */
  private static final int TABLES = 2;
  private volatile Map<String, ServerSettings> serverSettings = Map.of();
  /** When the call queues were last asked for (null: never): samples read them while someone judges them. */
  private volatile Instant queuesAsked;
  /** How long after the last ask samples go on reading the call queues. */
  static final Duration QUEUES_READ_FOR = Duration.ofMinutes(10);

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
    this.clock = clock;
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

  @Override
  public CallQueues callQueues(Instant notBefore) throws IOException {
    return waking(null).callQueues(notBefore);
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
      return sample(notBefore, wake).counters(user, ops);
    }

    @Override
    public UsersMetrics allUserMetrics(Instant notBefore) throws IOException {
      return infoServers.latencies(sample(notBefore, wake));
    }

    /**
     * From the sample at or after {@code notBefore}; one read before the ask (without the queues)
     * asks for the next, which has them.
     */
    @Override
    public CallQueues callQueues(Instant notBefore) throws IOException {
      queuesAsked = clock.instant();
      MetricsSample s = until(sample(notBefore, wake), MetricsSample::hasCallQueues, () -> { }, wake);
      if (s == null) {
        throw new MetricsPendingException("the RegionServers' call queues are being read");
      }
      return s.callQueues();
    }

    @Override
    public double prometheus(String url, String query, Instant notBefore) throws IOException {
      return sampler.get(List.of("prometheus", url, query), MetricsSampler.Kind.PROMETHEUS, notBefore, PERIOD,
          () -> prometheus.query(url, query), wake);
    }

    @Override
    public ClusterMetrics waking(Runnable other) {
      return new View(other);
    }
  }

  /**
   * The cluster's sample: the last one when it was taken at or after {@code notBefore} (null: at
   * most {@link #PERIOD} ago); else {@link MetricsPendingException}, the next sample is due (at most
   * one per period, whoever asks) and {@code wake} runs once it is taken.
   */
  private MetricsSample sample(Instant notBefore, Runnable wake) throws IOException {
    return sampler.get(SAMPLE, MetricsSampler.Kind.INFO_SERVERS, notBefore, PERIOD, MetricsSampler.Read.timed(() -> {
      // what usage asked for is read with the users' metrics of the next sample, and only then
      int wanted = usageWanted.getAndSet(0);
      Instant asked = queuesAsked;
      boolean queues = asked != null && asked.plus(QUEUES_READ_FOR).isAfter(clock.instant());
      return read(() -> infoServers.sample(live.infoServers(), wanted >= CACHE, wanted >= TABLES, queues));
    }, MetricsSample::at), wake);
  }

  /**
   * Every tenant's counters on every live RegionServer, with the block cache and (with
   * {@code tables}) every table's, from the cluster's sample (at most {@link #PERIOD} old): the
   * sample calibration and latency protection read, whatever the number of tenants, with what
   * usage needs besides read into it when usage asks. Never waits for it: a sample not there yet is
   * {@link MetricsPendingException}, and {@code wake} runs once the read ends, whatever its outcome.
   *
   * @param tables whether a table or namespace tenant needs every table's metrics
   */
  public ServersSample usageSample(boolean tables, Runnable wake) throws IOException {
    MetricsSample last;
    try {
      last = sampler.latest(SAMPLE);
    } catch (IOException e) {
      last = null; // a failed read: whether it is recent enough to answer with is the sample's to say
    }
    if (last != null && last.servesUsage(tables) && !last.at().plus(PERIOD).isBefore(clock.instant())) {
      return last.usage(tables);
    }
    usageWanted.accumulateAndGet(tables ? TABLES : CACHE, Math::max);
    return usageFrom(sample(null, wake), tables, wake);
  }

  /**
   * A sample as usage; one without what usage needs (the loops asked for it, or its read began
   * before usage's ask) asks for the next, which reads it, and {@code wake} runs once it is taken.
   */
  private ServersSample usageFrom(MetricsSample s, boolean tables, Runnable wake) throws IOException {
    s = until(s, x -> x.servesUsage(tables), () -> usageWanted.accumulateAndGet(tables ? TABLES : CACHE, Math::max),
        wake);
    return s == null ? null : s.usage(tables); // null: the next pass asks again
  }

  /**
   * {@code s}, or the first later sample that {@code has} what the asker needs, each asked for after
   * {@code ask} says what the next one must read: {@link MetricsPendingException} at once, unless
   * one was taken meanwhile (a read in flight). Null after three such turns, which would need every
   * read to begin between two lines here (never seen): the asker looks again on its own schedule.
   */
  private MetricsSample until(MetricsSample s, java.util.function.Predicate<MetricsSample> has, Runnable ask,
      Runnable wake) throws IOException {
    for (int turn = 0; !has.test(s); turn++) {
      if (turn == 3) {
        return null;
      }
      ask.run();
      s = sample(s.at().plusNanos(1), wake);
    }
    return s;
  }

  /**
   * The last sample taken, however long its read took, as usage: what the asker woken by that read
   * records (null: none yet). When it lacks what usage asked for (its read began before the ask),
   * the next sample reads it: {@link MetricsPendingException}, and {@code wake} runs once it is taken.
   *
   * @throws IOException that read's failure
   */
  public ServersSample lastUsageSample(boolean tables, Runnable wake) throws IOException {
    MetricsSample s = sampler.latest(SAMPLE);
    if (s == null) {
      return null;
    }
    return usageFrom(s, tables, wake);
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
