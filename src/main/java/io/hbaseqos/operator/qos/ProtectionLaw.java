package io.hbaseqos.operator.qos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Protects the latency objectives of tenants by lowering the limits of sheddable tenants of lower
 * priority. One call is one period of one cluster. Pure: no I/O, no clock.
 *
 * <p>The rules, in order:
 * <ol>
 *   <li><b>Verdict per objective.</b> A reading above the bound is {@code VIOLATED}; below
 *       {@link #MARGIN} of the bound is {@code MARGIN}; between the two is {@code MET}. No operation
 *       in the window is {@code IDLE}; a busy tenant read as 0 (below a whole-millisecond source's
 *       resolution) is {@code MARGIN}. A reading that is missing, not a number, negative or above
 *       {@link #ABSURD_MILLIS} is {@code UNKNOWN}. The verdicts are what status shows; the moves
 *       follow the evidence below.</li>
 *   <li><b>Fail-static.</b> A sheddable tenant below a protected tenant whose reading is
 *       {@code UNKNOWN} is neither squeezed for it nor given anything back: its limit holds.</li>
 *   <li><b>Changes are measured before they are judged.</b> A period in which the limits below a
 *       protected tenant differ from those of the period before was measured partly under the old
 *       limits: it moves nothing and counts for nothing (a squeeze is not repeated on a reading the
 *       squeeze has not acted on yet); so do the periods until HBase enforces a written limit on every
 *       server ({@code inForceAfter}: twice its quota refresh period, before 2.6.3), except a period that
 *       misses after a change that only raised limits, with no earlier cut still to come into force
 *       (the load only grows as a raise lands, so the new limits will miss at least as badly): that
 *       miss is judged and joins their record. A change that the tenants' own loads show is not in force
 *       yet waits too, told or not: while a tenant cut under what it used, or raised from a limit that held
 *       it, still uses about what it used before (nearer that than its new limit, in ln), the period was
 *       measured under the old limits (at most {@link #UNSEEN_AT_MOST} periods past the wait told). A wait
 *       told ends early once what each such tenant used on each server shows the change in force on every
 *       server where it binds ({@link Pending#shownOn}), or once no tenant whose limit it moved uses as much
 *       as either limit (by more than half the change, in ln: whichever is in force, the periods measure the
 *       same world): that period counts for nothing, the next is judged. When
 *       the sheddable tenants below it change (one joins or
 *       leaves), its record and its recent misses are dropped: they were measured with other tenants
 *       below, or none, whose load may have moved in ways the law never saw.</li>
 *   <li><b>Evidence per limit.</b> Each measured period adds the headroom h = ln(bound / reading) of
 *       the tenant's worst objective to the evidence of the limits in force. The spread of h at
 *       fixed limits is measured and pooled over the recent limits ({@link Evidence}), and so is its
 *       lag-one correlation: the standard error of a record counts periods alike from one to the next
 *       (a drifting machine) as less than their number ({@link Evidence#inflation}). A limit is
 *       over budget when more than {@link #MISS_BUDGET} of its periods missed and its mean headroom
 *       is under z·spread ({@code budget}); the law aims at {@link #AIM} ({@code needed}), so that a
 *       run of periods, not only their average, keeps within the budget.</li>
 *   <li><b>Squeeze, lowest priority first</b>, when a violation is gross (twice the bound) on limits
 *       with fewer than three measured periods, when it is confirmed (one of the two measured
 *       periods before, at the same limits, was violated too) on limits with fewer than
 *       {@link #JUDGED_AFTER} measured periods (past those, two close misses are what a limit within
 *       the budget shows now and then, and its record judges it), or when three or more periods at
 *       the limits in force are over budget. The operator cuts the sheddable tenants of
 *       the lowest priority (below the protected tenant's) that can still give: limit above the
 *       floor and use above the floor. The cut brings the mean reading at the limits in force (this
 *       period's included; with one period, that reading) to the level of the aim,
 *       exp((mean h − needed) / elasticity) (the latency taken to fall in proportion to the load,
 *       or as steeply as {@link Evidence#elasticity} measured between the last record and this one),
 *       kept within [{@link #DEEPEST_CUT}, {@link #SHALLOWEST_CUT}], applied to the lower of the limit
 *       and what the tenant used. Never below the floor. What that level cannot give within those
 *       bounds (a tenant held at its floor) is given by the others of its level, at most half each,
 *       and what is left by the next level up ({@link #carried}). Tenants of equal or higher priority are
 *       never touched. When every candidate is at its floor, the protected tenant is out of capacity. A miss the source places
 *       on servers, with every candidate's work per server known, is cut from the lowest level that
 *       worked there instead, each tenant in proportion to its work there ({@link #attribute}).</li>
 *   <li><b>Give back, highest priority first</b>, when every protected tenant above a squeezed
 *       tenant either idled for {@link #CALM_PERIODS} periods in a row or has two or more periods at
 *       the limits in force whose mean headroom is confidently above what it needs (no miss in the
 *       period). The highest-priority squeezed level is raised by the headroom the evidence shows
 *       above what is needed (within [1, {@link #MOST_GIVE_BACK}]; {@link #GIVE_BACK} for an idle
 *       tenant), up to its ceiling. A raise within the standard error of that evidence is noise and
 *       is not made: the limits stay and their record grows. Under its roof (the load at which it was
 *       last squeezed) each raise goes at most halfway to it, geometrically, and none closer than
 *       {@link #BRACKET}, until {@link #FORGET_VIOLATION_AFTER} periods pass without a squeeze; then it probes with
 *       half a step. A limit that hurt is not retried at once: give-backs and cuts bisect toward the
 *       highest limit that does not hurt.</li>
 * </ol>
 */
public final class ProtectionLaw {
  public static final double MARGIN = 0.8;
  /** Periods in a row a protected tenant idles before the limits below it are given back for it. */
  public static final int CALM_PERIODS = 3;
  /** The share of periods in which an objective may miss: the policy holds each limit where at most this many do. */
  public static final double MISS_BUDGET = 0.10;
  /** The standard normal quantile of 1 - {@link #MISS_BUDGET}. */
  static final double Z = 1.2816;
  /** The share of periods the law aims to miss: half the budget, so that a run of periods keeps within the budget. */
  public static final double AIM = MISS_BUDGET / 2;
  /** The standard normal quantile of 1 - {@link #AIM}. */
  static final double Z_AIM = 1.6449;
  public static final double PRIOR_SIGMA = 0.2;
  static final double PRIOR_DF = 2;
  static final double POOL_DECAY = 0.9;
  static final double HEADROOM_CLIP = Math.log(4);
  /** The fewest periods on either side of a change in the world below that tell it from noise. */
  static final int RECENT = 2;
  /** Standard errors apart at which the recent periods say the world changed (the split is searched, so high). */
  static final double CHANGE_Z = 4;
  /**
   * Periods at the limits in force after which their record, not a confirmed miss, judges them: those in
   * which the budget allows one miss.
   */
  static final int JUDGED_AFTER = (int) Math.round(1 / MISS_BUDGET);
  /** Periods an epoch's record keeps. */
  static final int MAX_EPOCH = 100;
  public static final double DEEPEST_CUT = 0.5;
  public static final double SHALLOWEST_CUT = 0.9;
  public static final double GIVE_BACK = 1.25;
  public static final double MOST_GIVE_BACK = 1.5;
  /** How close under the limit that last hurt the give-backs stop (the bisection's resolution). */
  public static final double BRACKET = 1.1;
  /** A reading twice the bound (a cut of a half) is acted on at once, without a confirming period. */
  static final double GROSS = DEEPEST_CUT;
  public static final int FORGET_VIOLATION_AFTER = 10;
  /** The steepest elasticity of latency to load the law believes its measurements (see {@link Evidence#elasticity}). */
  static final double STEEPEST = 4;
  /**
   * Periods, past the wait told, that a change whose tenants still use about what they used before it is
   * taken as not in force yet. A guard: a cut HBase does not enforce (a tenant it exempts), or a raise a
   * tenant does not use (it asks for no more), leaves the law judging again rather than waiting for ever.
   * Three periods cover an untold lag of one period on average seven times in eight.
   */
  static final int UNSEEN_AT_MOST = 3;
  /** A latency of ten minutes is no RPC's: a broken metric. */
  public static final double ABSURD_MILLIS = 600_000;

  public enum Verdict { MARGIN, IDLE, MET, VIOLATED, UNKNOWN }

  /**
   * One objective of a protected tenant and what was measured for it (NaN with a problem: unknown;
   * {@code idle}: the tenant did no such operation in the window).
   */
  public record Objective(String name, double boundMillis, double millis, String problem, boolean idle,
      Set<String> missedOn) {
    /**
     * @param missedOn the servers on which the reading was over the bound (empty: not known, or none)
     */
    public Objective {
      missedOn = missedOn == null ? Set.of()
          : Set.copyOf(missedOn.stream().filter(java.util.Objects::nonNull).toList());
    }

    public Objective(String name, double boundMillis, double millis, String problem, boolean idle) {
      this(name, boundMillis, millis, problem, idle, Set.of());
    }

    /** An objective whose reading is 0 exactly when the tenant was idle. */
    public Objective(String name, double boundMillis, double millis, String problem) {
      this(name, boundMillis, millis, problem, millis == 0);
    }

    public Verdict verdict() {
      if (problem != null || Double.isNaN(millis) || Double.isInfinite(millis) || millis < 0 || millis > ABSURD_MILLIS) {
        return Verdict.UNKNOWN;
      }
      if (idle) {
        return Verdict.IDLE;
      }
      if (millis > boundMillis) {
        return Verdict.VIOLATED;
      }
      return millis < MARGIN * boundMillis ? Verdict.MARGIN : Verdict.MET;
    }

    /** Why the reading is unknown, in words. */
    public String why() {
      if (problem != null) {
        return problem;
      }
      return "an absurd reading (" + millis + " ms)";
    }
  }

  public record Protected(String id, int priority, List<Objective> objectives) {}

  /**
   * A tenant the operator may slow down.
   *
   * @param limit its limit in force (req/sec)
   * @param used what it used in the last period, in the limit's units (NaN: unknown)
   * @param roof the load at which it was last squeezed: the lower of its limit and what it used (0: none known)
   * @param inForce the limit HBase holds for it: this law's, or lower when another loop (calibration) holds it
   *     lower; a squeeze starts from it, or it would not bite
   * @param usedOn what it used in the last period on each server (empty: not known per server)
   */
  public record Sheddable(String id, int priority, long floor, long ceiling, long limit, double used,
      long roof, long inForce, Map<String, Double> usedOn) {
    public Sheddable {
      Map<String, Double> known = new HashMap<>();
      if (usedOn != null) {
        usedOn.forEach((server, use) -> {
          if (server != null && use != null) {
            known.put(server, use);
          }
        });
      }
      usedOn = Map.copyOf(known);
    }

    /** Whether what it did on each server is known: an entry per server, each a number. */
    boolean knownPerServer() {
      return !usedOn.isEmpty() && usedOn.values().stream().allMatch(u -> Double.isFinite(u) && u >= 0);
    }

    public Sheddable(String id, int priority, long floor, long ceiling, long limit, double used, long roof,
        long inForce) {
      this(id, priority, floor, ceiling, limit, used, roof, inForce, Map.of());
    }

    public Sheddable(String id, int priority, long floor, long ceiling, long limit, double used, long roof) {
      this(id, priority, floor, ceiling, limit, used, roof, limit);
    }

    /** Whether what it used in the last period is known (a number, not negative). */
    boolean useKnown() {
      return used >= 0;
    }

    /** The limit HBase holds: the lower of this law's and another loop's. */
    long held() {
      return Math.min(limit, inForce);
    }

    boolean canGive() {
      return held() > floor && (Double.isNaN(used) || used > floor);
    }
  }

  public enum Action { FREE, SQUEEZED, HELD, RELEASED, FROZEN }

  /** A sheddable tenant's limit after the period, and why. */
  public record Cap(long limit, Action action, List<String> heldBy, String reason, long roof) {}

  /** A protected tenant after the period. */
  public record Standing(Verdict verdict, List<String> holding, boolean outOfCapacity, boolean nothingBelow) {}

  public record Decision(Map<String, Cap> caps, Map<String, Standing> standings) {}

  /**
   * What the law remembers between periods: per sheddable tenant the calm periods in a row and the
   * periods since it was last squeezed; per protected tenant whether it was violated in each of the
   * last periods.
   */
  public static final class Memory {
    private final Map<String, Integer> calm = new HashMap<>();
    private final Map<String, Integer> quiet = new HashMap<>();
    private final Map<String, Integer> recentViolations = new HashMap<>();
    /** Per sheddable tenant: how many times a give-back past a forgotten roof ended in a squeeze (backs off). */
    private final Map<String, Integer> failedProbes = new HashMap<>();
    private final Map<String, Boolean> probing = new HashMap<>();
    /** Per protected tenant: the sheddable tenants below it in the last period and their limits. */
    private final Map<String, Map<String, Long>> below = new HashMap<>();
    private final Map<String, Evidence> evidence = new HashMap<>();
    private final Map<String, Integer> idle = new HashMap<>();
    /** Per protected tenant: the servers its last placed miss was on, for a squeeze its record asks for. */
    private final Map<String, Set<String>> placedOn = new HashMap<>();
    /** Per protected tenant: periods still to pass before the limits written below it are in force. */
    private final Map<String, Integer> unsettled = new HashMap<>();
    /** Per protected tenant: the last change below it only raised limits. */
    private final Map<String, Boolean> raised = new HashMap<>();
    /** Per protected tenant: the loads of the tenants below it in the last period. */
    private final Map<String, Map<String, Double>> loads = new HashMap<>();
    /** Per protected tenant: what each tenant below it used on each server in the last period (where known). */
    private final Map<String, Map<String, Map<String, Double>>> loadsOn = new HashMap<>();
    /** Per protected tenant: the limits below it before its last change. */
    private final Map<String, Map<String, Long>> from = new HashMap<>();
    /** Per protected tenant: the tenants below it whose load its last change should move, not yet seen moved. */
    private final Map<String, Map<String, Pending>> pending = new HashMap<>();
    /** Per protected tenant: periods its last change was measured not in force, past the wait told. */
    private final Map<String, Integer> unseen = new HashMap<>();
    /**
     * Per sheddable tenant: periods, from the next, still measured (partly) under the limit before the one
     * resumed from status (a restarted loop did not see the change); taken by the next step.
     */
    private final Map<String, Integer> resumed = new HashMap<>();

    /**
     * A limit resumed from status was written lately: {@code periods} periods, the next step's first, may
     * still be measured (partly) under the limit before it (HBase enforces a write at its quota refresh),
     * so a protected tenant above it whose first period this memory sees waits as long as after a change
     * it saw. Nothing else of the change is known (neither the limit before nor the load before it), so
     * the wait ends only when it runs out, or the next change starts its own.
     */
    public void resume(String sheddable, int periods) {
      if (periods > 0) {
        resumed.merge(sheddable, periods, Math::max);
      }
    }

    Evidence evidence(String protectedId) {
      return evidence.computeIfAbsent(protectedId, k -> new Evidence());
    }

    /**
     * Forgets what it remembers of a tenant that left the loop (deleted, or its qos taken out), as
     * sheddable and as protected tenant: a tenant of that name that comes back starts afresh. The
     * sets of tenants below the others keep it, so their next period sees that it left.
     */
    public void forget(String id) {
      perTenant().forEach(m -> m.remove(id));
    }

    /** Whether it remembers anything of the tenant, as sheddable or as protected tenant. */
    boolean remembers(String id) {
      return perTenant().stream().anyMatch(m -> m.containsKey(id));
    }

    /** Everything it keeps per tenant, by the tenant's id. */
    private List<Map<String, ?>> perTenant() {
      return List.of(calm, quiet, recentViolations, failedProbes, probing, below, evidence, idle, placedOn, unsettled,
          raised, loads, loadsOn, pending, unseen, from, resumed);
    }

    int forgetAfter(String sheddable) {
      return FORGET_VIOLATION_AFTER << Math.min(3, failedProbes.getOrDefault(sheddable, 0));
    }

    public int calm(String sheddable) {
      return calm.getOrDefault(sheddable, 0);
    }

    int quiet(String sheddable) {
      return quiet.getOrDefault(sheddable, 0); // a roof from status (a restart) is as fresh as it can be
    }
  }

  private ProtectionLaw() {}

  public static Verdict worst(Protected p) {
    Verdict w = Verdict.MARGIN;
    for (Objective o : p.objectives()) {
      Verdict v = o.verdict();
      if (v == Verdict.VIOLATED || w == Verdict.VIOLATED) {
        w = Verdict.VIOLATED; // a violated reading is evidence, whatever the others say
      } else if (v.ordinal() > w.ordinal()) {
        w = v;
      }
    }
    return w;
  }

  /** bound/reading of the worst violated objective (1 when none is violated). */
  static double overshoot(Protected p) {
    double f = 1;
    for (Objective o : p.objectives()) {
      if (o.verdict() == Verdict.VIOLATED) {
        f = Math.min(f, o.boundMillis() / o.millis());
      }
    }
    return f;
  }

  /**
   * How deep the tenant asks for the cut: to bring its mean reading at the limits in force (with
   * fewer than two periods recorded there, this period's worst reading) to the level at which at most
   * {@link #AIM} of periods miss (the bound less the headroom its spread needs), taking the latency
   * to fall in proportion to the load, or as steeply as {@link Evidence#elasticity} measured; within
   * [{@link #DEEPEST_CUT}, {@link #SHALLOWEST_CUT}].
   */
  static double cut(Protected p, Evidence e) {
    // the readings at the limits in force, this miss among them, say how far they are from the aim; one
    // reading alone says it with the whole noise of a period
    double f = Math.exp(((e.periods() >= 2 ? e.mean() : Math.log(overshoot(p))) - e.needed()) / e.elasticity());
    return Math.max(DEEPEST_CUT, Math.min(SHALLOWEST_CUT, f));
  }

  /**
   * How much the tenant's evidence lets the limits below it rise: by the headroom it has, confidently,
   * above what it needs (the latency taken to rise in proportion to the load, or as steeply as
   * {@link Evidence#elasticity} measured), within [1, {@link #MOST_GIVE_BACK}]; none (1) when that
   * raise, as a factor of the limit, is under exp(standard error of the record);
   * {@link #GIVE_BACK} for a tenant that idles.
   */
  static double raise(Evidence e, boolean idle) {
    if (idle) {
      return GIVE_BACK;
    }
    double elasticity = e.elasticity();
    double up = Math.exp((e.mean() - e.se() - e.needed()) / elasticity);
    // a raise within the standard error of the evidence it rests on is noise: measure on instead
    // (the raise as a factor of the limit, against exp(se): a move of the limits smaller than the record's own
    // uncertainty gains less than the record it restarts)
    return up < Math.exp(e.se()) ? 1 : Math.min(MOST_GIVE_BACK, up);
  }

  /**
   * ln(bound/reading) of the tenant's worst objective, within ±ln 4; null when it was idle or a
   * reading is unknown.
   */
  static Double headroom(Protected p) {
    Double h = null;
    for (Objective o : p.objectives()) {
      Verdict v = o.verdict();
      if (v == Verdict.UNKNOWN) {
        return null;
      }
      if (v != Verdict.IDLE) {
        double x = o.millis() <= 0 ? HEADROOM_CLIP : Math.log(o.boundMillis() / o.millis());
        x = Math.max(-HEADROOM_CLIP, Math.min(HEADROOM_CLIP, x));
        h = h == null ? x : Math.min(h, x);
      }
    }
    return h;
  }

  public static Decision step(List<Protected> protecteds, List<Sheddable> declared, Memory memory) {
    return step(protecteds, declared, memory, 0);
  }

  /**
   * One period.
   *
   * @param inForceAfter whole periods, beyond the one after a write, before a written limit is in force on
   *     every server (0 when HBase reloads its quotas on a write, since 2.6.3; twice its quota refresh
   *     period over the loop's period, rounded up, before): the periods measured meanwhile are measured under the
   *     old limits, and count for nothing
   */
  public static Decision step(List<Protected> protecteds, List<Sheddable> declared, Memory memory, int inForceAfter) {
    return step(protecteds, declared, memory, inForceAfter, true);
  }

  /**
   * One step, at a period's end or before it.
   *
   * @param periodEnd whether the step is at or after its period's scheduled end; a step before it (the
   *     members changed) does not count toward the wait for a written limit to be in force
   */
  public static Decision step(List<Protected> protecteds, List<Sheddable> declared, Memory memory, int inForceAfter,
      boolean periodEnd) {
    // a limit outside [floor, ceiling] (the spec changed) comes back inside first
    List<Sheddable> sheddables = declared.stream().map(s -> new Sheddable(s.id(), s.priority(), s.floor(), s.ceiling(),
        Math.max(s.floor(), Math.min(s.ceiling(), s.limit())), s.used(), s.roof(), s.inForce(), s.usedOn())).toList();
    Map<String, Stance> stances = judge(protecteds, sheddables, memory, Math.max(0, inForceAfter), periodEnd);
    memory.resumed.clear(); // a resumed wait is the first period's, for the tenants above then
    Squeezes squeezes = squeeze(protecteds, sheddables, stances, memory);
    Map<String, Cap> caps = new LinkedHashMap<>(squeezes.caps());
    holdOrGiveBack(protecteds, sheddables, stances, caps, squeezes.holding(), memory);
    return new Decision(caps, standings(protecteds, sheddables, stances, caps, squeezes));
  }

  /**
   * What one protected tenant's period says, before any limit moves (rules 1 to 4).
   *
   * @param measuring the limits below it changed in the period, or are not in force on every server
   *     yet: it was measured (partly) under the old ones, so it neither acts nor counts
   * @param squeezes it asks for a squeeze: a gross or confirmed miss, or a record over budget
   * @param calm the limits below it may rise for it: idle for {@link #CALM_PERIODS} periods, or met with
   *     confident headroom at the limits in force
   * @param raise how far it lets them rise in one period (within [1, {@link #MOST_GIVE_BACK}])
   * @param changed the limits below it changed in this period (not only waited for)
   * @param waitEnded why a wait told for HBase's refresh ended in this period, before its time (null: it did not)
   */
  record Stance(Verdict verdict, boolean measuring, boolean squeezes, boolean calm, double raise, boolean changed,
      WaitEnded waitEnded) {
    Stance(Verdict verdict, boolean measuring, boolean squeezes, boolean calm, double raise) {
      this(verdict, measuring, squeezes, calm, raise, false, null);
    }
  }

  /** Why a wait told ended early: the loads per server show the change in force, or none presses against it. */
  enum WaitEnded { SHOWN_IN_FORCE, PRESSED_NOWHERE }

  /** Phase 1: each protected tenant's verdict and stance; its evidence, idle count and recent misses move on. */
  private static Map<String, Stance> judge(List<Protected> protecteds, List<Sheddable> sheddables, Memory memory,
      int inForceAfter, boolean periodEnd) {
    Map<String, Stance> stances = new LinkedHashMap<>();
    for (Protected p : protecteds) {
      Verdict verdict = worst(p);
      Map<String, Long> now = new HashMap<>();
      below(p, sheddables).forEach(s -> now.put(s.id(), s.limit()));
      Map<String, Long> before = memory.below.put(p.id(), now);
      if (before != null && !before.keySet().equals(now.keySet())) {
        // other tenants below (or none before): what was measured says nothing of the limits of these, nor of
        // the spread at fixed limits (the ones it saw, a user's static throttles, may have moved unseen)
        memory.evidence.remove(p.id());
        memory.recentViolations.remove(p.id());
        memory.placedOn.remove(p.id());
      }
      boolean changed = before != null && !before.equals(now);
      // the period after a change, and those until a write is in force on every server, were measured (partly)
      // under the old limits
      int waiting = memory.unsettled.getOrDefault(p.id(), 0);
      if (before == null) {
        // its first period here: a limit below it resumed from status may still be waiting for HBase's refresh
        waiting = Math.max(waiting, below(p, sheddables).mapToInt(s -> memory.resumed.getOrDefault(s.id(), 0)).max()
            .orElse(0));
      }
      int unsettled = changed ? inForceAfter + 1 : waiting;
      // the wait is counted in periods: a step before its period's end (the members changed) takes none of it,
      // except the period a change makes count for nothing
      memory.unsettled.put(p.id(), Math.max(0, unsettled - (changed || periodEnd ? 1 : 0)));
      if (changed) {
        // only raised, the same tenants below (one that joins may lose load as its first limit lands), and
        // nothing lowered before it still to come into force
        boolean raised = before.keySet().equals(now.keySet()) && now.entrySet().stream()
            .allMatch(x -> x.getValue() >= before.get(x.getKey()));
        memory.raised.put(p.id(), raised && (waiting == 0 || Boolean.TRUE.equals(memory.raised.get(p.id()))));
        memory.pending.put(p.id(), Pending.of(before, now, memory.loads.getOrDefault(p.id(), Map.of()),
            memory.loadsOn.getOrDefault(p.id(), Map.of())));
        memory.unseen.remove(p.id());
        memory.from.put(p.id(), before);
      }
      Map<String, Double> loadsNow = loads(below(p, sheddables).toList());
      memory.loads.put(p.id(), loadsNow);
      memory.loadsOn.put(p.id(), loadsOn(below(p, sheddables).toList()));
      // while a raise is not in force everywhere, a miss is still one: the load can only grow as it lands, so
      // the new limits will miss at least as badly. That period is judged and joins their record (a reading
      // that met the bound then says nothing of them, and the others wait on)
      boolean missAfterRaising = verdict == Verdict.VIOLATED && Boolean.TRUE.equals(memory.raised.get(p.id()));
      boolean missWhileRaising = unsettled > 0 && !changed && missAfterRaising;
      if (missWhileRaising) {
        unsettled = 0;
      }
      // a wait told ends early once the loads show the change in force on every server where it binds: this
      // period was measured partly under the old limits (the change landed in it, or before), the next is not;
      // or once no tenant's load presses against the limits the change moved: whichever is in force, the
      // periods measure the same world
      WaitEnded waitEnded = null;
      if (periodEnd && unsettled > 0 && memory.unsettled.get(p.id()) > 0 && !missWhileRaising) {
        waitEnded = shownInForce(p, sheddables, memory) ? WaitEnded.SHOWN_IN_FORCE
            : pressesNowhere(p, sheddables, memory) ? WaitEnded.PRESSED_NOWHERE : null;
        if (waitEnded != null) {
          memory.unsettled.put(p.id(), 0);
          memory.pending.remove(p.id());
        }
      }
      // a change the loads below say is not in force yet waits too; but a miss after only raises is judged
      // as above, in force or not
      if (unsettled == 0 && !changed && !missAfterRaising && notSeenInForce(p, sheddables, memory)) {
        unsettled = 1;
      }
      Evidence e = memory.evidence(p.id());
      boolean idle = verdict == Verdict.IDLE;
      int idleFor = idle ? memory.idle.getOrDefault(p.id(), 0) + 1 : 0;
      memory.idle.put(p.id(), idleFor);
      if (changed) {
        e.newEpoch();
        // a miss confirms another only at the same limits
        memory.recentViolations.remove(p.id());
      }
      if (unsettled > 0) {
        stances.put(p.id(), new Stance(verdict, true, false, idleFor >= CALM_PERIODS, GIVE_BACK, changed, waitEnded));
        continue;
      }
      Double h = headroom(p);
      if (h != null) {
        e.add(h, loadsNow);
      }
      if (verdict == Verdict.VIOLATED) {
        // where this miss was, for a squeeze the record asks for later in a period without one
        List<Objective> missed = p.objectives().stream().filter(o -> o.verdict() == Verdict.VIOLATED).toList();
        // every miss placed: a missed Prometheus objective names no server, and may be what sizes the cut
        if (missed.stream().noneMatch(o -> o.missedOn().isEmpty())) {
          memory.placedOn.put(p.id(), missed.stream().flatMap(o -> o.missedOn().stream())
              .collect(java.util.stream.Collectors.toCollection(TreeSet::new)));
        } else {
          memory.placedOn.remove(p.id());
        }
      }
      // a violation is acted on when it is gross or confirmed (one of the two measured periods before was
      // violated too), and the limits are cut when their periods miss more often than the budget allows
      int bits = memory.recentViolations.getOrDefault(p.id(), 0);
      boolean v = verdict == Verdict.VIOLATED;
      // a gross miss is acted on at once unless the limits in force have a record that makes it an outlier
      boolean gross = overshoot(p) <= GROSS && e.periods() < 3;
      // a confirmed miss is acted on while the limits in force are too new to be judged by their record: past
      // the periods in which the budget allows a miss, two close misses are what the budget expects now and
      // then, and the record decides (over budget, or a change in the world restarts the epoch)
      boolean confirmed = (bits & 3) != 0 && !e.judgedByRecord();
      boolean squeezes = v && (confirmed || gross) || verdict != Verdict.UNKNOWN && e.overBudget();
      memory.recentViolations.put(p.id(), ((bits << 1) | (v ? 1 : 0)) & 3);
      double raise = raise(e, idle);
      boolean calm = idle ? idleFor >= CALM_PERIODS : !v && verdict != Verdict.UNKNOWN && e.underBudget() && raise > 1;
      stances.put(p.id(), new Stance(verdict, false, squeezes, calm, raise));
    }
    return stances;
  }

  /**
   * A tenant whose load a change should move: what it used in the period before the change (in all, and
   * on each server where known), the limit before and the limit written. A cut moves it when the new limit
   * is under that load; a raise when the load was held by the old limit (within half the raise of it, in
   * ln). On a server the same holds of what it used there (a RegionServer enforces the limit on what it
   * serves).
   */
  record Pending(double loadBefore, long old, long limit, Map<String, Double> loadBeforeOn) {
    static Map<String, Pending> of(Map<String, Long> before, Map<String, Long> now, Map<String, Double> loads,
        Map<String, Map<String, Double>> loadsOn) {
      Map<String, Pending> out = new HashMap<>();
      now.forEach((id, limit) -> {
        Long old = before.get(id);
        Double load = loads.get(id);
        if (old == null || old.equals(limit) || load == null || !(load > 0)) {
          return;
        }
        if (moves(load, old, limit)) {
          out.put(id, new Pending(load, old, limit, loadsOn.getOrDefault(id, Map.of())));
        }
      });
      return out;
    }

    /** Whether a change from {@code old} to {@code limit} moves a load of {@code load}. */
    static boolean moves(double load, long old, long limit) {
      return limit < old ? limit < load : Math.abs(Math.log(load / old)) < Math.log((double) limit / old) / 2;
    }

    /** Whether {@code used} is still nearer the load before the change than the new limit (in ln). */
    boolean notSeen(double used) {
      return notSeen(loadBefore, used);
    }

    private boolean notSeen(double before, double used) {
      return Double.isFinite(used) && used > 0
          && Math.abs(Math.log(used / before)) < Math.abs(Math.log(limit / before)) / 2;
    }

    /**
     * Whether what the tenant used on each server shows the change in force on every server where it binds
     * (the same servers as before it, each known, at least one bound): false when that is not known.
     */
    boolean shownOn(Map<String, Double> usedOn) {
      if (loadBeforeOn.isEmpty() || !loadBeforeOn.keySet().equals(usedOn.keySet())) {
        return false;
      }
      boolean binds = false;
      for (var e : loadBeforeOn.entrySet()) {
        double before = e.getValue();
        if (!(before > 0) || !moves(before, old, limit)) {
          continue;
        }
        binds = true;
        double used = usedOn.get(e.getKey());
        if (!(used >= 0) || notSeen(before, used)) {
          return false;
        }
      }
      return binds;
    }
  }

  /**
   * Whether every tenant below {@code p} whose load its last change should move shows it in force on every
   * server where it binds, by what it used on each ({@link Pending#shownOn}). False with nothing pending.
   */
  private static boolean shownInForce(Protected p, List<Sheddable> sheddables, Memory memory) {
    Map<String, Pending> moving = memory.pending.get(p.id());
    if (moving == null || moving.isEmpty()) {
      return false;
    }
    Map<String, Sheddable> byId = new HashMap<>();
    below(p, sheddables).forEach(s -> byId.put(s.id(), s));
    return moving.entrySet().stream().allMatch(e -> byId.containsKey(e.getKey())
        && byId.get(e.getKey()).knownPerServer() && e.getValue().shownOn(byId.get(e.getKey()).usedOn()));
  }

  /**
   * Whether the last change below {@code p} is not in force yet by the loads it should move: a tenant cut
   * under what it used, or raised from a limit that held it, still uses about what it used before
   * (nearer that than its new limit), for at most {@link #UNSEEN_AT_MOST} periods. Once every such
   * tenant's load moved, or that many periods passed, the change is taken as in force and not asked
   * about again.
   */
  private static boolean notSeenInForce(Protected p, List<Sheddable> sheddables, Memory memory) {
    Map<String, Pending> moving = memory.pending.get(p.id());
    if (moving == null || moving.isEmpty()) {
      return false;
    }
    int waited = memory.unseen.getOrDefault(p.id(), 0);
    boolean notSeen = waited < UNSEEN_AT_MOST
        && below(p, sheddables).anyMatch(s -> moving.containsKey(s.id()) && moving.get(s.id()).notSeen(s.used()));
    if (notSeen) {
      memory.unseen.put(p.id(), waited + 1);
    } else {
      memory.pending.remove(p.id());
    }
    return notSeen;
  }

  /**
   * Whether no tenant whose limit the last change below {@code p} moved presses against either limit: each
   * used, this period, less than the lower of the two by more than half the change (in ln), as it would
   * under any limit between them. A cut made before a tenant's use was known (sized from its limit) may
   * land above what it uses: there is nothing to wait for. False when a use is not known.
   */
  private static boolean pressesNowhere(Protected p, List<Sheddable> sheddables, Memory memory) {
    Map<String, Long> from = memory.from.get(p.id());
    if (from == null) {
      return false;
    }
    boolean moved = false;
    for (Sheddable s : below(p, sheddables).toList()) {
      Long old = from.get(s.id());
      if (old == null || old == s.limit()) {
        continue;
      }
      moved = true;
      double half = Math.abs(Math.log((double) s.limit() / old)) / 2;
      if (!s.useKnown() || s.used() >= Math.min(old, s.limit()) * Math.exp(-half)) {
        return false;
      }
    }
    return moved;
  }

  /** What each sheddable tenant used on each server, for those known per server. */
  static Map<String, Map<String, Double>> loadsOn(List<Sheddable> below) {
    Map<String, Map<String, Double>> out = new HashMap<>();
    below.stream().filter(Sheddable::knownPerServer).forEach(s -> out.put(s.id(), s.usedOn()));
    return out;
  }

  /** Each sheddable tenant's load: what it used, within the limit HBase holds (that limit when not known). */
  static Map<String, Double> loads(List<Sheddable> below) {
    Map<String, Double> out = new HashMap<>();
    for (Sheddable s : below) {
      double used = s.used();
      out.put(s.id(), s.useKnown() ? Math.min(used, s.held()) : s.held());
    }
    return out;
  }

  /** The sheddable tenants a protected tenant may squeeze: those of lower priority. */
  private static java.util.stream.Stream<Sheddable> below(Protected p, List<Sheddable> sheddables) {
    return sheddables.stream().filter(s -> s.priority() < p.priority() && !s.id().equals(p.id()));
  }

  /** The protected tenants a sheddable tenant may be squeezed for: those of higher priority. */
  private static List<Protected> above(Sheddable s, List<Protected> protecteds) {
    return protecteds.stream().filter(p -> p.priority() > s.priority() && !p.id().equals(s.id())).toList();
  }

  /**
   * What phase 2 decided: the squeezed tenants' caps, which tenants each protected tenant squeezed,
   * and the protected tenants that asked for a squeeze with nobody below left to give.
   */
  private record Squeezes(Map<String, Cap> caps, Map<String, List<String>> holding, Set<String> outOfCapacity) {}

  /**
   * Phase 2 (rule 5): each protected tenant that asks for a squeeze, most important first, cuts the
   * lowest priority level below it that can still give, and the next level up by what that one cannot
   * give above its floors ({@link #carried}), or, for a placed miss, the tenants of the lowest level
   * that worked there, in proportion ({@link #attribute}); a tenant asked by several takes the deepest
   * cut.
   */
  private static Squeezes squeeze(List<Protected> protecteds, List<Sheddable> sheddables, Map<String, Stance> stances,
      Memory memory) {
    List<Protected> violated = protecteds.stream().filter(p -> stances.get(p.id()).squeezes())
        .sorted(Comparator.comparingInt(Protected::priority).reversed()).toList();
    Map<String, Double> cutOf = new HashMap<>();
    Map<String, List<String>> causes = new HashMap<>();
    Map<String, List<String>> whys = new HashMap<>();
    Set<String> outOfCapacity = new HashSet<>();
    for (Protected p : violated) {
      List<Sheddable> below = below(p, sheddables).toList();
      if (below.stream().noneMatch(Sheddable::canGive)) {
        outOfCapacity.add(p.id());
        continue;
      }
      double f = cut(p, memory.evidence(p.id()));
      Attribution a = attribute(p, below, memory.placedOn.get(p.id()));
      Map<String, Double> carried = a.servers().isEmpty() ? carried(f, below) : null;
      int lowest = below.stream().filter(Sheddable::canGive).mapToInt(Sheddable::priority).min().orElseThrow();
      Map<String, Double> factors = new LinkedHashMap<>();
      if (carried != null) {
        factors.putAll(carried);
      } else {
        // the tenant that did the most of that work takes the whole cut, the others in proportion
        a.shares().forEach((id, share) -> factors.put(id, 1 - (1 - f) * share));
      }
      Map<String, Integer> priorityOf = new HashMap<>();
      below.forEach(s -> priorityOf.put(s.id(), s.priority()));
      for (var e : factors.entrySet()) {
        // a cut shallower than the shallowest the law makes is none
        double fi = e.getValue();
        if (fi > SHALLOWEST_CUT + 1e-9) {
          continue;
        }
        cutOf.merge(e.getKey(), fi, Math::min);
        causes.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(p.id());
        whys.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(!a.servers().isEmpty()
            ? String.format(java.util.Locale.ROOT, "%s, missed on %s, where it did %.0f%% of the work of the "
                + "tenants of its priority", p.id(), String.join(" and ", a.servers()), 100 * a.work().get(e.getKey()))
            : priorityOf.get(e.getKey()) > lowest ? p.id() + ", for what the tenants of lower priority could not give"
            : p.id());
      }
    }
    Map<String, Cap> caps = new LinkedHashMap<>();
    Map<String, List<String>> holding = new HashMap<>();
    for (Sheddable s : sheddables) {
      Double f = cutOf.get(s.id());
      if (f == null) {
        continue;
      }
      // from the limit HBase holds (a calibrated limit under this law's would otherwise make the cut a no-op)
      long from = s.held();
      double base = s.used() > 0 ? Math.min(from, s.used()) : from;
      long next = Math.max(s.floor(), Math.min(from - 1, Math.round(base * f)));
      memory.calm.put(s.id(), 0);
      memory.quiet.put(s.id(), 0);
      if (Boolean.TRUE.equals(memory.probing.remove(s.id()))) {
        memory.failedProbes.merge(s.id(), 1, Integer::sum);
      }
      List<String> by = causes.get(s.id());
      by.forEach(p -> holding.computeIfAbsent(p, k -> new ArrayList<>()).add(s.id()));
      String sizedBy = !s.useKnown() ? " (its use not known: cut from its limit)"
          : base < from ? String.format(java.util.Locale.ROOT, " (it used %.0f)", base) : "";
      String why = String.join(whys.get(s.id()).equals(by) ? ", " : "; ", whys.get(s.id()));
      caps.put(s.id(), new Cap(next, Action.SQUEEZED, by, "squeezed from " + from + " to " + next
          + " req/sec" + sizedBy + " for the latency of " + why,
          Math.max(next, Math.round(base))));
    }
    return new Squeezes(caps, holding, outOfCapacity);
  }

  /**
   * An unplaced cut: {@code 1 - f} of the load of the lowest priority level below that can give (what
   * its tenants used, within their limits) is taken from that level at one factor, no tenant cut deeper
   * than {@link #DEEPEST_CUT} nor under its floor, the others of its level making up for one held there.
   * What the level cannot give within those bounds is taken from the next level up in the same way, and
   * so on, unless a level would give less than a tenth of its load (a cut shallower than the shallowest
   * the law makes): the rest is then not taken. The factors are of what each tenant used. Null when the
   * use of a tenant below is not known (a table or namespace tenant, a first period): the lowest level
   * is then cut by {@code f}, as its whole cut.
   */
  static Map<String, Double> carried(double f, List<Sheddable> below) {
    if (below.stream().anyMatch(s -> !s.useKnown())) {
      return null;
    }
    Map<String, Double> load = loads(below);
    TreeMap<Integer, List<Sheddable>> levels = below.stream().filter(Sheddable::canGive).collect(
        java.util.stream.Collectors.groupingBy(Sheddable::priority, TreeMap::new, java.util.stream.Collectors.toList()));
    double rest = (1 - f) * levels.firstEntry().getValue().stream().mapToDouble(s -> load.get(s.id())).sum();
    Map<String, Double> out = new LinkedHashMap<>();
    boolean lowest = true;
    for (List<Sheddable> level : levels.values()) {
      // the least each tenant keeps this step: its floor, and half of what it used
      Map<String, Double> least = new HashMap<>();
      level.forEach(s -> least.put(s.id(), Math.max(s.floor(), DEEPEST_CUT * load.get(s.id()))));
      double sum = level.stream().mapToDouble(s -> load.get(s.id())).sum();
      double can = level.stream().mapToDouble(s -> Math.max(0, load.get(s.id()) - least.get(s.id()))).sum();
      double gives = Math.min(rest, can);
      if (rest <= 0 || !lowest && gives < (1 - SHALLOWEST_CUT) * sum) {
        break;
      }
      // one factor for the level; a tenant it would take under the least it keeps is held there
      List<Sheddable> free = new ArrayList<>(level);
      double keep = sum - gives;
      double g = 1;
      for (boolean pinned = true; pinned && !free.isEmpty(); ) {
        double held = level.stream().filter(s -> !free.contains(s)).mapToDouble(s -> least.get(s.id())).sum();
        double freeLoad = free.stream().mapToDouble(s -> load.get(s.id())).sum();
        double factor = freeLoad > 0 ? (keep - held) / freeLoad : 1;
        pinned = free.removeIf(s -> load.get(s.id()) * factor < least.get(s.id()));
        g = factor;
      }
      for (Sheddable s : level) {
        double l = load.get(s.id());
        double factor = free.contains(s) ? g : least.get(s.id()) / l;
        // at the lowest level a tenant cut to its floor goes there, however little that is (else one just above its
        // floor would keep the level above from ever giving)
        out.put(s.id(), lowest && l * factor <= s.floor() + 1e-6 ? 0 : factor);
      }
      rest -= gives;
      lowest = false;
    }
    return out;
  }

  /**
   * Whom a protected tenant's squeeze falls on, and how hard (1: the whole cut).
   *
   * @param servers the servers the miss was placed on (empty: not placed, the whole level is cut)
   * @param shares per tenant cut, its work on those servers over the most any of them did there
   * @param work per tenant cut, its share of the work on those servers of the tenants of that level that can give
   */
  record Attribution(List<String> servers, Map<String, Double> shares, Map<String, Double> work) {}

  /**
   * Rule 5's tenants. Where the source places the miss (the servers on which each missed reading was
   * over the bound; for a squeeze the record asks for in a period without a miss, where the last
   * placed miss was) and knows what every tenant below that can give did on each server, the squeeze
   * falls on the lowest priority level that worked there, on each tenant in proportion to its work
   * there: the one that did the most takes the whole cut, one that did none is spared. Otherwise
   * (a source that reads no server, such as a Prometheus query; a tenant whose work per server is
   * not known; nobody below working where the miss was, as when the harm comes through a shared
   * host) every tenant of the lowest level that can give takes the whole cut.
   */
  static Attribution attribute(Protected p, List<Sheddable> below, Set<String> placedOn) {
    List<Sheddable> can = below.stream().filter(Sheddable::canGive).toList();
    // where judge() placed this period's miss, or the last one for a squeeze the record asks for without one
    // (null: not placed)
    TreeSet<String> servers = placedOn == null ? new TreeSet<>() : new TreeSet<>(placedOn);
    boolean placed = placedOn != null;
    // and every candidate's work per server known
    if (placed && can.stream().allMatch(Sheddable::knownPerServer)) {
      TreeSet<Integer> levels = new TreeSet<>();
      Map<String, Double> there = new HashMap<>();
      for (Sheddable s : can) {
        double w = servers.stream().mapToDouble(x -> s.usedOn().getOrDefault(x, 0.0)).sum();
        there.put(s.id(), w);
        if (w > 0) {
          levels.add(s.priority());
        }
      }
      if (!levels.isEmpty()) {
        int level = levels.first();
        List<Sheddable> at = can.stream().filter(s -> s.priority() == level).toList();
        double most = at.stream().mapToDouble(s -> there.get(s.id())).max().orElse(0);
        double all = at.stream().mapToDouble(s -> there.get(s.id())).sum();
        Map<String, Double> shares = new LinkedHashMap<>();
        Map<String, Double> work = new LinkedHashMap<>();
        for (Sheddable s : at) {
          if (there.get(s.id()) > 0) {
            shares.put(s.id(), there.get(s.id()) / most);
            work.put(s.id(), there.get(s.id()) / all);
          }
        }
        return new Attribution(List.copyOf(servers), shares, work);
      }
    }
    int level = can.stream().mapToInt(Sheddable::priority).min().orElseThrow();
    Map<String, Double> shares = new LinkedHashMap<>();
    can.stream().filter(s -> s.priority() == level).forEach(s -> shares.put(s.id(), 1.0));
    return new Attribution(List.of(), shares, Map.of());
  }

  /**
   * Phase 3 (rules 2 and 6): every tenant not squeezed is frozen under an unknown reading above it,
   * free at its ceiling, given back (the highest priority level whose protected tenants above are all
   * calm, one level a period, bisecting under its roof), or held, with the reason in words.
   */
  private static void holdOrGiveBack(List<Protected> protecteds, List<Sheddable> sheddables,
      Map<String, Stance> stances, Map<String, Cap> caps, Map<String, List<String>> holding, Memory memory) {
    Integer releaseLevel = null;
    Map<String, Protected> frozenBy = new HashMap<>();
    Map<String, List<Protected>> aboveOf = new HashMap<>();
    for (Sheddable s : sheddables) {
      if (caps.containsKey(s.id())) {
        continue;
      }
      List<Protected> above = above(s, protecteds);
      aboveOf.put(s.id(), above);
      memory.quiet.put(s.id(), memory.quiet(s.id()) + 1);
      Protected unknown = above.stream().filter(p -> stances.get(p.id()).verdict() == Verdict.UNKNOWN).findFirst()
          .orElse(null);
      if (unknown != null) {
        memory.calm.put(s.id(), 0);
        frozenBy.put(s.id(), unknown);
        continue;
      }
      boolean calm = above.stream().allMatch(p -> stances.get(p.id()).calm());
      memory.calm.put(s.id(), calm ? memory.calm(s.id()) + 1 : 0);
      if (calm && s.limit() < s.ceiling()
          && (releaseLevel == null || s.priority() > releaseLevel)) {
        releaseLevel = s.priority();
      }
    }
    for (Sheddable s : sheddables) {
      if (caps.containsKey(s.id())) {
        continue;
      }
      List<String> above = aboveOf.get(s.id()).stream().map(Protected::id).toList();
      Protected p = frozenBy.get(s.id());
      if (p != null) {
        String why = p.objectives().stream().filter(o -> o.verdict() == Verdict.UNKNOWN).map(Objective::why)
            .findFirst().orElse("unknown");
        caps.put(s.id(), new Cap(s.limit(), s.limit() >= s.ceiling() ? Action.FREE : Action.FROZEN,
            s.limit() >= s.ceiling() ? List.of() : List.of(p.id()), "held at " + s.limit()
            + " req/sec: the latency of " + p.id() + " is not known (" + why + ")", s.roof()));
        continue;
      }
      if (s.limit() >= s.ceiling()) {
        caps.put(s.id(), new Cap(s.ceiling(), Action.FREE, List.of(), above.isEmpty()
            ? "no protected tenant of higher priority" : "at its ceiling", 0));
        continue;
      }
      int calm = memory.calm(s.id());
      int quiet = memory.quiet(s.id());
      int forget = memory.forgetAfter(s.id());
      boolean remembered = s.roof() > 0 && quiet < forget;
      // under a limit that hurt, each give-back goes at most halfway to it (geometrically), and none within
      // BRACKET of it: the limits bisect toward the highest one that does not hurt
      long roof = !remembered ? s.ceiling()
          : s.limit() * BRACKET < s.roof() ? Math.round(Math.sqrt((double) s.limit() * s.roof())) : s.limit();
      if (releaseLevel != null && s.priority() == releaseLevel && calm > 0 && roof > s.limit()) {
        // past a forgotten roof the give-back is a probe: half the step, and a squeeze after it backs off the next
        boolean probe = s.roof() > 0 && !remembered;
        double by = aboveOf.get(s.id()).stream().mapToDouble(x -> stances.get(x.id()).raise()).min()
            .orElse(GIVE_BACK);
        double up = probe ? 1 + (by - 1) / 2 : by;
        long next = Math.min(Math.min(s.ceiling(), roof), Math.max(s.limit() + 1, Math.round(s.limit() * up)));
        boolean free = next >= s.ceiling();
        if (probe) {
          memory.probing.put(s.id(), true);
        }
        caps.put(s.id(), new Cap(next, free ? Action.FREE : Action.RELEASED, free ? List.of() : above,
            (free ? "released to its ceiling " : "given back from " + s.limit() + " to ") + next + " req/sec after "
            + calm + " calm " + (calm == 1 ? "period" : "periods"), free ? 0 : s.roof()));
        continue;
      }
      caps.put(s.id(), new Cap(s.limit(), Action.HELD, above, whyHeld(s, aboveOf.get(s.id()), stances, holding, memory,
          calm, roof), s.roof()));
    }
  }

  /** Why a tenant that is neither squeezed, frozen, free nor given back holds its limit, in words. */
  private static String whyHeld(Sheddable s, List<Protected> above, Map<String, Stance> stances,
      Map<String, List<String>> holding, Memory memory, int calm, long roof) {
    String measuring = above.stream().map(Protected::id).filter(id -> stances.get(id).measuring()).findFirst()
        .orElse(null);
    Protected pending = above.stream().filter(x -> stances.get(x.id()).verdict() == Verdict.VIOLATED).findFirst()
        .orElse(null);
    // a pending change with periods counted: the last check found it not in force (a change, or the guard, clears them)
    if (measuring != null && memory.pending.containsKey(measuring) && memory.unseen.getOrDefault(measuring, 0) > 0) {
      return "held at " + s.limit() + " req/sec: the limits below " + measuring + " changed, and the tenants whose "
          + "load the change should move still use about what they used before it: HBase does not enforce it yet "
          + "(or, after a raise, they ask for no more), so this period was measured under the old limits";
    }
    if (measuring != null) {
      int left = memory.unsettled.getOrDefault(measuring, 0);
      return left > 0 ? "held at " + s.limit() + " req/sec: the limits below " + measuring + " changed, and HBase "
          + "enforces them on every RegionServer only at its quota refresh, up to two refresh periods after the write; "
          + left + " more " + (left == 1 ? "period passes" : "periods pass") + " before one measures them"
          : "held at " + s.limit() + " req/sec: the limits below " + measuring + (stances.get(measuring).waitEnded()
          != null ? (stances.get(measuring).waitEnded() == WaitEnded.SHOWN_IN_FORCE ? " are in force on every RegionServer where they bind, as the tenants' "
          + "loads there show, before the wait for HBase's quota refresh ran out" : " changed where no tenant's load "
          + "presses against them (each uses less than either limit), so the wait for HBase's quota refresh is not "
          + "needed") : stances.get(measuring).changed()
          ? " changed in the last period" : " are in force after HBase's quota refresh (two refresh periods)")
          + "; the next one measures them";
    }
    if (pending != null && holding.containsKey(pending.id())) {
      return "held at " + s.limit() + " req/sec: " + pending.id() + " missed its objective, and the squeeze fell on "
          + String.join(", ", holding.get(pending.id()));
    }
    if (pending != null) {
      Evidence record = memory.evidence(pending.id());
      return "held at " + s.limit() + " req/sec: " + pending.id() + " missed its objective in one period; "
          + (record.judgedByRecord() ? "the record of " + record.periods() + " periods at these limits judges them"
          : "a second miss squeezes");
    }
    if (calm == 0) {
      return "held at " + s.limit() + " req/sec: the objectives above it are not yet met with room to spare";
    }
    if (roof <= s.limit()) {
      return "held at " + s.limit() + " req/sec, close under the " + s.roof() + " req/sec that hurt: not given back "
          + "above until " + (memory.forgetAfter(s.id()) - memory.quiet(s.id())) + " more periods pass without a "
          + "squeeze";
    }
    return "held at " + s.limit() + " req/sec: a tenant of higher priority is given back first";
  }

  /** Phase 4: each protected tenant's standing: its verdict, the tenants held for it, whether capacity ran out. */
  private static Map<String, Standing> standings(List<Protected> protecteds, List<Sheddable> sheddables,
      Map<String, Stance> stances, Map<String, Cap> caps, Squeezes squeezes) {
    Map<String, Standing> standings = new LinkedHashMap<>();
    for (Protected p : protecteds) {
      boolean nothingBelow = below(p, sheddables).findAny().isEmpty();
      List<String> held = new ArrayList<>(squeezes.holding().getOrDefault(p.id(), List.of()));
      for (Sheddable s : sheddables) {
        Cap c = caps.get(s.id());
        if (c.action() != Action.SQUEEZED && c.action() != Action.FREE && c.heldBy().contains(p.id())
            && !held.contains(s.id())) {
          held.add(s.id());
        }
      }
      standings.put(p.id(), new Standing(stances.get(p.id()).verdict(), held,
          squeezes.outOfCapacity().contains(p.id()) && !nothingBelow, nothingBelow));
    }
    return standings;
  }
}
