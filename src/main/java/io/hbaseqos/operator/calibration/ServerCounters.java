package io.hbaseqos.operator.calibration;

/**
 * One RegionServer's cumulative counters for one tenant.
 *
 * @param ops operations the server counted for the tenant (may include throttled attempts, see
 *     {@link #throttledCountedAsOps})
 * @param throttled requests of the tenant the server refused with a throttling exception
 * @param throttledCountedAsOps how many of {@code ops} the throttled requests account for if they
 *     were all Gets (HBase records a throttled single Get as a Get, twice); never more than
 *     {@code gets} are
 * @param gets how many of {@code ops} are Gets: the only records HBase makes of a refused request
 *     (two for a refused Get, one for a refused scan, measured on 2.6.4; never a scan)
 */
public record ServerCounters(long ops, long throttled, long throttledCountedAsOps, long gets) {
  /** Counters where any operation may be one HBase recorded when it refused it. */
  public ServerCounters(long ops, long throttled, long throttledCountedAsOps) {
    this(ops, throttled, throttledCountedAsOps, ops);
  }

  /**
   * Of {@code dOps} operations counted over a period, with {@code dCountedAsOps} more records of
   * refused requests and {@code dGets} more Gets, those that succeeded: the refused requests' records
   * come out, but never more of them than there were Gets (a scan tenant's refusals are not in its
   * scans).
   */
  public static long succeeded(long dOps, long dCountedAsOps, long dGets) {
    return Math.max(0, dOps - Math.min(dOps, Math.min(dCountedAsOps, dGets)));
  }

  /** {@link #succeeded} over the counters' whole life: the operations that succeeded so far. */
  public long succeeded() {
    return succeeded(ops, throttledCountedAsOps, gets);
  }
}
