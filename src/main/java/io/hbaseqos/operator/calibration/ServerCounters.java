package io.hbaseqos.operator.calibration;

/**
 * One RegionServer's cumulative counters for one tenant.
 *
 * @param ops operations the server counted for the tenant (may include throttled attempts, see
 *     {@link #throttledCountedAsOps})
 * @param throttled requests of the tenant the server refused with a throttling exception
 * @param throttledCountedAsOps how many of the throttled requests are also in {@code ops} (HBase
 *     records a throttled single Get as a Get)
 */
public record ServerCounters(long ops, long throttled, long throttledCountedAsOps) {}
