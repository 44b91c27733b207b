package io.hbaseqos.operator.qos;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One latency-protection loop per HBase cluster: whichever of the cluster's QoS tenants reconciles
 * first after a period has passed reads the latencies and uses, steps {@link ProtectionLaw} and
 * keeps the plan; the others read the same plan until the next period. A restarted operator
 * resumes the limits (and the roofs) from the sheddable tenants' status.
 */
public final class ProtectionLoops {
  /** How many periods an objective's attainment is reported over. */
  public static final int ATTAINMENT_PERIODS = 20;

  /**
   * A QoS tenant of the cluster, as its spec and last status say.
   *
   * @param calibrated the limit calibration holds for it on the throttle protection moves (null: none)
   * @param statusLimitSince when its status limit took its value (null: not known)
   */
  public record Member(String id, int priority, List<Goal> objectives, Range sheddable, Long statusLimit,
      Long statusRoof, Long calibrated, Instant statusLimitSince) {
    public Member(String id, int priority, List<Goal> objectives, Range sheddable, Long statusLimit, Long statusRoof,
        Long calibrated) {
      this(id, priority, objectives, sheddable, statusLimit, statusRoof, calibrated, null);
    }
  }

  public record Goal(String name, double boundMillis) {}

  public record Range(long floor, long ceiling) {}

  /**
   * What one period measured of one objective: milliseconds or a problem, and whether the tenant
   * did no operation of those kinds in the period ({@code idle}; a source with whole-millisecond
   * resolution reads 0 for a busy tenant whose operations all took under a millisecond).
   */
  public record Reading(double millis, String problem, boolean idle, java.util.Set<String> missedOn) {
    /** @param missedOn the servers on which it was over the objective's bound (empty: not known, or none) */
    public Reading {
      missedOn = missedOn == null ? java.util.Set.of() : java.util.Set.copyOf(missedOn);
    }

    public Reading(double millis, String problem, boolean idle) {
      this(millis, problem, idle, java.util.Set.of());
    }

    /** A reading where 0 means no operation. */
    public Reading(double millis, String problem) {
      this(millis, problem, millis == 0);
    }

    public static Reading failed(String problem) {
      return new Reading(Double.NaN, problem, false);
    }
  }

  /**
   * When a step whose readings are being taken looks again by itself: the source wakes the asker
   * sooner when they are there; this is for a wake that is lost.
   */
  public static final Duration PENDING_RECHECK = Duration.ofSeconds(15);

  /** Reads a period's latencies and uses. Every objective is read before any use (reading may reset them). */
  public interface Source {
    /**
     * Takes, or asks for, the period's readings: taken at or after {@code since} (the last step, or
     * for the loop's first step the moment it first asked); false while they are being taken
     * elsewhere (the step is put off, and the asker is woken). Never waits for them.
     */
    default boolean ready(List<Member> protecteds, List<Member> sheddables, Instant since) {
      return true;
    }

    /** Per member id, the readings of its objectives in order. */
    Map<String, List<Reading>> latencies(List<Member> protecteds);

    /** Per sheddable member id, what it used in the last period in its limit's units (NaN: unknown). */
    Map<String, Double> uses(List<Member> sheddables);

    /**
     * Per sheddable member id, what it used on each server in the period {@link #uses} measured (asked
     * after it); a member without an entry is not known per server, and its squeezes are not placed.
     */
    default Map<String, Map<String, Double>> serverUses(List<Member> sheddables) {
      return Map.of();
    }
  }

  /** An objective's last reading and how often it was met. */
  public record Attainment(Goal goal, Reading last, ProtectionLaw.Verdict verdict, int met, int judged) {}

  /**
   * The cluster's plan after its last step.
   *
   * @param changed a sheddable limit moved in the step of this call (false for a plan read again)
   */
  public record Plan(Instant next, ProtectionLaw.Decision decision, Map<String, List<Attainment>> attainments,
      boolean changed) {
    public Duration until(Instant now) {
      Duration d = Duration.between(now, next);
      return d.isNegative() ? Duration.ZERO : d;
    }

    /** No plan yet: the loop's first readings are being taken (its members keep what their status says). */
    public static Plan pending(Instant next) {
      return new Plan(next, null, Map.of(), false);
    }

    public boolean isPending() {
      return decision == null;
    }
  }

