package io.hbaseqos.operator.cluster;

import io.hbaseqos.operator.hbase.ServerSettings;
import io.hbaseqos.operator.quota.HBaseVersion;
import io.hbaseqos.operator.quota.RuntimeSetting;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Compares the quota settings every RegionServer runs with (read from its {@code /conf}) to the
 * ones {@code spec.quotas} declares: the rate limiter and its refill interval, the default user
 * quotas, the quota-user override key, read accounting and capacity-unit sizes. Pure. HBase reads
 * them from each RegionServer's own hbase-site.xml, so a server that runs with others throttles
 * differently from the rest, and the calibration loop tunes against a limiter it was not told of.
 */
public final class QuotaSettingsCheck {

  public enum Outcome { MATCHES, MISMATCH, UNSUPPORTED, UNKNOWN }

  /** @param mismatches one line per declared key some RegionServer differs on, for status */
  public record Result(Outcome outcome, List<String> mismatches, String message) {}

  private QuotaSettingsCheck() {}

  /**
   * @param operatorWrites whether the operator writes these settings itself (it runs the
   *     RegionServers), which only changes the advice given with a mismatch
   * @return empty when nothing is declared
   */
  public static Optional<Result> check(Map<String, ServerSettings> perServer, List<RuntimeSetting> declared,
      String hbaseVersion, boolean operatorWrites) {
    if (declared == null || declared.isEmpty()) {
      return Optional.empty();
    }
    Optional<HBaseVersion> version = HBaseVersion.parse(hbaseVersion);
    List<String> unsupported = new ArrayList<>();
    List<RuntimeSetting> checked = new ArrayList<>();
    for (RuntimeSetting s : declared) {
      if (s.key().since() != null && version.isPresent() && !version.get().atLeast(s.key().since())) {
        unsupported.add(s.field() + " (" + s.key().key() + ") needs HBase " + s.key().since());
      } else {
        checked.add(s);
      }
    }
    List<String> mismatches = new ArrayList<>();
    List<String> unreadable = new ArrayList<>();
    Map<String, ServerSettings> servers = new TreeMap<>(perServer == null ? Map.of() : perServer);
    servers.forEach((name, s) -> {
      if (!s.readable()) {
        unreadable.add(name + " (" + s.error() + ")");
      }
    });
    for (RuntimeSetting s : checked) {
      Map<String, List<String>> byValue = new TreeMap<>();
      servers.forEach((name, settings) -> {
        if (settings.readable()) {
          String raw = settings.values().get(s.key().key());
          if (!s.key().matches(raw, s.value())) {
            byValue.computeIfAbsent(s.key().describe(raw), v -> new ArrayList<>()).add(name);
          }
        }
      });
      if (!byValue.isEmpty()) {
        List<String> parts = new ArrayList<>();
        byValue.forEach((v, names) -> parts.add(v + " on " + RefreshPeriodCheck.summarize(names)));
        mismatches.add(s.key().key() + " is " + String.join("; ", parts) + ", declared " + s.key().describe(s.value())
            + " (" + s.field() + ")");
      }
    }
    if (!unsupported.isEmpty()) {
      List<String> all = new ArrayList<>();
      unsupported.forEach(u -> all.add(u + ", the cluster runs " + hbaseVersion));
      all.addAll(mismatches);
      String ignored = String.join("; ", unsupported) + "; the cluster runs " + hbaseVersion
          + ", whose RegionServers ignore " + (unsupported.size() == 1 ? "it" : "them");
      return Optional.of(new Result(Outcome.UNSUPPORTED, all,
          mismatches.isEmpty() ? ignored : ignored + "; " + String.join("; ", mismatches)));
    }
    if (!mismatches.isEmpty()) {
      String advice = operatorWrites
          ? "the operator has written the declared values to hbase-site.xml; RegionServers started before still run with the old ones until they restart"
          : "set the declared values in hbase-site.xml of every RegionServer and restart them (or change spec.quotas to what the cluster runs with)";
      return Optional.of(new Result(Outcome.MISMATCH, mismatches, String.join("; ", mismatches) + ": " + advice));
    }
    if (servers.isEmpty()) {
      return Optional.of(new Result(Outcome.UNKNOWN, List.of(), "no RegionServer configuration read yet"));
    }
    if (!unreadable.isEmpty()) {
      return Optional.of(new Result(Outcome.UNKNOWN, List.of(), "could not read the configuration of "
          + RefreshPeriodCheck.summarize(unreadable)));
    }
    return Optional.of(new Result(Outcome.MATCHES, List.of(), "every RegionServer runs with the " + checked.size()
        + " declared quota setting" + (checked.size() == 1 ? "" : "s")));
  }
}
