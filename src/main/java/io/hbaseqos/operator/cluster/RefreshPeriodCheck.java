package io.hbaseqos.operator.cluster;

import io.hbaseqos.operator.hbase.ServerConf;
import io.hbaseqos.operator.hbase.ServerSettings;
import io.hbaseqos.operator.quota.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Compares the {@code hbase.quota.refresh.period} every RegionServer runs with to the one the
 * HBaseCluster declares. Pure. A RegionServer that runs with a longer period than declared picks
 * up quota changes late whenever the reload HBase pushes after a setQuota is missed, and before
 * 2.6.3 it has no such reload at all.
 */
public final class RefreshPeriodCheck {

  public enum Outcome { MATCHES, MISMATCH, UNKNOWN }

  /** @param observed the period(s) seen, e.g. "30s" or "30s, 12h" */
  public record Result(Outcome outcome, String observed, String message) {}

  private RefreshPeriodCheck() {}

  public static Result check(Map<String, ServerSettings> perServer, Duration expected, String hbaseVersion) {
    if (perServer == null || perServer.isEmpty()) {
      return new Result(Outcome.UNKNOWN, null, "no RegionServer configuration read yet");
    }
    Map<String, List<String>> byValue = new TreeMap<>();
    List<String> unreadable = new ArrayList<>();
    List<String> wrong = new ArrayList<>();
    for (var e : new TreeMap<>(perServer).entrySet()) {
      ServerSettings s = e.getValue();
      if (!s.readable()) {
        unreadable.add(e.getKey() + " (" + s.error() + ")");
        continue;
      }
      String value = s.values().get(ServerConf.REFRESH_PERIOD_KEY);
      String shown;
      long ms;
      if (value == null) {
        ms = ServerConf.defaultRefreshPeriodMs(hbaseVersion);
        shown = Durations.format(Duration.ofMillis(ms)) + " (HBase default)";
      } else {
        try {
          ms = Long.parseLong(value.trim());
          shown = Durations.format(Duration.ofMillis(ms));
        } catch (NumberFormatException ex) {
          ms = -1;
          shown = "'" + value + "' (not a number of ms)";
        }
      }
      byValue.computeIfAbsent(shown, k -> new ArrayList<>()).add(e.getKey());
      if (ms != expected.toMillis()) {
        wrong.add(e.getKey());
      }
    }
    String observed = byValue.isEmpty() ? null : String.join(", ", byValue.keySet());
    String want = Durations.format(expected);
    if (!wrong.isEmpty()) {
      List<String> parts = new ArrayList<>();
      byValue.forEach((v, servers) -> parts.add(v + " on " + summarize(servers)));
      return new Result(Outcome.MISMATCH, observed, ServerConf.REFRESH_PERIOD_KEY + " is " + String.join("; ", parts)
          + ", declared " + want + ": set it in hbase-site.xml of every RegionServer (or change "
          + "spec.quotas.refreshPeriod to what the cluster runs with)");
    }
    if (!unreadable.isEmpty()) {
      return new Result(Outcome.UNKNOWN, observed, "could not read the configuration of " + summarize(unreadable)
          + (byValue.isEmpty() ? "" : "; the others run with " + observed));
    }
    return new Result(Outcome.MATCHES, observed, "every RegionServer runs with " + ServerConf.REFRESH_PERIOD_KEY
        + "=" + want);
  }

  static String summarize(List<String> items) {
    int shown = Math.min(3, items.size());
    String head = String.join(", ", items.subList(0, shown));
    return items.size() > shown ? head + " and " + (items.size() - shown) + " more" : head;
  }
}
