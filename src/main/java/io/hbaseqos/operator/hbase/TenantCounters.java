package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.calibration.ServerCounters;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.usage.Counts;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A subject's cumulative counters on one RegionServer, from the metrics it already exports: a
 * user's from the per-user metrics ({@code User_<u>_metric_<op>_num_ops}, reads and writes as
 * {@link UserOperations} counts them, throttled Gets taken out), a table's or a namespace's from the
 * per-table metrics ({@code Namespace_<ns>_table_<t>_metric_read/writeRequestCount}, as HBase
 * counts requests: a scan counts its rows), with the size of its store files. Throttled requests from the per-user, per-table
 * throttling-exception counters of HBase 2.6.4+ (0 before: the caller knows the version). Pure.
 */
public final class TenantCounters {
  private TenantCounters() {}

  /** Whether HBase's metrics count this kind of subject's operations (a user on a table is not counted apart). */
  public static boolean measurable(Subject s) {
    return s.kind() == Subject.Kind.USER || s.kind() == Subject.Kind.TABLE || s.kind() == Subject.Kind.NAMESPACE;
  }

  /** The subject's counters in one server's metrics (by Prometheus name); null when not {@link #measurable}. */
  public static Counts of(Subject s, Map<String, Double> values) {
    return switch (s.kind()) {
      case USER -> {
        var r = RegionServerMetrics.counters(values, s.user(), UserOperations.READS);
        var w = RegionServerMetrics.counters(values, s.user(), UserOperations.WRITES);
        // the throttling counters are the user's over every type; counted once
        // raw counters, so that a restart is told from throttled requests of other types
        // refused requests recorded among the reads: at most its Gets (a refused scan is not recorded as one)
        yield new Counts(r.ops(), w.ops(), r.throttled(), null, r.ops() - r.succeeded());
      }
      case TABLE -> table(values, s.effectiveNamespace(), s.tableQualifier());
      case NAMESPACE -> namespace(values, s.namespace());
      default -> null;
    };
  }

  /**
   * Every user's counters on one server together (what RegionServer throttles hold back: the requests of
   * all users), from the same per-user metrics; throttled requests from the per-user throttling counters.
   */
  public static Counts allUsers(Map<String, Double> values) {
    long reads = suffixed(values, ALL_READS);
    long gets = suffixed(values, ALL_GETS);
    long writes = suffixed(values, ALL_WRITES);
    long throttled = 0;
    long readThrottled = 0;
    for (var e : values.entrySet()) {
      String k = e.getKey();
      int at = k.indexOf(USER_MARK);
      if (k.startsWith(RegionServerMetrics.THROTTLE_PREFIX) && at > RegionServerMetrics.THROTTLE_PREFIX.length()) {
        long v = Math.round(e.getValue());
        throttled += v;
        String type = k.substring(RegionServerMetrics.THROTTLE_PREFIX.length(), at);
        if (!type.startsWith("write") && !type.startsWith("num_write") && !type.startsWith("atomic")) {
          readThrottled += v;
        }
      }
    }
    long refusedInReads = reads - ServerCounters.succeeded(reads,
        RegionServerMetrics.GET_RECORDS_PER_THROTTLE * readThrottled, gets);
    return new Counts(reads, writes, throttled, null, refusedInReads);
  }

  /** A metric name's start and end around the user's name, e.g. of every user's reads. */
  private record Probe(String prefix, String suffix) {
    static List<Probe> of(java.util.Set<String> ops) {
      List<Probe> out = new java.util.ArrayList<>();
      for (String op : ops) {
        String probe = RegionServerMetrics.prometheusName("Users", "User_q_metric_" + op + "_num_ops");
        int i = probe.indexOf("_q_metric_");
        out.add(new Probe(probe.substring(0, i + 1), probe.substring(i + 2)));
      }
      return List.copyOf(out);
    }
  }

  private static final List<Probe> ALL_READS = Probe.of(UserOperations.READS);
  private static final List<Probe> ALL_GETS = Probe.of(Set.of("get"));
  private static final List<Probe> ALL_WRITES = Probe.of(UserOperations.WRITES);
  /** What comes before a user's name in its throttling counters' names. */
  private static final String USER_MARK = RegionServerMetrics.userMarker("q").replaceAll("q_$", "");

  /** The sum of every user's {@code <op>_num_ops} for the operations of {@code probes}. */
  private static long suffixed(Map<String, Double> values, List<Probe> probes) {
    long n = 0;
    for (Probe p : probes) {
      for (var e : values.entrySet()) {
        if (e.getKey().startsWith(p.prefix()) && e.getKey().endsWith(p.suffix())) {
          n += Math.round(e.getValue());
        }
      }
    }
    return n;
  }

  private static Counts table(Map<String, Double> values, String ns, String qualifier) {
    String prefix = RegionServerMetrics.prometheusName("Tables", "Namespace_" + ns + "_table_" + qualifier + "_metric")
        + "_";
    long reads = Math.round(values.getOrDefault(prefix + "read_request_count", 0.0));
    long writes = Math.round(values.getOrDefault(prefix + "write_request_count", 0.0));
    long data = Math.round(values.getOrDefault(prefix + "store_file_size", 0.0));
    // HBase names a table in the default namespace by its qualifier alone, others as ns:qualifier
    String name = "default".equals(ns) ? qualifier : ns + ":" + qualifier;
    String suffix = RegionServerMetrics.prometheusName("", "_Table_" + name);
    long throttled = 0;
    for (var e : values.entrySet()) {
      if (e.getKey().startsWith(RegionServerMetrics.THROTTLE_PREFIX) && e.getKey().endsWith(suffix)) {
        throttled += Math.round(e.getValue());
      }
    }
    return new Counts(reads, writes, throttled, data);
  }

  private static Counts namespace(Map<String, Double> values, String ns) {
    String prefix = RegionServerMetrics.prometheusName("Tables", "Namespace_" + ns + "_table") + "_";
    long reads = 0;
    long writes = 0;
    long data = 0;
    for (var e : values.entrySet()) {
      if (e.getKey().startsWith(prefix)) {
        if (e.getKey().endsWith("_metric_read_request_count")) {
          reads += Math.round(e.getValue());
        } else if (e.getKey().endsWith("_metric_write_request_count")) {
          writes += Math.round(e.getValue());
        } else if (e.getKey().endsWith("_metric_store_file_size")) {
          data += Math.round(e.getValue());
        }
      }
    }
    String marker = "default".equals(ns) ? null : RegionServerMetrics.prometheusName("", "_Table_" + ns) + "_";
    long throttled = 0;
    for (var e : values.entrySet()) {
      if (e.getKey().startsWith(RegionServerMetrics.THROTTLE_PREFIX) && marker != null && e.getKey().contains(marker)) {
        throttled += Math.round(e.getValue());
      }
    }
    // the default namespace's tables carry no namespace in the throttling counters: not told apart
    return new Counts(reads, writes, marker != null ? throttled : null, data);
  }
}
