package io.hbaseqos.operator.usage;

import io.hbaseqos.operator.api.DryRunStatus;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What HBase would do with a dry-run tenant's plan, from the requests the tenant sent each
 * RegionServer over the last period ({@link Usage#byServer}). Each RegionServer enforces a MACHINE
 * limit for the tenant on its own and a CLUSTER limit's share (the limit divided among the servers,
 * as HBase divides a user's or namespace's; a table's follows its regions, taken here as even): on
 * each, the tenant keeps at most the limit of the requests it sends and the rest is refused. Reads
 * are held to READ_NUMBER, writes to WRITE_NUMBER, both together to REQUEST_NUMBER. A client whose
 * threads wait on each request (most do) is slowed down everywhere by the server that keeps the least
 * of what it sends: that is the prediction; one whose requests to each server go independently keeps
 * each server's share (said as "up to" when it is more). Pure.
 *
 * <p>What it cannot see, it says: throttles on sizes, capacity units or handler time (the metrics
 * count requests, not their sizes), and the demand of a tenant HBase throttles now (its refused
 * requests are counted, but a client that backs off sends fewer than it wants).
 */
public final class DryRunPrediction {
  /** The throttles a prediction covers: those that count requests. */
  static final Set<ThrottleKind> PREDICTED = EnumSet.of(ThrottleKind.REQUEST_NUMBER, ThrottleKind.READ_NUMBER,
      ThrottleKind.WRITE_NUMBER);

  private DryRunPrediction() {}

  /**
   * @param plan what Enforce would write
   * @param u the tenant's last usage (null: none measured yet)
   * @param measurable whether HBase's metrics count this subject apart at all
   * @param before the status now; returned as it is when this prediction reads the same
   */
  public static DryRunStatus next(SubjectQuota plan, Usage u, boolean measurable, DryRunStatus before, Instant now) {
    return next(plan, u, measurable, before, before == null ? null : before.getLearnt(), now);
  }

  /** As {@link #next(SubjectQuota, Usage, boolean, DryRunStatus, Instant)}, with what calibration learnt (or null). */
  public static DryRunStatus next(SubjectQuota plan, Usage u, boolean measurable, DryRunStatus before,
      DryRunStatus.Learnt learnt, Instant now) {
    DryRunStatus s = of(plan, u, measurable);
    fromLearnt(s, plan, learnt);
    if (before != null && s.sameReading(before)) {
      return before;
    }
    s.setObservedTime(now.toString());
    return s;
  }

  /**
   * The same for RegionServer throttles, which hold back the requests of all users together on each
   * server: {@code allUsers} is every user's requests together, {@code plan} the policy in words.
   */
  public static DryRunStatus nextForAllUsers(java.util.Map<ThrottleKind, Limit> throttles, String plan, Usage allUsers,
      DryRunStatus before, Instant now) {
    DryRunStatus s = of(new SubjectQuota(io.hbaseqos.operator.quota.Subject.user("*"), throttles, false), allUsers,
        true, Voice.ALL_USERS);
    s.setPlan(plan);
    if (before != null && s.sameReading(before)) {
      return before;
    }
    s.setObservedTime(now.toString());
    return s;
  }

  /** Whom a message speaks of: one tenant, or every user together. */
  record Voice(String prefix, String they, String them, String their, String clientRetries) {
    static final Voice TENANT = new Voice("", "it", "it", "its", "its client waits and retries");
    static final Voice ALL_USERS = new Voice("all users together: ", "they", "them", "their",
        "their clients wait and retry");
  }

  static DryRunStatus of(SubjectQuota plan, Usage u, boolean measurable) {
    return of(plan, u, measurable, Voice.TENANT);
  }

  private static DryRunStatus of(SubjectQuota plan, Usage u, boolean measurable, Voice voice) {
    DryRunStatus s = new DryRunStatus();
    s.setPlan(plan.describe());
    String unseen = unseen(plan);
    Map<ThrottleKind, Limit> limits = plan.throttles().entrySet().stream()
        .filter(e -> PREDICTED.contains(e.getKey())).collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    if (!measurable) {
      s.setMessage(voice.prefix() + "no prediction: HBase does not count a user's requests on one table or namespace apart"
          + "; nothing is written to HBase");
      return s;
    }
    if (u == null) {
      s.setMessage(voice.prefix() + "no prediction yet: it needs two samples of the RegionServers' metrics, one resync "
          + "period apart; nothing is written to HBase");
      return s;
    }
    List<DryRunStatus.Server> servers = new ArrayList<>();
    double offered = 0;
    double kept = 0;
    double refusedNow = 0;
    double leastKept = 1;
    int n = Math.max(1, u.byServer().size());
    for (var e : u.byServer().entrySet()) {
      Usage.Server v = e.getValue();
      double t = Double.isNaN(v.throttledPerSecond()) ? 0 : v.throttledPerSecond();
      refusedNow += t;
      double done = v.readsPerSecond() + v.writesPerSecond();
      // the requests HBase refuses now are sent again: counted as demand, split as the served ones are
      double reads = v.readsPerSecond() + (done == 0 ? t : t * v.readsPerSecond() / done);
      double writes = v.writesPerSecond() + (done == 0 ? 0 : t * v.writesPerSecond() / done);
      double keptReads = Math.min(reads, perServer(limits.get(ThrottleKind.READ_NUMBER), n));
      double keptWrites = Math.min(writes, perServer(limits.get(ThrottleKind.WRITE_NUMBER), n));
      double request = perServer(limits.get(ThrottleKind.REQUEST_NUMBER), n);
      double both = keptReads + keptWrites;
      double k = both > request ? request : both;
      double sent = reads + writes;
      offered += sent;
      kept += k;
      double limit = Math.min(request, Math.min(
          limits.containsKey(ThrottleKind.READ_NUMBER) && reads > 0 ? perServer(limits.get(ThrottleKind.READ_NUMBER), n)
              : Double.POSITIVE_INFINITY,
          limits.containsKey(ThrottleKind.WRITE_NUMBER) && writes > 0 ? perServer(limits.get(ThrottleKind.WRITE_NUMBER), n)
              : Double.POSITIVE_INFINITY));
      if (sent > 0) {
        leastKept = Math.min(leastKept, k / sent);
        servers.add(new DryRunStatus.Server(e.getKey(), UsageReport.twoDigits(sent), Double.isInfinite(limit) ? null
            : UsageReport.twoDigits(limit), UsageReport.twoDigits(k), percent(1 - k / sent)));
      }
    }
    servers.sort(Comparator.comparing(DryRunStatus.Server::getRequestsPerSecond).reversed()
        .thenComparing(DryRunStatus.Server::getName));
    s.setServers(new ArrayList<>(servers.subList(0, Math.min(DryRunStatus.MAX_SERVERS, servers.size()))));
    s.setMeasuredOpsPerSecond(UsageReport.twoDigits(u.opsPerSecond()));
    // a client whose threads wait on each request is paced by the server that keeps the least of what it
    // is sent; one whose requests to each server go independently keeps every server's share
    double paced = offered * leastKept;
    s.setPredictedOpsPerSecond(UsageReport.twoDigits(paced));
    boolean apart = kept > paced * 1.05;
    s.setUpToOpsPerSecond(apart ? UsageReport.twoDigits(kept) : null);
    double refused = offered == 0 ? 0 : 1 - paced / offered;
    s.setRejectedPercent(percent(refused));
    s.setMessage(voice.prefix() + words(plan, limits, u, offered, paced, apart ? kept : Double.NaN, refused, servers,
        refusedNow, unseen, voice));
    return s;
  }

  private static String words(SubjectQuota plan, Map<ThrottleKind, Limit> limits, Usage u, double offered,
      double kept, double upTo, double refused, List<DryRunStatus.Server> servers, double refusedNow, String unseen,
      Voice v) {
    String span = Math.round(u.seconds()) + " s";
    StringBuilder m = new StringBuilder();
    if (limits.isEmpty()) {
      m.append("nothing to predict: the plan (").append(plan.describe()).append(") holds no request-number throttle");
    } else if (offered == 0) {
      m.append("no requests in the last ").append(span).append(": under ").append(plan.describe())
          .append(" HBase would refuse none");
    } else if (refused < 0.005) {
      DryRunStatus.Server busiest = servers.get(0);
      m.append("under ").append(plan.describe()).append(" HBase would refuse none of " + v.their() + " requests: ")
          .append(busiest.getLimitPerSecond() == null ? v.their() + " requests meet no limit of the plan"
              : v.their() + " busiest RegionServer saw " + UsageReport.rate(busiest.getRequestsPerSecond())
                  + " req/s of the " + UsageReport.rate(busiest.getLimitPerSecond()) + "/s it would allow")
          .append(" (last ").append(span).append(")");
    } else {
      DryRunStatus.Server worst = servers.stream().max(Comparator.comparing(DryRunStatus.Server::getRejectedPercent))
          .orElseThrow();
      m.append("under ").append(plan.describe()).append(" ").append(v.they()).append(" would get about ").append(UsageReport.rate(kept))
          .append(" ops/s of the ").append(UsageReport.rate(u.opsPerSecond())).append(" ").append(v.they()).append(" did in the last ")
          .append(span);
      if (!Double.isNaN(upTo)) {
        m.append(" (up to ").append(UsageReport.rate(upTo)).append(" if ").append(v.their())
            .append(" requests to each RegionServer do not wait on one another)");
      }
      m.append(": HBase would refuse about ").append(Math.round(refused * 100))
          .append("% of ").append(v.their()).append(" requests");
      if (servers.size() > 1) {
        m.append(" (").append(Math.round(worst.getRejectedPercent())).append("% on ").append(worst.getName())
            .append(")");
      }
      m.append(", or slow ").append(v.them()).append(" down by as much where ").append(v.clientRetries())
          .append(" as HBase's does");
    }
    if (refusedNow > 0 && offered > 0) {
      m.append("; HBase refuses ").append(Math.round(refusedNow / offered * 100))
          .append("% of ").append(v.their()).append(" requests now, so what ").append(v.they())
          .append(" would send above today's limit is not seen: a higher limit may be used more than predicted");
    }
    if (unseen != null) {
      m.append("; not predicted: ").append(unseen).append(" (the metrics count requests, not their sizes, "
          + "capacity units or handler time)");
    }
    return m.append("; nothing is written to HBase").toString();
  }

  /** How far from the limit it was learnt at a learnt response is used: at most twice or half of it. */
  static final double LEARNT_REACH = 2;

  /** The loop's states in which the last period ran under the limit status shows (the loop held it). */
  static final Set<String> HELD = Set.of("Converged", "DemandLimited", "AtBound");

  /**
   * What calibration learnt of a tenant, from its status when its calibration gives way to a dry run
   * (null: it had learnt nothing yet, or its last step moved the limit, so that the ops status shows were
   * measured under another). {@code scope} is that of the limit HBase held for it.
   */
  public static DryRunStatus.Learnt learnt(io.hbaseqos.operator.api.CalibrationStatus c, Limit.Scope scope) {
    if (c == null || c.getThrottle() == null || c.getLimit() == null || c.getLimit() <= 0
        || c.getObservedOpsPerSecond() == null || c.getElasticity() == null || !HELD.contains(c.getState())) {
      return null;
    }
    return new DryRunStatus.Learnt(c.getThrottle(), c.getLimit(), scope.name(), c.getObservedOpsPerSecond(),
        c.getElasticity());
  }

  /**
   * A second prediction from the tenant's learnt response: ops scale as the limit to the power of the
   * elasticity, near where it was learnt (a tenant whose demand, not its limit, set its ops has an
   * elasticity near 0, and keeps its ops). It sees what the requests cannot: demand a limit held back.
   */
  static void fromLearnt(DryRunStatus s, SubjectQuota plan, DryRunStatus.Learnt l) {
    if (l == null) {
      return;
    }
    ThrottleKind kind;
    Limit.Scope scope;
    try {
      kind = ThrottleKind.valueOf(l.getThrottle());
      scope = Limit.Scope.valueOf(l.getScope());
    } catch (IllegalArgumentException | NullPointerException e) {
      return; // not what this operator writes: nothing learnt
    }
    if (l.getLimit() == null || l.getLimit() <= 0 || l.getOpsPerSecond() == null || l.getElasticity() == null) {
      return;
    }
    s.setLearnt(l);
    String what = "calibration learnt that under " + kind + "=" + io.hbaseqos.operator.quota.LimitSyntax.format(kind,
        new Limit(l.getLimit(), java.util.concurrent.TimeUnit.SECONDS, scope))
        + (scope == Limit.Scope.CLUSTER ? "(cluster)" : "") + " it did " + UsageReport.rate(l.getOpsPerSecond())
        + " ops/s, with an elasticity of " + l.getElasticity();
    Limit at = plan.throttles().get(kind);
    String said;
    if (at == null) {
      said = what + "; the plan holds no " + kind + " limit to apply it to";
    } else if (at.scope() != scope) {
      said = what + "; the plan's " + kind + " limit is " + at.scope() + ", not comparable";
    } else {
      double ratio = at.perSecond() / l.getLimit();
      if (ratio > LEARNT_REACH || ratio < 1 / LEARNT_REACH) {
        said = what + "; the plan's " + UsageReport.rate(at.perSecond()) + "/s is too far from it to say";
      } else {
        double ops = l.getOpsPerSecond() * Math.pow(ratio, l.getElasticity());
        s.setLearntOpsPerSecond(UsageReport.twoDigits(ops));
        said = what + ": at the plan's " + UsageReport.rate(at.perSecond()) + "/s that gives about "
            + UsageReport.rate(ops) + " ops/s";
      }
    }
    String end = "; nothing is written to HBase";
    String m = s.getMessage();
    s.setMessage(m.endsWith(end) ? m.substring(0, m.length() - end.length()) + "; " + said + end : m + "; " + said);
  }

  /** The throttles of the plan a prediction cannot cover, or null. */
  private static String unseen(SubjectQuota plan) {
    String names = plan.throttles().keySet().stream().filter(k -> !PREDICTED.contains(k)).sorted()
        .map(Enum::name).collect(Collectors.joining(", "));
    return names.isEmpty() ? null : names;
  }

  /** The limit one of {@code servers} RegionServers enforces, per second (unlimited when absent). */
  static double perServer(Limit l, int servers) {
    if (l == null) {
      return Double.POSITIVE_INFINITY;
    }
    return l.scope() == Limit.Scope.CLUSTER ? l.perSecond() / servers : l.perSecond();
  }

  private static double percent(double share) {
    return Math.round(Math.max(0, share) * 1000) / 10.0;
  }
}
