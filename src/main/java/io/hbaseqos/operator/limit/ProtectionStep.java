package io.hbaseqos.operator.limit;

import io.hbaseqos.operator.api.CalibrationSpec;
import io.hbaseqos.operator.api.CalibrationStatus;
import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.api.QosSpec;
import io.hbaseqos.operator.api.QosStatus;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.cluster.Errors;
import io.hbaseqos.operator.gateway.ClusterMetrics;
import io.hbaseqos.operator.gateway.MetricsPendingException;
import io.hbaseqos.operator.hbase.CallQueues;
import io.hbaseqos.operator.hbase.UserOperations;
import io.hbaseqos.operator.hbase.UsersMetrics;
import io.hbaseqos.operator.qos.ProtectionLaw;
import io.hbaseqos.operator.qos.ProtectionLoops;
import io.hbaseqos.operator.quota.Durations;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A tenant's part in its cluster's latency protection: builds the members from the cluster's QoS
 * tenants, reads their latencies and uses through the cluster's {@link ClusterMetrics}, asks the
 * cluster's {@link ProtectionLoops} for the plan, and says what this tenant's share of it is: its
 * limit, {@code status.qos}, its conditions and events.
 */
final class ProtectionStep {
  private final ProtectionLoops loops;
  /** Per sheddable tenant: the per-server counters of its last period (a use is a rate). */
  private final Map<String, Previous> previous = new ConcurrentHashMap<>();

  private record Previous(Instant at, Map<String, Long> ops) {}

  /**
   * Per protected tenant and HBase-read objective: its operations counted by the servers at the last
   * read. HBase times operations in whole milliseconds, so a histogram of 0 is either no operation
   * or only operations under a millisecond; whether the count moved tells them apart.
   */
  private final Map<String, Long> latencyCounts = new ConcurrentHashMap<>();

  /** Per protected tenant and call-queue objective: its last two readings of the queues (a wait is over a period). */
  private final Map<String, QueueReadings> queueReadings = new ConcurrentHashMap<>();

  /** @param before the reading before {@code last} (null: none) */
  private record QueueReadings(CallQueues before, CallQueues last) {}

  /**
   * This tenant's limit from protection (null: not sheddable), whether it is held below its ceiling,
   * and what to report.
   */
  record Outcome(Long limit, boolean shed, ThrottleKind kind, Duration retry, QosStatus qos,
      List<Decision.Report> conditions, List<Decision.Note> notes, List<String> moved,
      Decision.ProtectionGauge gauge) {}

  ProtectionStep(ProtectionLoops loops) {
    this.loops = loops;
  }

  static ThrottleKind kind(QosSpec.SheddableSpec s) {
    return (s.getOperations() == null ? CalibrationSpec.Operations.all : s.getOperations()).throttle();
  }

  /** The limit calibration holds for a sheddable tenant on the throttle protection moves (null: none). */
  private static Long calibrated(Tenant t, QosSpec.SheddableSpec sh) {
    CalibrationStatus c = t.status().getCalibration();
    return sh == null || t.spec().getCalibration() == null || c == null || c.getLimit() == null
        || !kind(sh).name().equals(c.getThrottle()) ? null : c.getLimit();
  }

  /** When the limit status names took its value (null: not said, or not a time). */
  private static Instant limitSetAt(QosStatus s) {
    try {
      return s.getLimitSince() == null ? null : Instant.parse(s.getLimitSince());
    } catch (java.time.format.DateTimeParseException e) {
      return null; // not the operator's writing: no wait is resumed from it
    }
  }

  /** When a limit that is now {@code limit} took that value: now, unless status already names it. */
  private static String limitSince(QosStatus was, ThrottleKind kind, long limit, Instant now) {
    return was != null && was.getLimit() != null && was.getLimit() == limit && kind.name().equals(was.getThrottle())
        && was.getLimitSince() != null ? was.getLimitSince() : now.toString();
  }

  private static final java.util.regex.Pattern NUMBER = java.util.regex.Pattern.compile("\\d+(\\.\\d+)?");

  /** A reason's words, its counts aside: numbers, and the plural they take, do not count. */
  static String words(String reason) {
    return reason == null ? "" : NUMBER.matcher(reason).replaceAll("#").replace("periods", "period")
        .replace("passes", "pass");
  }

