package io.hbaseqos.operator.usage;

import io.hbaseqos.operator.api.UsageStatus;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.time.Instant;
import java.util.Locale;

/**
 * A tenant's {@link Usage} as {@code status.usage}: rounded, summarised for {@code kubectl get},
 * measured against the limit HBase holds, with a hint when the last periods advise one; the status
 * before, unchanged, when the reading is the same ({@link UsageStatus#sameReading}). Pure.
 */
public final class UsageReport {
  /** Periods over which a hint is given: one period is too noisy to advise on. */
  public static final int HINT_PERIODS = 10;

  private UsageReport() {}

  /**
   * The status for the subject's last usage against what HBase holds for it: {@code before} itself
   * when there is no usage yet or it reads the same.
   */
  public static UsageStatus next(Usage u, SubjectQuota inHBase, BlockCache cache, UsageStatus before, Instant now) {
    if (u == null) {
      return before;
    }
    return of(u, inHBase == null ? null : inHBase.throttles().get(ThrottleKind.REQUEST_NUMBER), cache, before, now);
  }

  /** The same, with no block cache known. */
  public static UsageStatus of(Usage u, Limit requestLimit, UsageStatus before, Instant now) {
    return of(u, requestLimit, null, before, now);
  }

  /**
   * @param requestLimit the REQUEST_NUMBER limit HBase holds for the subject (null: none)
   * @param cache the cluster's block cache (null: not read), which a table's or namespace's data is held against
   * @param before the status now; returned as it is when this reading is the same
   *     ({@link UsageStatus#sameReading})
   */
  public static UsageStatus of(Usage u, Limit requestLimit, BlockCache cache, UsageStatus before, Instant now) {
    UsageStatus s = new UsageStatus();
    s.setDataBytes(u.dataBytes());
    s.setCacheFit(CacheReport.fit(u.dataBytes(), cache));
    s.setReadOpsPerSecond(twoDigits(u.readsPerSecond()));
    s.setWriteOpsPerSecond(twoDigits(u.writesPerSecond()));
    s.setThrottledPercent(Double.isNaN(u.throttledShare()) ? null : Math.round(u.throttledShare() * 1000) / 10.0);
    s.setBusiestServerPercent(Double.isNaN(u.busiestServerShare()) ? null
        : (int) Math.round(u.busiestServerShare() * 100));
    s.setServers(u.servers());
    boolean machine = requestLimit != null && requestLimit.scope() == Limit.Scope.MACHINE;
    double limit = requestLimit == null ? Double.NaN : requestLimit.perSecond();
    if (requestLimit != null && limit > 0) {
      double use = machine ? u.busiestServerOpsPerSecond() : u.opsPerSecond();
      s.setLimitUsedPercent((int) Math.round(use / limit * 100));
    }
    s.setSummary(rate(u.opsPerSecond()) + "/s" + (s.getLimitUsedPercent() == null ? "" : " ("
        + s.getLimitUsedPercent() + "% of limit)") + (s.getThrottledPercent() == null ? ""
        : ", " + percent(s.getThrottledPercent()) + "% throttled"));
    s.setHint(hint(u.window(), limit, machine));
    if (before != null && s.sameReading(before)) {
      return before;
    }
    s.setObservedTime(now.toString());
    return s;
  }

  private static String hint(Usage.Window w, double limit, boolean machine) {
    if (w == null || w.periods() < HINT_PERIODS) {
      return null;
    }
    String span = minutes(w.seconds());
    if (!Double.isNaN(w.throttledShare()) && w.throttledShare() >= 0.5) {
      return "HBase refused " + Math.round(w.throttledShare() * 100) + "% of its requests over the last " + span
          + ": raise the limit, or let spec.calibration set it from an ops/s target";
    }
    double peak = machine ? w.peakBusiestServerOpsPerSecond() : w.peakOpsPerSecond();
    if (limit > 0 && peak > 0 && peak < 0.1 * limit) {
      return "its busiest period of the last " + span + " used " + Math.max(1, Math.round(peak / limit * 100))
          + "% of its limit" + (machine ? " on its busiest server" : "") + ": a limit of about "
          + rate(twoDigits(2 * peak)) + " req/sec would still fit it twice over and leave the rest to other tenants";
    }
    return null;
  }

  private static String minutes(double seconds) {
    return seconds >= 90 ? Math.round(seconds / 60) + " min" : Math.round(seconds) + " s";
  }

  /** Two significant digits: what status keeps of a rate. */
  public static double twoDigits(double v) {
    if (!(v > 0) || Double.isInfinite(v)) {
      return 0;
    }
    double scale = Math.pow(10, Math.floor(Math.log10(v)) - 1);
    return Math.round(v / scale) * scale;
  }

  /** A rate for people: {@code 0.5}, {@code 37}, {@code 1.9k}, {@code 12k}, {@code 3.4M}. */
  public static String rate(double v) {
    double r = twoDigits(v);
    if (r >= 1e6) {
      return trim(r / 1e6) + "M";
    }
    if (r >= 1e3) {
      return trim(r / 1e3) + "k";
    }
    return trim(r);
  }

  private static String percent(double p) {
    return p >= 10 || p == 0 ? String.valueOf(Math.round(p)) : trim(p);
  }

  private static String trim(double v) {
    String s = String.format(Locale.ROOT, v >= 10 ? "%.0f" : "%.2g", v);
    return s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
  }
}
