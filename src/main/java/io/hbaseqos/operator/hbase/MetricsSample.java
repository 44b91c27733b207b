package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.calibration.ServerCounters;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One sample of every live RegionServer of a cluster, taken at one moment for every reader: every
 * user's metrics (with the per-user throttling counters) and, when usage asked for it, the block
 * cache and (for a table or namespace tenant) every table's; or, per server, why it could not be
 * read.
 * Calibration takes a tenant's counters from it, usage every tenant's, and latency protection its
 * histograms (through {@link RegionServerMetrics#latencies}, which knows what other samples took
 * from their windows). Immutable.
 */
public final class MetricsSample {
  final long seq;
  private final Instant at;
  final Map<String, RegionServerMetrics.Sample> users;
  private final Map<String, RegionServerMetrics.Sample> tables;
  private final Map<String, RegionServerMetrics.Sample> cache;
  private final boolean withCache;
  private final boolean withTables;
  /** The call queues' lengths and call counts per server (null: not read). */
  private final Map<String, RegionServerMetrics.Sample> queues;
  /** When the call queues were asked for. */
  private final Instant queuesAt;

  MetricsSample(long seq, Instant at, Map<String, RegionServerMetrics.Sample> users,
      Map<String, RegionServerMetrics.Sample> tables, Map<String, RegionServerMetrics.Sample> cache, boolean withCache,
      boolean withTables, Map<String, RegionServerMetrics.Sample> queues, Instant queuesAt) {
    this.queues = queues;
    this.queuesAt = queuesAt;
    this.seq = seq;
    this.at = at;
    this.users = users;
    this.tables = tables;
    this.cache = cache;
    this.withCache = withCache;
    this.withTables = withTables;
  }

  /** When it was taken (its users' metrics were asked for). */
  public Instant at() {
    return at;
  }

  /** Whether it serves usage: the block cache was read, and every table's metrics if {@code tables}. */
  public boolean servesUsage(boolean tables) {
    return withCache && (withTables || !tables);
  }

  /** Whether the call queues were read into it. */
  public boolean hasCallQueues() {
    return queues != null;
  }

  /**
   * Each server's call queues (null: not read into this sample): how many calls wait in them, and how
   * many calls were ever taken from them, at the moment they were asked for; a server that could not
   * be read over {@code /prometheus} (or reports no count) is named with why. Needs no per-user metrics.
   */
  public CallQueues callQueues() {
    if (queues == null) {
      return null;
    }
    Map<String, CallQueues.Server> out = new LinkedHashMap<>();
    queues.forEach((server, s) -> out.put(server, s.problem() != null ? CallQueues.Server.unread(s.problem())
        : CallQueues.Server.of(s.values())));
    return new CallQueues(queuesAt, out);
  }

  /**
   * A user's counters on each server, for calibration.
   *
   * @param ops per-user operation metrics to add up ({@code get}, {@code scanTime}, {@code put}, ...)
   * @throws MetricsUnavailableException naming the first server that could not be read or has no per-user metrics
   */
  public CounterReading counters(String user, Set<String> ops) throws MetricsUnavailableException {
    Map<String, ServerCounters> out = new LinkedHashMap<>();
    boolean sampled = true;
    for (var e : users.entrySet()) {
      RegionServerMetrics.Sample s = e.getValue();
      if (s.problem() != null) {
        throw new MetricsUnavailableException("RegionServer " + e.getKey() + ": " + s.problem());
      }
      out.put(e.getKey(), RegionServerMetrics.counters(s.values(), user, ops));
      sampled &= s.sampled();
    }
    return new CounterReading(at, out, sampled);
  }

  /**
   * Every user's counters on every server, its block cache, and (when read) every table's, for the
   * usage of all tenants; a server whose block cache could not be read has none in it.
   *
   * @param needTables whether every table's metrics are needed (a failure to read them is then usage's)
   * @throws MetricsUnavailableException naming the first server whose users (or needed tables) could not be read
   */
  public ServersSample usage(boolean needTables) throws MetricsUnavailableException {
    Map<String, Map<String, Double>> out = new LinkedHashMap<>();
    for (var e : users.entrySet()) {
      RegionServerMetrics.Sample s = e.getValue();
      RegionServerMetrics.Sample t = tables.get(e.getKey());
      String problem = s.problem() != null ? s.problem()
          : needTables && t != null && t.problem() != null ? t.problem() : null;
      if (problem != null) {
        throw new MetricsUnavailableException("RegionServer " + e.getKey() + ": " + problem);
      }
      Map<String, Double> values = new HashMap<>(s.values());
      if (t != null && t.values() != null) {
        values.putAll(t.values());
      }
      RegionServerMetrics.Sample c = cache.get(e.getKey());
      if (c != null && c.values() != null) {
        values.putAll(c.values());
      }
      out.put(e.getKey(), values);
    }
    return new ServersSample(at, out);
  }
}