  /** The tenant left protection (qos taken out, or deleted). */
  void forget(String id) {
    loops.forget(id);
    previous.remove(id);
    latencyCounts.keySet().removeIf(k -> k.startsWith(id + "#"));
    queueReadings.keySet().removeIf(k -> k.startsWith(id + "#"));
  }

  /**
   * @param peers the cluster's other QoS tenants (owned, not being deleted)
   * @param inForce how long after a quota write its RegionServers may still enforce the old quota
   */
  Outcome step(Tenant tenant, List<Tenant> peers, Duration inForce, ClusterMetrics metrics, Instant now) {
    // this tenant as reconciled (the cache may not have its generation yet), the others as cached; in one
    // order whoever asks, so the loop sees the same members from every tenant
    List<Tenant> tenants = new ArrayList<>(peers.stream().filter(t -> !t.uid().equals(tenant.uid())).toList());
    tenants.add(tenant);
    tenants.sort(Comparator.comparing(Tenant::id));
    Map<String, Tenant> byId = new LinkedHashMap<>();
    List<ProtectionLoops.Member> members = new ArrayList<>();
    Duration period = null;
    for (Tenant t : tenants) {
      QosSpec q = t.spec().getQos();
      List<ProtectionLoops.Goal> goals = new ArrayList<>();
      for (QosSpec.LatencyObjectiveSpec o : q.getLatencyObjectives() == null ? List.<QosSpec.LatencyObjectiveSpec>of()
          : q.getLatencyObjectives()) {
        goals.add(new ProtectionLoops.Goal(o.describe(), o.getBoundMillis()));
        Duration w = Durations.parse(o.getWindow(), Duration.ofSeconds(30));
        period = period == null || w.compareTo(period) < 0 ? w : period;
      }
      QosStatus s = t.status().getQos();
      QosSpec.SheddableSpec sh = q.getSheddable();
      members.add(new ProtectionLoops.Member(t.id(), q.getPriority(), goals, sh == null ? null
          : new ProtectionLoops.Range(sh.getFloor(), sh.getCeiling()),
          s == null || sh == null || !kind(sh).name().equals(s.getThrottle()) ? null : s.getLimit(),
          s == null ? null : s.getRoof(), calibrated(t, sh), s == null ? null : limitSetAt(s)));
      byId.put(t.id(), t);
    }
    period = period == null ? Duration.ofSeconds(30) : period;
    ProtectionLoops.Plan plan = loops.plan(tenant.clusterKey(), members, period, inForce,
        new Readings(metrics, byId, now), now);
    if (plan.isPending()) {
      return awaitingFirstPlan(tenant, now, plan);
    }
    // the other members' limits or standings moved: they apply and report it now, not at their next period
    List<String> moved = plan.changed() ? tenants.stream().map(Tenant::id).filter(id -> !id.equals(tenant.id()))
        .toList() : List.of();
    return report(tenant, now, plan, moved, io.hbaseqos.operator.usage.CacheReport.missEvidence(metrics.blockCache()));
  }

  /**
   * Before the loop's first plan (its readings are being taken, after a start or for a new loop):
   * the tenant keeps what its status says, its limit and conditions included (within the floor and
   * ceiling its spec declares now), so protection asks HBase for nothing new; a sheddable tenant
   * without a limit of protection's yet is at its ceiling. It is woken when the readings are there.
   */
  private static Outcome awaitingFirstPlan(Tenant tenant, Instant now, ProtectionLoops.Plan plan) {
    QosSpec.SheddableSpec sh = tenant.spec().getQos().getSheddable();
    QosStatus was = tenant.status().getQos();
    if (sh == null) {
      return new Outcome(null, false, null, plan.until(now), was, List.of(), List.of(), List.of(),
          new Decision.ProtectionGauge(Double.NaN, false, Double.NaN, false));
    }
    ThrottleKind kind = kind(sh);
    boolean fresh = was == null || was.getLimit() == null || !kind.name().equals(was.getThrottle());
    // a sheddable tenant with no limit of protection's yet starts where every plan starts it: free, at its
    // ceiling (HBase holds that from its first reconcile, as status says); one that has a limit keeps it, within
    // the floor and ceiling its spec declares now
    long limit = fresh ? sh.getCeiling() : Math.max(sh.getFloor(), Math.min(sh.getCeiling(), was.getLimit()));
    QosStatus q = was;
    if (fresh || limit != was.getLimit()) {
      q = new QosStatus();
      if (was != null) {
        q.setObjectives(was.getObjectives());
        q.setHolding(was.getHolding());
        q.setHeldBy(fresh ? null : was.getHeldBy());
        q.setRoof(fresh ? null : was.getRoof());
      }
      q.setThrottle(kind.name());
      q.setLimit(limit);
      q.setLimitSince(limitSince(was, kind, limit, now));
      q.setState(fresh ? "Free" : was.getState());
      q.setMessage(fresh ? "at its ceiling: the first readings of its cluster's latencies are being taken"
          : was.getMessage());
    }
    boolean shed = !fresh && was.getState() != null && !"Free".equals(was.getState());
    return new Outcome(limit, shed, kind, plan.until(now), q, List.of(), List.of(), List.of(),
        new Decision.ProtectionGauge(Double.NaN, false, limit, shed));
  }