  private static final class Loop {
    /** Held while a step reads and decides; a reconcile that finds it held takes the last plan. */
    final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
    final ProtectionLaw.Memory memory = new ProtectionLaw.Memory();
    final Map<String, Long> limits = new HashMap<>();
    final Map<String, Long> roofs = new HashMap<>();
    final Map<String, Deque<Boolean>> history = new HashMap<>();
    /** The members the plan was made for, without what they said of their status. */
    List<Member> shape;
    Plan plan;
    /** When the plan was made: the next step's readings are taken after it. */
    Instant stepped;
    /** Before the first plan: when its readings were first asked for (fixed, so that a slow reading still serves). */
    Instant firstAsked;
  }

  private final Map<String, Loop> loops = new ConcurrentHashMap<>();

  /** Whole periods (rounded up) in which a written limit may not be in force yet: the law's {@code inForceAfter}. */
  static int periodsToEnforce(Duration inForce, Duration period) {
    if (inForce == null || inForce.isNegative() || inForce.isZero() || period.isZero()) {
      return 0;
    }
    return (int) Math.min(100, (inForce.toMillis() + period.toMillis() - 1) / period.toMillis());
  }

  /**
   * How many periods, the one a loop's first step judges included, were measured (partly) under the limit
   * before one written at {@code written} and resumed from status: as after a write the loop saw, the first
   * period judged starts a period and the periods to enforce after the write. The step judges the period
   * that ends {@code now}.
   */
  static int resumedWait(Instant written, Duration inForce, Duration period, Instant now) {
    int n = periodsToEnforce(inForce, period);
    if (written == null || n == 0) {
      return 0;
    }
    long p = period.toMillis();
    long ahead = Duration.between(now, written).toMillis() + (n + 2) * p; // to the first start judged, from now - p
    return (int) Math.max(0, Math.min(n + 2, Math.floorDiv(ahead + p - 1, p)));
  }

  /**
   * The cluster's plan: stepped when the period has passed since the last step (or the members
   * changed), else the last one.
   */
  public Plan plan(String cluster, List<Member> members, Duration period, Source source, Instant now) {
    return plan(cluster, members, period, Duration.ZERO, source, now);
  }

