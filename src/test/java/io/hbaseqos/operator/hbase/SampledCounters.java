package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.calibration.ServerCounters;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** For tests: a user's counters in a reading of every user's metrics, as a sample's counters port gives them. */
public final class SampledCounters {
  private SampledCounters() {
  }

  public static CounterReading of(UsersMetrics metrics, String user, Set<String> ops) {
    Map<String, ServerCounters> out = new LinkedHashMap<>();
    metrics.servers().forEach((server, values) -> out.put(server, RegionServerMetrics.counters(values, user, ops)));
    return new CounterReading(metrics.at(), out, true);
  }
}