  private Outcome report(Tenant tenant, Instant now, ProtectionLoops.Plan plan, List<String> moved,
      String cacheMisses) {
    String me = tenant.id();
    QosSpec qos = tenant.spec().getQos();
    QosStatus was = tenant.status().getQos();
    QosStatus q = new QosStatus();
    List<Decision.Report> conditions = new ArrayList<>();
    List<Decision.Note> notes = new ArrayList<>();
    ProtectionLaw.Standing standing = plan.decision().standings().get(me);
    double ratio = Double.NaN;
    boolean outOfCapacity = false;
    if (standing != null) {
      List<QosStatus.Objective> objectives = new ArrayList<>();
      List<ProtectionLoops.Attainment> as = plan.attainments().getOrDefault(me, List.of());
      for (int i = 0; i < as.size(); i++) {
        ProtectionLoops.Attainment a = as.get(i);
        QosStatus.Objective o = new QosStatus.Objective();
        o.setObjective(a.goal().name());
        double ms = a.last().millis();
        QosStatus.Objective before = was == null || was.getObjectives() == null || was.getObjectives().size() <= i
            ? null : was.getObjectives().get(i);
        // a reading that moved by less than a tenth of the bound (same verdict) is not rewritten
        o.setVerdict(verdict(a.verdict()));
        o.setObservedMillis(Double.isNaN(ms) ? null : Math.round(ms * 100) / 100.0);
        if (before != null && Objects.equals(before.getVerdict(), o.getVerdict()) && before.getObservedMillis() != null
            && o.getObservedMillis() != null
            && Math.abs(before.getObservedMillis() - o.getObservedMillis()) < 0.1 * a.goal().boundMillis()) {
          o.setObservedMillis(before.getObservedMillis());
        }
        o.setMetPeriods(a.met());
        o.setJudgedPeriods(a.judged());
        objectives.add(o);
        if (!Double.isNaN(ms)) {
          ratio = Double.isNaN(ratio) ? ms / a.goal().boundMillis() : Math.max(ratio, ms / a.goal().boundMillis());
        }
      }
      q.setObjectives(objectives);
      q.setHolding(standing.holding().isEmpty() ? null : standing.holding());
      outOfCapacity = standing.outOfCapacity();
      conditions.add(latencyCondition(standing, as, cacheMisses));
    } else {
      conditions.add(Decision.Report.removed(Conditions.LATENCY_MET));
    }
    ProtectionLaw.Cap cap = plan.decision().caps().get(me);
    Long limit = null;
    boolean shed = false;
    ThrottleKind kind = null;
    Decision.ProtectionGauge gauge;
    if (cap != null && qos.getSheddable() != null) {
      kind = kind(qos.getSheddable());
      shed = cap.action() != ProtectionLaw.Action.FREE;
      q.setThrottle(kind.name());
      q.setLimit(cap.limit());
      q.setLimitSince(limitSince(was, kind, cap.limit(), now));
      q.setState(state(cap.action()));
      q.setHeldBy(cap.heldBy().isEmpty() ? null : cap.heldBy());
      q.setRoof(cap.roof() > 0 ? cap.roof() : null);
      boolean same = was != null && Objects.equals(was.getState(), q.getState())
          && Objects.equals(was.getLimit(), q.getLimit()) && Objects.equals(was.getHeldBy(), q.getHeldBy());
      // the reason's counts move every period (periods left, periods of a record): status keeps it until its
      // words change (why the tenant is held), not at every count
      q.setMessage(same && words(was.getMessage()).equals(words(cap.reason())) ? was.getMessage() : cap.reason());
      if (!same) {
        if (cap.action() == ProtectionLaw.Action.SQUEEZED) {
          notes.add(Decision.Note.warning("Squeezed", cap.reason()));
        } else if (cap.action() == ProtectionLaw.Action.RELEASED) {
          // a step back up, whether or not it reaches the ceiling
          notes.add(Decision.Note.normal("Released", cap.reason()));
        } else if (shed != (was != null && was.getState() != null && !"Free".equals(was.getState()))) {
          notes.add(Decision.Note.normal(shed ? "Held" : "Released", cap.reason()));
        }
      }
      conditions.add(Decision.Report.of(Conditions.SHED, shed, q.getState(), q.getMessage()));
      limit = cap.limit();
      gauge = new Decision.ProtectionGauge(ratio, outOfCapacity, cap.limit(), shed);
    } else {
      conditions.add(Decision.Report.removed(Conditions.SHED));
      gauge = new Decision.ProtectionGauge(ratio, outOfCapacity, Double.NaN, false);
    }
    return new Outcome(limit, shed, kind, plan.until(now), q, conditions, notes, moved, gauge);
  }

