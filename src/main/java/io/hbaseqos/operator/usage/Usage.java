package io.hbaseqos.operator.usage;

/**
 * What a subject did over one sampling period, over every live RegionServer.
 *
 * @param readsPerSecond reads (per-user metrics: Gets and scan calls; per-table: read requests)
 * @param writesPerSecond writes (puts, deletes, increments, appends; per-table: write requests)
 * @param throttledShare the share of its requests HBase refused with a throttling exception
 *     (throttled / (done + throttled)); NaN when HBase does not count them for this subject
 * @param busiestServerShare the busiest server's share of its operations (1 on one server; NaN when idle)
 * @param servers the servers that served any of them
 * @param seconds the period's length
 * @param window the periods before and including this one, up to {@link UsageTracker#WINDOW}
 * @param dataBytes the size of its store files over all servers now (null: not known, for a user)
 * @param byServer its rates on each server read (empty when not kept)
 */
public record Usage(double readsPerSecond, double writesPerSecond, double throttledShare, double busiestServerShare,
    int servers, double seconds, Window window, Long dataBytes, java.util.Map<String, Server> byServer) {

  public Usage {
    byServer = byServer == null ? java.util.Map.of() : java.util.Map.copyOf(byServer);
  }

  public Usage(double readsPerSecond, double writesPerSecond, double throttledShare, double busiestServerShare,
      int servers, double seconds, Window window, Long dataBytes) {
    this(readsPerSecond, writesPerSecond, throttledShare, busiestServerShare, servers, seconds, window, dataBytes,
        java.util.Map.of());
  }

  /**
   * The subject on one RegionServer over the period.
   *
   * @param throttledPerSecond requests it refused with a throttling exception (NaN: not counted)
   */
  public record Server(double readsPerSecond, double writesPerSecond, double throttledPerSecond) {}

  public Usage(double readsPerSecond, double writesPerSecond, double throttledShare, double busiestServerShare,
      int servers, double seconds, Window window) {
    this(readsPerSecond, writesPerSecond, throttledShare, busiestServerShare, servers, seconds, window, null);
  }

  /**
   * The subject over its last periods: what a hint needs (one period is too noisy to advise on).
   *
   * @param periods how many periods it spans
   * @param seconds how long they last together
   * @param peakOpsPerSecond the highest period's operations over all servers
   * @param peakBusiestServerOpsPerSecond the highest period's operations on its busiest server
   * @param throttledShare the share of its requests HBase refused over them (NaN: not counted)
   */
  public record Window(int periods, double seconds, double peakOpsPerSecond, double peakBusiestServerOpsPerSecond,
      double throttledShare) {}

  /** The operations per second on its busiest server (0 when idle). */
  public double busiestServerOpsPerSecond() {
    return Double.isNaN(busiestServerShare) ? 0 : opsPerSecond() * busiestServerShare;
  }

  public double opsPerSecond() {
    return readsPerSecond + writesPerSecond;
  }
}
