package io.hbaseqos.operator.qos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 *       squeeze has not acted on yet). When the sheddable tenants below it change (one joins or
 *       leaves), its record and its recent misses are dropped: they were measured with other tenants
 *       below, or none, whose load may have moved in ways the law never saw.</li>
 *   <li><b>Evidence per limit.</b> Each measured period adds the headroom h = ln(bound / reading) of
 *       the tenant's worst objective to the evidence of the limits in force. The spread of h at
 *       fixed limits is measured and pooled over the recent limits ({@link Evidence}). A limit is
 *       over budget when more than {@link #MISS_BUDGET} of its periods miss (its mean headroom under
 *       z·spread, {@code budget}); the law aims at {@link #AIM} ({@code needed}), so that a run of
 *       periods, not only their average, keeps within the budget.</li>
 *   <li><b>Squeeze, lowest priority first</b>, when a violation is gross (twice the bound) on limits
 *       with fewer than three measured periods, when it is confirmed (one of the two measured
 *       periods before was violated too) on limits with fewer than {@link #JUDGED_AFTER} measured
 *       periods (past those, two close misses are what a limit within the budget shows now and then,
 *       and its record judges it), or when three or more periods at the limits in force say,
 *       with confidence, that more than the budget miss. The operator cuts the sheddable tenants of
 *       the lowest priority (below the protected tenant's) that can still give: limit above the
 *       floor and use above the floor. The cut brings the reading to the level of the aim,
 *       exp(h − needed) (the latency taken to fall in proportion to the load), and for
 *       limits over budget at most exp(mean h − needed), kept within [{@link #DEEPEST_CUT},
 *       {@link #SHALLOWEST_CUT}], applied to the lower of the limit and what the tenant used. Never
 *       below the floor. Tenants of equal or higher priority are never touched. When every
 *       candidate is at its floor, the protected tenant is out of capacity.</li>
 *   <li><b>Give back, highest priority first</b>, when every protected tenant above a squeezed
 *       tenant either idled for {@link #CALM_PERIODS} periods in a row or has two or more periods at
 *       the limits in force whose mean headroom is confidently above what it needs (no miss in the
 *       period). The highest-priority squeezed level is raised by the headroom the evidence shows
 *       above what is needed (within [1, {@link #MOST_GIVE_BACK}]; {@link #GIVE_BACK} for an idle
 *       tenant), up to its ceiling. Under its roof (the load at which it was last squeezed) each
 *       raise goes at most halfway to it, geometrically, and none closer than {@link #BRACKET},
 *       until {@link #FORGET_VIOLATION_AFTER} periods pass without a squeeze; then it probes with
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
  /** A latency of ten minutes is no RPC's: a broken metric. */
  public static final double ABSURD_MILLIS = 600_000;

  public enum Verdict { MARGIN, IDLE, MET, VIOLATED, UNKNOWN }

  /**
   * One objective of a protected tenant and what was measured for it (NaN with a problem: unknown;
   * {@code idle}: the tenant did no such operation in the window).
   */
  public record Objective(String name, double boundMillis, double millis, String problem, boolean idle) {
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
   */
  public record Sheddable(String id, int priority, long floor, long ceiling, long limit, double used,
      long roof, long inForce) {
    public Sheddable(String id, int priority, long floor, long ceiling, long limit, double used, long roof) {
      this(id, priority, floor, ceiling, limit, used, roof, limit);
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

    Evidence evidence(String protectedId) {
      return evidence.computeIfAbsent(protectedId, k -> new Evidence());
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

  /**
   * What a protected tenant's readings say about the limits in force: its headroom h = ln(bound /
   * reading) per period measured at unchanged limits (an epoch), and the spread of h within epochs,
   * pooled over the recent ones (older epochs fade by {@link #POOL_DECAY} each). Until spreads are
   * measured the spread is taken to be {@link #PRIOR_SIGMA}, worth {@link #PRIOR_DF} periods.
   *
   * <p>The world below a protected tenant is not only its limits: its own load, or a tenant of equal
   * priority, changes too. When the mean headroom of the epoch's last periods (at least {@link #RECENT})
   * departs from that of the periods before them (as many) by more than {@link #CHANGE_Z} standard
   * errors, the epoch restarts at the split that departs most: the
   * limits are judged by what they do now, not by a record of another world (a floor that missed for
   * many periods is given back once the protected tenant is calm again, and limits that were good
   * are cut once they miss steadily).
   */
  public static final class Evidence {
    /** The headrooms of the epoch, oldest first. */
    private final List<Double> hs = new ArrayList<>();
    private Moments epoch = Moments.NONE;
    private double pooledM2;
    private double pooledDf;

    void add(double h) {
      hs.add(h);
      if (hs.size() > MAX_EPOCH) {
        hs.remove(0);
      }
      // the split of the epoch whose recent part departs most from the older one, in standard errors of
      // the spread within the two parts (prefix sums: every split in one pass)
      int k = hs.size();
      double[] sum = new double[k + 1];
      double[] squares = new double[k + 1];
      for (int i = 0; i < k; i++) {
        sum[i + 1] = sum[i] + hs.get(i);
        squares[i + 1] = squares[i] + hs.get(i) * hs.get(i);
      }
      int split = 0;
      double most = CHANGE_Z;
      for (int at = RECENT; at <= k - RECENT; at++) {
        Moments older = Moments.of(at, sum[at], squares[at]);
        Moments recent = Moments.of(k - at, sum[k] - sum[at], squares[k] - squares[at]);
        double within = Math.sqrt((PRIOR_DF * PRIOR_SIGMA * PRIOR_SIGMA + pooledM2 + older.m2 + recent.m2)
            / (PRIOR_DF + pooledDf + older.n - 1 + recent.n - 1));
        double t = Math.abs(recent.mean - older.mean) / (within * Math.sqrt(1.0 / older.n + 1.0 / recent.n));
        if (t > most) {
          most = t;
          split = at;
        }
      }
      if (split > 0) {
        pool(Moments.of(split, sum[split], squares[split]));
        hs.subList(0, split).clear();
      }
      epoch = Moments.of(k - split, sum[k] - sum[split], squares[k] - squares[split]);
    }

    private void pool(Moments m) {
      pooledM2 = pooledM2 * POOL_DECAY + m.m2;
      pooledDf = pooledDf * POOL_DECAY + Math.max(0, m.n - 1);
    }

    void newEpoch() {
      pool(epoch);
      hs.clear();
      epoch = Moments.NONE;
    }

    /** The spread of a period's headroom at fixed limits (log scale). */
    public double sigma() {
      double df = PRIOR_DF + pooledDf + Math.max(0, epoch.n - 1);
      return Math.sqrt((PRIOR_DF * PRIOR_SIGMA * PRIOR_SIGMA + pooledM2 + epoch.m2) / df);
    }

    /** The mean headroom a limit must leave for at most {@link #AIM} of its periods to miss. */
    public double needed() {
      return Z_AIM * sigma();
    }

    /** The mean headroom below which more than {@link #MISS_BUDGET} of the periods miss. */
    double budget() {
      return Z * sigma();
    }

    /** Periods measured at the limits in force (since the world below last changed). */
    public int periods() {
      return epoch.n;
    }

    /** Enough periods at the limits in force for their record to judge them, not a confirmed miss. */
    boolean judgedByRecord() {
      return epoch.n >= JUDGED_AFTER;
    }

    /** The mean headroom at the limits in force. */
    public double mean() {
      return epoch.mean;
    }

    private double se() {
      return sigma() / Math.sqrt(epoch.n);
    }

    /** Two periods or more at these limits, and confidently fewer misses than the aim. */
    boolean underBudget() {
      return epoch.n >= 2 && epoch.mean - se() >= needed();
    }

    /**
     * Three periods or more at these limits, more of them missed than the budget allows, and their
     * headroom says so with confidence (one outlier, which widens the spread, is not enough alone).
     */
    boolean overBudget() {
      return epoch.n >= 3 && hs.stream().filter(h -> h < 0).count() > MISS_BUDGET * epoch.n
          && epoch.mean + 2 * se() < budget();
    }
  }

  /** Count, mean and sum of squared deviations of some headrooms. */
  private record Moments(int n, double mean, double m2) {
    static final Moments NONE = new Moments(0, 0, 0);

    /** From the count, sum and sum of squares (headrooms are clipped to ±ln 4: no cancellation to fear). */
    static Moments of(int n, double sum, double squares) {
      return n == 0 ? NONE : new Moments(n, sum / n, Math.max(0, squares - sum * sum / n));
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
   * How deep the tenant asks for the cut: to bring its worst reading to the level at which at most
   * {@link #AIM} of periods miss (the bound less the headroom its spread needs), taking the
   * latency to fall at least in proportion to the load; within [{@link #DEEPEST_CUT},
   * {@link #SHALLOWEST_CUT}].
   */
  static double cut(Protected p, Evidence e) {
    double f = Math.exp(Math.log(overshoot(p)) - e.needed());
    if (e.overBudget()) {
      f = Math.min(f, Math.exp(e.mean() - e.needed()));
    }
    return Math.max(DEEPEST_CUT, Math.min(SHALLOWEST_CUT, f));
  }

  /**
   * How much the tenant's evidence lets the limits below it rise: by the headroom it has, confidently,
   * above what it needs (the latency taken to rise at most in proportion to the load), within
   * [1, {@link #MOST_GIVE_BACK}]; {@link #GIVE_BACK} for a tenant that idles.
   */
  static double raise(Evidence e, boolean idle) {
    if (idle) {
      return GIVE_BACK;
    }
    return Math.max(1, Math.min(MOST_GIVE_BACK, Math.exp(e.mean() - e.se() - e.needed())));
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
    // a limit outside [floor, ceiling] (the spec changed) comes back inside first
    List<Sheddable> sheddables = declared.stream().map(s -> new Sheddable(s.id(), s.priority(), s.floor(), s.ceiling(),
        Math.max(s.floor(), Math.min(s.ceiling(), s.limit())), s.used(), s.roof(), s.inForce())).toList();
    Map<String, Verdict> verdicts = new LinkedHashMap<>();
    protecteds.forEach(p -> verdicts.put(p.id(), worst(p)));
    // a period whose limits below differ from the period before measured them only in part: it neither moves
    // nor counts; the others add to the evidence of their limits
    Map<String, Boolean> acts = new HashMap<>();
    Map<String, Boolean> calmAbove = new HashMap<>();
    Map<String, Double> raiseOf = new HashMap<>();
    List<String> changing = new ArrayList<>();
    for (Protected p : protecteds) {
      Map<String, Long> now = new HashMap<>();
      sheddables.stream().filter(s -> s.priority() < p.priority() && !s.id().equals(p.id()))
          .forEach(s -> now.put(s.id(), s.limit()));
      Map<String, Long> before = memory.below.put(p.id(), now);
      if (before != null && !before.keySet().equals(now.keySet())) {
        // other tenants below (or none before): what was measured says nothing of the limits of these, nor of
        // the spread at fixed limits (the ones it saw, a user's static throttles, may have moved unseen)
        memory.evidence.remove(p.id());
        memory.recentViolations.remove(p.id());
      }
      boolean steady = before == null || before.equals(now);
      Evidence e = memory.evidence(p.id());
      Verdict verdict = verdicts.get(p.id());
      boolean idle = verdict == Verdict.IDLE;
      int idleFor = idle ? memory.idle.getOrDefault(p.id(), 0) + 1 : 0;
      memory.idle.put(p.id(), idleFor);
      if (!steady) {
        changing.add(p.id());
        e.newEpoch();
        acts.put(p.id(), false);
        calmAbove.put(p.id(), idleFor >= CALM_PERIODS);
        continue;
      }
      Double h = headroom(p);
      if (h != null) {
        e.add(h);
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
      acts.put(p.id(), v && (confirmed || gross) || verdict != Verdict.UNKNOWN && e.overBudget());
      memory.recentViolations.put(p.id(), ((bits << 1) | (v ? 1 : 0)) & 3);
      calmAbove.put(p.id(), idle ? idleFor >= CALM_PERIODS : !v && verdict != Verdict.UNKNOWN && e.underBudget());
      raiseOf.put(p.id(), raise(e, idle));
    }
    Map<String, Cap> caps = new LinkedHashMap<>();
    Map<String, List<String>> holding = new HashMap<>();
    Map<String, Boolean> outOfCapacity = new HashMap<>();

    // 1. squeezes: each violated protected tenant, most important first, cuts the lowest level below it that can give
    List<Protected> violated = protecteds.stream().filter(p -> acts.get(p.id()))
        .sorted(Comparator.comparingInt(Protected::priority).reversed()).toList();
    Map<String, Double> cutOf = new HashMap<>();
    Map<String, List<String>> causes = new HashMap<>();
    for (Protected p : violated) {
      List<Sheddable> below = sheddables.stream().filter(s -> s.priority() < p.priority() && !s.id().equals(p.id()))
          .toList();
      TreeSet<Integer> levels = new TreeSet<>();
      below.stream().filter(Sheddable::canGive).forEach(s -> levels.add(s.priority()));
      if (levels.isEmpty()) {
        outOfCapacity.put(p.id(), true);
        continue;
      }
      int level = levels.first();
      double f = cut(p, memory.evidence(p.id()));
      for (Sheddable s : below) {
        if (s.priority() == level && s.canGive()) {
          cutOf.merge(s.id(), f, Math::min);
          causes.computeIfAbsent(s.id(), k -> new ArrayList<>()).add(p.id());
        }
      }
    }
    for (Sheddable s : sheddables) {
      Double f = cutOf.get(s.id());
      if (f == null) {
        continue;
      }
      // from the limit HBase holds (a calibrated limit under this law's would otherwise make the cut a no-op)
      long from = s.held();
      double base = Double.isNaN(s.used()) || s.used() <= 0 ? from : Math.min(from, s.used());
      long next = Math.max(s.floor(), Math.min(from - 1, Math.round(base * f)));
      memory.calm.put(s.id(), 0);
      memory.quiet.put(s.id(), 0);
      if (Boolean.TRUE.equals(memory.probing.remove(s.id()))) {
        memory.failedProbes.merge(s.id(), 1, Integer::sum);
      }
      List<String> by = causes.get(s.id());
      by.forEach(p -> holding.computeIfAbsent(p, k -> new ArrayList<>()).add(s.id()));
      caps.put(s.id(), new Cap(next, Action.SQUEEZED, by, "squeezed from " + from + " to " + next
          + " req/sec for the latency of " + String.join(", ", by), Math.max(next, Math.round(base))));
    }

    // 2. the others hold, wait for calm, or are given back (highest squeezed level first, one level a period)
    Integer releaseLevel = null;
    Map<String, Protected> frozenBy = new HashMap<>();
    Map<String, List<Protected>> aboveOf = new HashMap<>();
    for (Sheddable s : sheddables) {
      if (caps.containsKey(s.id())) {
        continue;
      }
      List<Protected> above = protecteds.stream().filter(p -> p.priority() > s.priority() && !p.id().equals(s.id()))
          .toList();
      aboveOf.put(s.id(), above);
      memory.quiet.put(s.id(), memory.quiet(s.id()) + 1);
      Protected unknown = above.stream().filter(p -> verdicts.get(p.id()) == Verdict.UNKNOWN).findFirst().orElse(null);
      if (unknown != null) {
        memory.calm.put(s.id(), 0);
        frozenBy.put(s.id(), unknown);
        continue;
      }
      boolean calm = above.stream().allMatch(p -> calmAbove.get(p.id()));
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
        double by = aboveOf.get(s.id()).stream().mapToDouble(x -> raiseOf.getOrDefault(x.id(), GIVE_BACK)).min()
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
      String why;
      String measuring = above.stream().filter(changing::contains).findFirst().orElse(null);
      Protected pending = aboveOf.get(s.id()).stream().filter(x -> verdicts.get(x.id()) == Verdict.VIOLATED)
          .findFirst().orElse(null);
      if (measuring != null) {
        why = "held at " + s.limit() + " req/sec: the limits below " + measuring + " changed in the last period; "
            + "the next one measures them";
      } else if (pending != null) {
        Evidence record = memory.evidence(pending.id());
        why = "held at " + s.limit() + " req/sec: " + pending.id() + " missed its objective in one period; "
            + (record.judgedByRecord() ? "the record of " + record.periods() + " periods at these limits judges them"
            : "a second miss squeezes");
      } else if (calm == 0) {
        why = "held at " + s.limit() + " req/sec: the objectives above it are not yet met with room to spare";
      } else if (roof <= s.limit()) {
        why = "held at " + s.limit() + " req/sec, close under the " + s.roof() + " req/sec that hurt: not given back "
            + "above until " + (forget - quiet) + " more periods pass without a squeeze";
      } else {
        why = "held at " + s.limit() + " req/sec: a tenant of higher priority is given back first";
      }
      caps.put(s.id(), new Cap(s.limit(), Action.HELD, above, why, s.roof()));
    }

    Map<String, Standing> standings = new LinkedHashMap<>();
    for (Protected p : protecteds) {
      boolean nothingBelow = sheddables.stream().noneMatch(s -> s.priority() < p.priority() && !s.id().equals(p.id()));
      List<String> held = new ArrayList<>(holding.getOrDefault(p.id(), List.of()));
      for (Sheddable s : sheddables) {
        Cap c = caps.get(s.id());
        if (c.action() != Action.SQUEEZED && c.action() != Action.FREE && c.heldBy().contains(p.id())
            && !held.contains(s.id())) {
          held.add(s.id());
        }
      }
      standings.put(p.id(), new Standing(verdicts.get(p.id()), held,
          outOfCapacity.getOrDefault(p.id(), false) && !nothingBelow, nothingBelow));
    }
    return new Decision(caps, standings);
  }
}