  /** @param cacheMisses the block cache as evidence of slow reads (null: it serves most of them, or is not known) */
  static Decision.Report latencyCondition(ProtectionLaw.Standing standing,
      List<ProtectionLoops.Attainment> as, String cacheMisses) {
    String worst = as.stream().map(a -> a.goal().name() + ": " + (Double.isNaN(a.last().millis())
        ? "unknown (" + a.last().problem() + ")" : String.format(Locale.ROOT, "%.2f ms", a.last().millis())))
        .reduce((a, b) -> a + "; " + b).orElse("");
    String status;
    String reason;
    String message;
    switch (standing.verdict()) {
      case VIOLATED -> {
        status = "False";
        if (standing.outOfCapacity()) {
          reason = "OutOfCapacity";
          message = "missed (" + worst + ") with every sheddable tenant of lower priority at its floor: the cluster "
              + "is out of capacity for this objective; add RegionServers or lower the floors"
              + (cacheMisses == null ? "" : "; " + cacheMisses);
        } else if (standing.nothingBelow()) {
          reason = "NoSheddableBelow";
          message = "missed (" + worst + "); no sheddable tenant of lower priority on this cluster can be slowed down"
              + (cacheMisses == null ? "" : "; " + cacheMisses);
        } else {
          reason = "Missed";
          // a miss the law does not act on yet (one to be confirmed, a period measured under a change) holds nobody
          message = "missed (" + worst + "); " + (standing.holding().isEmpty() ? "nothing held for it yet"
              : "holding " + String.join(", ", standing.holding()));
        }
      }
      case UNKNOWN -> {
        status = "Unknown";
        reason = "MetricsUnavailable";
        message = worst + "; the limits of the tenants below are held as they are";
      }
      default -> {
        status = "True";
        reason = standing.nothingBelow() ? "NoSheddableBelow" : "Met";
        message = (standing.nothingBelow() ? "no sheddable tenant of lower priority on this cluster: the objective "
            + "is watched but nothing can be slowed down for it; " : "") + worst;
      }
    }
    Decision.Note onChange = "Met".equals(reason) ? Decision.Note.normal("ObjectiveMet", message)
        : Decision.Note.warning(reason, message);
    // the reading changes every period: a Met message is rewritten only with the reason
    return new Decision.Report(Conditions.LATENCY_MET, status, reason, message, onChange, "Met".equals(reason));
  }

  static String verdict(ProtectionLaw.Verdict v) {
    return switch (v) {
      case MARGIN -> "MetWithMargin";
      case MET -> "Met";
      case IDLE -> "Idle";
      case VIOLATED -> "Missed";
      case UNKNOWN -> "Unknown";
    };
  }

  static String state(ProtectionLaw.Action a) {
    return switch (a) {
      case FREE -> "Free";
      case SQUEEZED -> "Squeezed";
      case HELD -> "Held";
      case RELEASED -> "Released";
      case FROZEN -> "Frozen";
    };
  }