  /**
   * The cluster's plan, on HBase whose RegionServers may enforce a written quota only {@code inForce}
   * after the write (twice their quota refresh period, before 2.6.3): that many periods (rounded up) after a
   * change are measured under the old limits, and the law is told so.
   */
  public Plan plan(String cluster, List<Member> members, Duration period, Duration inForce, Source source,
      Instant now) {
    Loop loop = loops.computeIfAbsent(cluster, k -> new Loop());
    if (!loop.lock.tryLock()) {
      // another reconcile is stepping the loop: never wait for it; this tenant reports the last plan (before the
      // first, none) and looks again shortly
      Plan last;
      synchronized (loop.memory) {
        last = loop.plan;
      }
      Instant soon = now.plusSeconds(1);
      if (last == null) {
        return Plan.pending(soon); // the first plan is being made: this member keeps its status meanwhile
      }
      return new Plan(last.next().isAfter(soon) ? last.next() : soon, last.decision(), last.attainments(), false);
    }
    try {
      List<Member> shape = members.stream().map(m -> new Member(m.id(), m.priority(), m.objectives(), m.sheddable(),
          null, null, null, null)).toList();
      if (loop.plan != null && shape.equals(loop.shape) && now.isBefore(loop.plan.next())) {
        Plan p = loop.plan;
        return new Plan(p.next(), p.decision(), p.attainments(), false);
      }
      List<Member> protecteds = members.stream().filter(m -> !m.objectives().isEmpty()).toList();
      List<Member> sheddables = members.stream().filter(m -> m.sheddable() != null).toList();
      if (loop.plan == null && (loop.firstAsked == null || loop.firstAsked.plus(period).isBefore(now))) {
        // fixed while its readings are taken (a slow one still serves), and never older than a period
        loop.firstAsked = now;
      }
      // readings of the period that ended (taken at or after its end, which stays fixed while they are taken);
      // a step before its period's end (the members changed) takes any after the last step
      Instant since = loop.plan == null ? loop.firstAsked
          : now.isBefore(loop.plan.next()) ? loop.stepped : loop.plan.next();
      boolean ready = source.ready(protecteds, protecteds.isEmpty() ? List.of() : sheddables, since);
      if (!ready) {
        // the readings are being taken: the last plan stands (before the first, none: its members keep what their
        // status says), and this asker is woken when they are there
        Plan p = loop.plan;
        return p == null ? Plan.pending(now.plus(PENDING_RECHECK))
            : new Plan(now.plus(PENDING_RECHECK), p.decision(), p.attainments(), false);
      }
      loop.shape = shape;
      Map<String, List<Reading>> lat = protecteds.isEmpty() ? Map.of() : source.latencies(protecteds);
      // a use only sizes a squeeze: with nobody to protect there is none to size
      Map<String, Double> used = sheddables.isEmpty() || protecteds.isEmpty() ? Map.of() : source.uses(sheddables);
      Map<String, Map<String, Double>> usedOn = sheddables.isEmpty() || protecteds.isEmpty() ? Map.of()
          : source.serverUses(sheddables);
      List<ProtectionLaw.Protected> ps = new ArrayList<>();
      Map<String, List<Attainment>> attainments = new LinkedHashMap<>();
      for (Member m : protecteds) {
        List<Reading> rs = lat.getOrDefault(m.id(), List.of());
        List<ProtectionLaw.Objective> os = new ArrayList<>();
        List<Attainment> as = new ArrayList<>();
        for (int i = 0; i < m.objectives().size(); i++) {
          Goal g = m.objectives().get(i);
          Reading r = i < rs.size() ? rs.get(i) : Reading.failed("not read");
          ProtectionLaw.Objective o = new ProtectionLaw.Objective(g.name(), g.boundMillis(), r.millis(), r.problem(),
              r.idle(), r.missedOn());
          os.add(o);
          ProtectionLaw.Verdict v = o.verdict();
          Deque<Boolean> h = loop.history.computeIfAbsent(m.id() + "/" + g.name(), k -> new ArrayDeque<>());
          if (v != ProtectionLaw.Verdict.UNKNOWN) {
            h.addLast(v != ProtectionLaw.Verdict.VIOLATED);
            while (h.size() > ATTAINMENT_PERIODS) {
              h.removeFirst();
            }
          }
          as.add(new Attainment(g, r, v, (int) h.stream().filter(b -> b).count(), h.size()));
        }
        ps.add(new ProtectionLaw.Protected(m.id(), m.priority(), os));
        attainments.put(m.id(), as);
      }
      List<ProtectionLaw.Sheddable> ss = new ArrayList<>();
      for (Member m : sheddables) {
        if (!loop.limits.containsKey(m.id()) && m.statusLimit() != null) {
          // resumed from status (the operator restarted): a limit written lately may not be in force yet
          loop.memory.resume(m.id(), resumedWait(m.statusLimitSince(), inForce, period, now));
        }
        long limit = loop.limits.computeIfAbsent(m.id(), k -> m.statusLimit() != null ? m.statusLimit()
            : m.sheddable().ceiling());
        long roof = loop.roofs.computeIfAbsent(m.id(), k -> m.statusRoof() != null ? m.statusRoof() : 0L);
        ss.add(new ProtectionLaw.Sheddable(m.id(), m.priority(), m.sheddable().floor(), m.sheddable().ceiling(), limit,
            used.getOrDefault(m.id(), Double.NaN), roof, m.calibrated() == null ? limit : m.calibrated(),
            usedOn.getOrDefault(m.id(), Map.of())));
      }
      // a step before its period's end (the members changed) is no period of the wait for HBase's refresh
      boolean periodEnd = loop.plan == null || !now.isBefore(loop.plan.next());
      ProtectionLaw.Decision d = ProtectionLaw.step(ps, ss, loop.memory, periodsToEnforce(inForce, period),
          periodEnd);
      boolean changed = false;
      for (ProtectionLaw.Sheddable s : ss) {
        ProtectionLaw.Cap c = d.caps().get(s.id());
        changed |= c.limit() != s.limit();
        loop.limits.put(s.id(), c.limit());
        loop.roofs.put(s.id(), c.roof());
      }
      // a step before its period's end keeps the period's schedule (members that change often cannot hold off the
      // step at its end, and with it the wait for HBase's refresh), or the new period's if the change shortened it
      Instant next = now.plus(period);
      Plan made = new Plan(periodEnd || next.isBefore(loop.plan.next()) ? next : loop.plan.next(), d, attainments,
          changed);
      synchronized (loop.memory) {
        loop.plan = made;
        loop.stepped = now;
      }
      return made;
    } finally {
      loop.lock.unlock();
    }
  }

  /** A tenant left the cluster's protection (deleted, or qos taken out): it no longer counts. */
  public void forget(String id) {
    for (Loop loop : loops.values()) {
      loop.lock.lock();
      try {
        loop.limits.remove(id);
        loop.roofs.remove(id);
        loop.history.keySet().removeIf(k -> k.startsWith(id + "/"));
        synchronized (loop.memory) {
          loop.memory.forget(id);
        }
        loop.shape = null; // the next call steps with the members as they are
      } finally {
        loop.lock.unlock();
      }
    }
  }
}
