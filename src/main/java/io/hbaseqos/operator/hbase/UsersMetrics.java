package io.hbaseqos.operator.hbase;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Every user's metrics on every live RegionServer, from one {@code /prometheus} read per server:
 * the latency histograms since the server's previous sample and the cumulative operation
 * counters. Pure.
 *
 * @param servers per server its users' metrics by Prometheus name
 */
public record UsersMetrics(Map<String, Map<String, Double>> servers) {
  /** The exported quantiles of HBase's histograms, and the name of each. */
  private static final double[] QUANTILES = {25, 50, 75, 90, 95, 98, 99, 99.9, 100};
  private static final String[] QUANTILE_NAMES = {"25th_percentile", "median", "75th_percentile", "90th_percentile",
      "95th_percentile", "98th_percentile", "99th_percentile", "99.9th_percentile", "max"};

  /** The histogram statistic that serves a percentile: the next exported one at or above it. */
  public static String quantileName(double percentile) {
    for (int i = 0; i < QUANTILES.length; i++) {
      if (percentile <= QUANTILES[i] + 1e-9) {
        return QUANTILE_NAMES[i];
      }
    }
    return "max";
  }

  /** Whether any server has per-user metrics at all (else they are switched off). */
  public boolean any() {
    return servers.values().stream().anyMatch(v -> v.keySet().stream().anyMatch(k -> k.startsWith("users_")));
  }

  /**
   * A user's latency statistic over the servers' last sample, in milliseconds: the highest over
   * servers and operations whose histogram had operations (a server a tenant barely uses still
   * counts: its slowest server is what it sees). 0 when no server had any.
   *
   * @param stat a histogram statistic name ({@code mean}, {@code 99th_percentile}, {@code max}, ...)
   */
  public double latency(String user, Set<String> ops, String stat) {
    String u = RegionServerMetrics.sanitize(user);
    double worst = 0;
    for (Map<String, Double> values : servers.values()) {
      for (String op : ops) {
        Double v = values.get(RegionServerMetrics.prometheusName("Users", "User_" + u + "_metric_" + op + "_" + stat));
        if (v != null && v > worst) {
          worst = v;
        }
      }
    }
    return worst;
  }

  /** Per server, the user's cumulative successful operations (throttled Gets taken out). */
  public Map<String, Long> ops(String user, Set<String> ops) {
    Map<String, Long> out = new LinkedHashMap<>();
    servers.forEach((server, values) -> {
      var c = RegionServerMetrics.counters(values, user, ops);
      out.put(server, c.ops() - c.throttledCountedAsOps());
    });
    return out;
  }
}