  /** Reads a period's latencies and uses; the RegionServers once per period (a read resets their histograms). */
  private final class Readings implements ProtectionLoops.Source {
    private final ClusterMetrics metrics;
    private final Map<String, Tenant> byId;
    private final Instant at;
    private UsersMetrics servers;
    private String serversProblem = "RegionServer metrics: not read";
    /**
     * Per sheddable member, its counters from the RegionServers' sample: its use is their rate. Read
     * whether or not the sample's histograms can be judged (a server answering from {@code /jmx}, before
     * HBase 2.6, has counters but no histogram that can be judged per period), so a use sizes a squeeze
     * on every release, from one path.
     */
    private final Map<String, CounterReading> counters = new HashMap<>();
    private CallQueues queues;
    private String queuesProblem = "RegionServer call queues: not read";
    /** Per Prometheus objective (url and query): its answer, or why there is none. */
    private final Map<String, Double> answers = new HashMap<>();
    private final Map<String, String> unanswered = new HashMap<>();

    Readings(ClusterMetrics metrics, Map<String, Tenant> byId, Instant at) {
      this.metrics = metrics;
      this.byId = byId;
      this.at = at;
    }

    /**
     * Asks for every Prometheus objective, all before looking at any, then for the RegionServers' call
     * queues (when an objective reads them), their latencies (when an objective reads HBase) and each
     * sheddable tenant's counters (its use); false while any is being taken (the asker is woken when it
     * is there). A read that fails or gives up on a server ends as that objective's problem, never as a
     * wait.
     */
    @Override
    public boolean ready(List<ProtectionLoops.Member> protecteds, List<ProtectionLoops.Member> sheddables,
        Instant since) {
      return ask(metrics, protecteds, sheddables, since);
    }

    /** Asks for every reading the step needs; false while any is being taken. */
    private boolean ask(ClusterMetrics m, List<ProtectionLoops.Member> protecteds,
        List<ProtectionLoops.Member> sheddables, Instant since) {
      boolean pending = false;
      boolean hbaseObjective = protecteds.stream().flatMap(p -> objectives(p).stream())
          .anyMatch(o -> o.getSource() == QosSpec.LatencyObjectiveSpec.Source.HBase);
      boolean queueObjective = protecteds.stream().flatMap(p -> objectives(p).stream())
          .anyMatch(o -> o.getSource() == QosSpec.LatencyObjectiveSpec.Source.CallQueue);
      for (ProtectionLoops.Member p : protecteds) {
        for (QosSpec.LatencyObjectiveSpec o : objectives(p)) {
          String key = o.getSource() == QosSpec.LatencyObjectiveSpec.Source.Prometheus ? key(o) : null;
          if (key != null && !answers.containsKey(key)) {
            try {
              answers.put(key, m.prometheus(o.getPrometheus().getUrl(), o.getPrometheus().getQuery(), since));
              unanswered.remove(key);
            } catch (MetricsPendingException e) {
              pending = true;
            } catch (IOException e) {
              unanswered.put(key, "Prometheus: " + e.getMessage());
            }
          }
        }
      }
      // the call queues come from the RegionServers' sample too (read into it while someone judges them)
      if (!pending && queueObjective && queues == null) {
        try {
          queues = m.callQueues(since);
          queuesProblem = null;
        } catch (MetricsPendingException e) {
          pending = true;
        } catch (IOException e) {
          queuesProblem = "RegionServer call queues: " + Errors.rootMessage(e);
        }
      }
      // the RegionServers' sample is judged when it is taken (its windows are handed over once): it is asked for
      // only once the step has everything else, so that a step that waits on Prometheus judges none
      if (!pending && hbaseObjective && servers == null) {
        try {
          servers = m.allUserMetrics(since);
          serversProblem = null;
        } catch (MetricsPendingException e) {
          pending = true;
        } catch (IOException e) {
          serversProblem = "RegionServer metrics: " + Errors.rootMessage(e);
        }
      }
      // each sheddable tenant's counters, from the same sample: its use
      if (!pending) {
        for (ProtectionLoops.Member s : sheddables) {
          String user = countedUser(byId.get(s.id()));
          if (user == null || counters.containsKey(s.id())) {
            continue;
          }
          try {
            counters.put(s.id(), m.userCounters(user, operations(byId.get(s.id())), since));
          } catch (MetricsPendingException e) {
            pending = true;
          } catch (IOException e) {
            // unreadable: its use is not known this period
          }
        }
      }
      return !pending;
    }

