package io.hbaseqos.operator.calibration;

import java.time.Instant;
import java.util.Map;

/**
 * A tenant's cumulative counters on each live RegionServer, and when they were read (a reading
 * may be shared for a few seconds by the tenants of one cluster, so its time is not "now").
 */
public record CounterReading(Instant at, Map<String, ServerCounters> servers) {}
