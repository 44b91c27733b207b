package io.hbaseqos.operator.calibration;

import java.time.Instant;
import java.util.Map;

/**
 * A tenant's cumulative counters on each live RegionServer, and when they were read (a reading
 * may be shared for a few seconds, so its time is not "now").
 *
 * @param sampled every server's counters are as they were at {@code at} (sampled when asked), not
 *     a cached view that lags it: only then does a baseline taken after a write start a period of
 *     the new limit alone
 */
public record CounterReading(Instant at, Map<String, ServerCounters> servers, boolean sampled) {
  public CounterReading(Instant at, Map<String, ServerCounters> servers) {
    this(at, servers, false);
  }
}