    private List<QosSpec.LatencyObjectiveSpec> objectives(ProtectionLoops.Member m) {
      List<QosSpec.LatencyObjectiveSpec> os = byId.get(m.id()).spec().getQos().getLatencyObjectives();
      return os == null ? List.of() : os;
    }

    private static String key(QosSpec.LatencyObjectiveSpec o) {
      return o.getPrometheus().getUrl() + "\n" + o.getPrometheus().getQuery();
    }

    @Override
    public Map<String, List<ProtectionLoops.Reading>> latencies(List<ProtectionLoops.Member> protecteds) {
      Map<String, List<ProtectionLoops.Reading>> out = new HashMap<>();
      for (ProtectionLoops.Member m : protecteds) {
        Tenant t = byId.get(m.id());
        List<ProtectionLoops.Reading> rs = new ArrayList<>();
        for (QosSpec.LatencyObjectiveSpec o : t.spec().getQos().getLatencyObjectives()) {
          rs.add(read(m.id(), t.spec(), o));
        }
        out.put(m.id(), rs);
      }
      return out;
    }

    private ProtectionLoops.Reading read(String id, TenantQuotaSpec spec, QosSpec.LatencyObjectiveSpec o) {
      if (o.getSource() == QosSpec.LatencyObjectiveSpec.Source.Prometheus) {
        Double ms = answers.get(key(o));
        if (ms == null) {
          return ProtectionLoops.Reading.failed(unanswered.getOrDefault(key(o), "Prometheus: not asked"));
        }
        return Double.isNaN(ms) ? ProtectionLoops.Reading.failed("the Prometheus query returned no sample")
            : new ProtectionLoops.Reading(ms, null);
      }
      if (o.getSource() == QosSpec.LatencyObjectiveSpec.Source.CallQueue) {
        return queueWait(id, o);
      }
      UsersMetrics values = servers;
      if (values == null) {
        return ProtectionLoops.Reading.failed(serversProblem);
      }
      if (!values.any()) {
        return ProtectionLoops.Reading.failed("no per-user metrics on any RegionServer: set "
            + "hbase.regionserver.user.metrics.enabled=true");
      }
      Set<String> ops = o.getOperations() == QosSpec.LatencyObjectiveSpec.Operations.writes
          ? UserOperations.WRITES : UserOperations.READS;
      String stat = o.getStatistic() == QosSpec.LatencyObjectiveSpec.Statistic.Mean ? "mean"
          : UsersMetrics.quantileName(o.getPercentile() == null ? 99 : o.getPercentile());
      String user = spec.getSubject().getUser();
      double ms = values.latency(user, ops, stat);
      long count = values.histogramOps(user, ops);
      Long before = latencyCounts.put(id + "#" + o.describe(), count);
      long moved = before == null ? 0 : Math.max(0, count - before);
      String partial = values.window(user, ops).problem(moved);
      if (partial != null && !(ms > o.getBoundMillis())) {
        // what is left of the window cannot vouch for the period; a miss in it is a miss all the same
        return ProtectionLoops.Reading.failed(partial);
      }
      // the servers on which it missed: where a squeeze is placed
      Set<String> missedOn = new java.util.TreeSet<>();
      values.latencyOn(user, ops, stat).forEach((server, v) -> {
        if (v > o.getBoundMillis()) {
          missedOn.add(server);
        }
      });
      // 0 after operations were counted: all under HBase's millisecond; without a count before, no operation
      return new ProtectionLoops.Reading(ms, null, ms == 0 && (before == null || count <= before), missedOn);
    }

