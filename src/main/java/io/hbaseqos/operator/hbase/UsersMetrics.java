package io.hbaseqos.operator.hbase;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Every user's metrics on every live RegionServer, from one {@code /prometheus} read per server:
 * the latency histograms since the server's previous sample and the cumulative operation
 * counters. Pure.
 *
 * <p>HBase resets a server's histograms whenever anyone samples it. Each histogram also reports
 * how many operations its window holds (the {@code TimeRangeCount} buckets, emitted when not
 * empty), while its {@code num_ops} counts every operation ever: the two tell how much of a
 * period the window covers, and {@code taken} says how much of it the operator's own reads in
 * between took.
 *
 * @param servers per server its users' metrics by Prometheus name
 * @param taken per server, the windows ({@code *_time_range_count_*} counts, statistics at their
 *     highest) the operator's samples between the last judged one and this one took (empty: none)
 * @param at when it was read (null: not known)
 */
public record UsersMetrics(Map<String, Map<String, Double>> servers, Map<String, Map<String, Double>> taken,
    java.time.Instant at) {
  /** The part of a histogram's name before its window buckets. */
  static final String WINDOW_BUCKETS = "_time_range_count_";

  public UsersMetrics(Map<String, Map<String, Double>> servers) {
    this(servers, Map.of(), null);
  }

  public UsersMetrics(Map<String, Map<String, Double>> servers, Map<String, Map<String, Double>> taken) {
    this(servers, taken, null);
  }

  /**
   * How many of a user's operations of these kinds the histograms' windows hold now, and how many
   * the operator's samples in between took since the last judged one (summed over servers).
   */
  public record Window(long inWindow, long takenByOperator) {
    /**
     * Why these windows cannot vouch for a period in which the histograms counted {@code moved}
     * operations (null: they can): none of them is left, or another reader took most of them.
     */
    public String problem(long moved) {
      long covered = inWindow + takenByOperator;
      if (moved <= 0 || covered * 2 >= moved) {
        return null;
      }
      return covered == 0
          ? "the latency window is empty though " + moved + " operations were counted in the period: another reader "
              + "of the RegionServers' metrics reset it (each read of /prometheus or /jmx does)"
          : "another reader of the RegionServers' metrics took " + (moved - covered) + " of the period's " + moved
              + " operations from the latency window (each read of /prometheus or /jmx resets it): what is left "
              + "cannot vouch for the period";
    }
  }

  public Window window(String user, Set<String> ops) {
    long in = 0;
    long taken = 0;
    for (var e : servers.entrySet()) {
      in += buckets(e.getValue(), user, ops);
      taken += buckets(this.taken.getOrDefault(e.getKey(), Map.of()), user, ops);
    }
    return new Window(in, taken);
  }

  private static long buckets(Map<String, Double> values, String user, Set<String> ops) {
    String u = RegionServerMetrics.sanitize(user);
    long n = 0;
    for (String op : ops) {
      String prefix = RegionServerMetrics.prometheusName("Users", "User_" + u + "_metric_" + op) + WINDOW_BUCKETS;
      for (var v : values.entrySet()) {
        if (v.getKey().startsWith(prefix)) {
          n += Math.round(v.getValue());
        }
      }
    }
    return n;
  }
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
    // the windows the operator's own reads took in between count too (their statistics, kept at their highest)
    for (Map<String, Double> values : java.util.stream.Stream.concat(servers.values().stream(),
        taken.values().stream()).toList()) {
      for (String op : ops) {
        Double v = values.get(RegionServerMetrics.prometheusName("Users", "User_" + u + "_metric_" + op + "_" + stat));
        if (v != null && v > worst) {
          worst = v;
        }
      }
    }
    return worst;
  }

  /**
   * Per server, a user's latency statistic there in milliseconds (as {@link #latency}, with the
   * windows the operator's own reads took from that server): the servers where it had operations.
   */
  public Map<String, Double> latencyOn(String user, Set<String> ops, String stat) {
    String u = RegionServerMetrics.sanitize(user);
    Map<String, Double> out = new LinkedHashMap<>();
    for (String server : servers.keySet()) {
      double worst = 0;
      for (Map<String, Double> values : java.util.List.of(servers.get(server), taken.getOrDefault(server, Map.of()))) {
        for (String op : ops) {
          Double v = values.get(RegionServerMetrics.prometheusName("Users", "User_" + u + "_metric_" + op + "_" + stat));
          if (v != null && v > worst) {
            worst = v;
          }
        }
      }
      if (worst > 0) {
        out.put(server, worst);
      }
    }
    return out;
  }

  /** The user's operations of these kinds its histograms ever counted, over servers (their {@code num_ops}). */
  public long histogramOps(String user, Set<String> ops) {
    String u = RegionServerMetrics.sanitize(user);
    long n = 0;
    for (Map<String, Double> values : servers.values()) {
      for (String op : ops) {
        n += Math.round(values.getOrDefault(RegionServerMetrics.prometheusName("Users", "User_" + u + "_metric_" + op
            + "_num_ops"), 0.0));
      }
    }
    return n;
  }
}
