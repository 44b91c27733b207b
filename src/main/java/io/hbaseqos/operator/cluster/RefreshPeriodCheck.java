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

  /**
   * How long after a quota write every RegionServer may still enforce the old quota: none since 2.6.3,
   * which reloads quotas on every setQuota; before, up to twice the quota refresh period, the longest
   * the RegionServers were seen to run with ({@code observed}: {@link Result#observed} as
   * {@code status.quotaRefreshPeriod} keeps it, read back next to where it is written), else the one
   * the platform declares. Twice: a RegionServer's refresh chore runs once a period but refetches a
   * cached quota only when it is at least a period old, and one fetched just after a run is not, at
   * the next (HBase's {@code QuotaCache.QuotaRefresherChore.fetch}); so a cached quota is refetched
   * every other run. On HBase 2.6.2 with a 20 s refresh a written limit was seen in force 20 s and
   * 35 s after the write. Zero while the version is not known.
   */
  public static Duration quotaInForceAfter(String version, String observed, Duration declared) {
    if (version == null || version.isBlank() || ServerConf.defaultRefreshPeriodMs(version) != 300_000L) {
      return Duration.ZERO;
    }
    Duration longest = null;
    boolean unread = observed == null || observed.isBlank();
    for (String part : observed == null ? new String[0] : observed.split(",")) {
      // "30s", or "5m (HBase default)"
      String value = part.strip().split(" ", 2)[0];
      try {
        Duration d = Durations.parse(value, null);
        longest = d == null || longest != null && longest.compareTo(d) >= 0 ? longest : d;
        unread |= d == null;
      } catch (IllegalArgumentException e) {
        unread = true; // not a period (a value that is not a number of ms): the declared one stands for it
      }
    }
    if (unread && declared != null && (longest == null || declared.compareTo(longest) > 0)) {
      longest = declared;
    }
    return longest == null ? Duration.ZERO : longest.multipliedBy(2);
  }

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