    /**
     * The mean wait of a call in the call queues since this objective's last reading, on the
     * server where it is longest (Little's law, {@link CallQueues#meanWaitMillis}); the servers over the bound
     * are where it missed. The first reading, or one whose servers all changed, only starts the period.
     */
    private ProtectionLoops.Reading queueWait(String id, QosSpec.LatencyObjectiveSpec o) {
      CallQueues now = queues;
      if (now == null) {
        return ProtectionLoops.Reading.failed(queuesProblem);
      }
      if (now.servers().isEmpty()) {
        return ProtectionLoops.Reading.failed("no live RegionServer to read the call queues of");
      }
      String key = id + "#" + o.describe();
      // the last whole reading before this one (judged again on the same reading: the same period); a reading
      // with a server unread is not kept, so the next one is judged over the time since the last whole one
      QueueReadings was = queueReadings.get(key);
      boolean again = was != null && !now.at().isAfter(was.last().at());
      CallQueues before = was == null ? null : again ? was.before() : was.last();
      String unread = now.problem();
      if (unread == null && !again) {
        queueReadings.put(key, new QueueReadings(before, now));
      }
      if (before == null) {
        return ProtectionLoops.Reading.failed(unread != null ? unread : "the call queues' first reading: their wait "
            + "is judged over the period from it");
      }
      Map<String, Double> waits = now.meanWaitsSince(before);
      double worst = waits.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
      Set<String> missedOn = new java.util.TreeSet<>();
      waits.forEach((server, w) -> {
        if (w > o.getBoundMillis()) {
          missedOn.add(server);
        }
      });
      // a server unread, new since the last reading or whose count went back (a restart) is not judged: the
      // others' miss is a miss all the same, else the period is not known
      if (waits.size() < now.servers().size() && missedOn.isEmpty()) {
        if (unread != null) {
          return ProtectionLoops.Reading.failed(unread);
        }
        Set<String> fresh = new java.util.TreeSet<>(now.servers().keySet());
        fresh.removeAll(waits.keySet());
        return ProtectionLoops.Reading.failed("the call count of RegionServer " + String.join(", ", fresh)
            + " started again (new or restarted): its queue wait is judged over the next period");
      }
      long calls = 0;
      for (String server : waits.keySet()) {
        calls += now.servers().get(server).taken() - before.servers().get(server).taken();
      }
      return new ProtectionLoops.Reading(worst, null, calls == 0 && worst == 0, missedOn);
    }

    /** The user HBase counts a tenant's operations under (null: a table or namespace tenant, not counted per user). */
    private static String countedUser(Tenant t) {
      var subject = t.spec().getSubject();
      return subject.getTable() != null || subject.getNamespace() != null ? null : subject.getUser();
    }

    private static Set<String> operations(Tenant t) {
      return UserOperations.of(t.spec().getQos().getSheddable().getOperations());
    }

    /** Per sheddable member, its use on each server, from the last {@link #uses}. */
    private final Map<String, Map<String, Double>> serverUses = new HashMap<>();

    @Override
    public Map<String, Map<String, Double>> serverUses(List<ProtectionLoops.Member> sheddables) {
      return serverUses;
    }

    @Override
    public Map<String, Double> uses(List<ProtectionLoops.Member> sheddables) {
      Map<String, Double> out = new HashMap<>();
      serverUses.clear();
      for (ProtectionLoops.Member m : sheddables) {
        Tenant t = byId.get(m.id());
        String user = countedUser(t);
        if (user == null) {
          continue; // HBase counts per user only: the use of a table or namespace is not known
        }
        CounterReading counted = counters.get(m.id());
        if (counted == null) {
          previous.remove(m.id());
          continue;
        }
        Map<String, Long> now = new LinkedHashMap<>();
        counted.servers().forEach((server, c) -> now.put(server, c.succeeded()));
        // a rate between the readings' own times (a reading is taken before the reconcile that uses it)
        Instant readAt = counted.at() != null ? counted.at() : at;
        Previous before = previous.put(m.id(), new Previous(readAt, now));
        if (before == null || !before.ops().keySet().equals(now.keySet())) {
          continue;
        }
        double seconds = Duration.between(before.at(), readAt).toMillis() / 1000.0;
        if (seconds <= 0) {
          continue;
        }
        boolean cluster = t.spec().getScope() == TenantQuotaSpec.Scope.CLUSTER;
        double use = 0;
        boolean reset = false;
        Map<String, Double> perServer = new java.util.TreeMap<>();
        for (var e : now.entrySet()) {
          long d = e.getValue() - before.ops().get(e.getKey());
          reset |= d < 0;
          // a MACHINE limit binds on the busiest server; a CLUSTER one on the sum
          use = cluster ? use + d / seconds : Math.max(use, d / seconds);
          perServer.put(e.getKey(), d / seconds);
        }
        if (!reset) {
          out.put(m.id(), use);
          serverUses.put(m.id(), perServer);
        }
      }
      return out;
    }
  }
}
