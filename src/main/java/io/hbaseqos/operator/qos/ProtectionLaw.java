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
 *       {@link #MARGIN} of the bound is {@code MARGIN}; between the two is {@code MET} (the
 *       hysteresis band: nothing moves). No operation in the window is {@code IDLE}; a busy tenant
 *       read as 0 (below a whole-millisecond source's resolution) is {@code MARGIN}. A
 *       reading that is missing, not a number, negative or above {@link #ABSURD_MILLIS} is
 *       {@code UNKNOWN}.</li>
 *   <li><b>Fail-static.</b> A sheddable tenant below a protected tenant whose reading is
 *       {@code UNKNOWN} is neither squeezed for it nor given anything back: its limit holds.</li>
 *   <li><b>Confirmation.</b> A violation is acted on when the reading is at least twice the bound, or
 *       when one of the two periods before was violated too: one noisy period moves nothing.</li>
 *   <li><b>Squeeze, lowest priority first.</b> For a {@code VIOLATED} objective the operator cuts
 *       the sheddable tenants of the lowest priority (below the protected tenant's) that can still
 *       give: limit above the floor and use above the floor. The cut is the ratio bound/reading,
 *       kept within [{@link #DEEPEST_CUT}, {@link #SHALLOWEST_CUT}], applied to the lower of the
 *       limit and what the tenant used (the first cut bites even when the limit was far above use).
 *       Never below the floor. Tenants of equal or higher priority are never touched. When every
 *       candidate is at its floor, the protected tenant is out of capacity.</li>
 *   <li><b>Give back, highest priority first.</b> When every protected tenant above a squeezed
 *       tenant has been at {@code MARGIN} or {@code IDLE} for {@link #CALM_PERIODS} periods in a
 *       row, the highest-priority squeezed level is raised by {@link #GIVE_BACK} per period, up to
 *       its ceiling, and not above its roof: the geometric middle of the last cut (between the
 *       limit that hurt and the one that replaced it), until {@link #FORGET_VIOLATION_AFTER}
 *       periods pass without a squeeze. A limit that hurt is not retried at once, and repeated
 *       cuts bisect toward the highest limit that does not hurt.</li>
 * </ol>
 */
public final class ProtectionLaw {
  public static final double MARGIN = 0.8;
  public static final int CALM_PERIODS = 3;
  public static final double DEEPEST_CUT = 0.5;
  public static final double SHALLOWEST_CUT = 0.9;
  public static final double GIVE_BACK = 1.25;
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
   * @param roof the limit at which it was last squeezed (0: none known)
   */
  public record Sheddable(String id, int priority, long floor, long ceiling, long limit, double used,
      long roof) {
    boolean canGive() {
      return limit > floor && (Double.isNaN(used) || used > floor);
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

  /** How deep a violated tenant asks for the cut: bound/reading of its worst objective, within the limits. */
  static double cut(Protected p) {
    double f = 1;
    for (Objective o : p.objectives()) {
      if (o.verdict() == Verdict.VIOLATED) {
        f = Math.min(f, o.boundMillis() / o.millis());
      }
    }
    return Math.max(DEEPEST_CUT, Math.min(SHALLOWEST_CUT, f));
  }

  public static Decision step(List<Protected> protecteds, List<Sheddable> declared, Memory memory) {
    // a limit outside [floor, ceiling] (the spec changed) comes back inside first
    List<Sheddable> sheddables = declared.stream().map(s -> new Sheddable(s.id(), s.priority(), s.floor(), s.ceiling(),
        Math.max(s.floor(), Math.min(s.ceiling(), s.limit())), s.used(), s.roof())).toList();
    Map<String, Verdict> verdicts = new LinkedHashMap<>();
    protecteds.forEach(p -> verdicts.put(p.id(), worst(p)));
    // a violation is acted on when it is gross or confirmed: one of the two periods before was violated too
    Map<String, Boolean> acts = new HashMap<>();
    for (Protected p : protecteds) {
      int bits = memory.recentViolations.getOrDefault(p.id(), 0);
      boolean v = verdicts.get(p.id()) == Verdict.VIOLATED;
      acts.put(p.id(), v && ((bits & 3) != 0 || cut(p) <= GROSS));
      memory.recentViolations.put(p.id(), ((bits << 1) | (v ? 1 : 0)) & 3);
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
      double f = cut(p);
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
      double base = Double.isNaN(s.used()) || s.used() <= 0 ? s.limit() : Math.min(s.limit(), s.used());
      long next = Math.max(s.floor(), Math.min(s.limit() - 1, Math.round(base * f)));
      memory.calm.put(s.id(), 0);
      memory.quiet.put(s.id(), 0);
      if (Boolean.TRUE.equals(memory.probing.remove(s.id()))) {
        memory.failedProbes.merge(s.id(), 1, Integer::sum);
      }
      List<String> by = causes.get(s.id());
      by.forEach(p -> holding.computeIfAbsent(p, k -> new ArrayList<>()).add(s.id()));
      caps.put(s.id(), new Cap(next, Action.SQUEEZED, by, "squeezed from " + s.limit() + " to " + next
          + " req/sec for the latency of " + String.join(", ", by), Math.max(next, Math.round(Math.sqrt(next * base)))));
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
      boolean calm = above.stream().allMatch(p -> verdicts.get(p.id()) == Verdict.MARGIN
          || verdicts.get(p.id()) == Verdict.IDLE);
      memory.calm.put(s.id(), calm ? memory.calm(s.id()) + 1 : 0);
      if (calm && s.limit() < s.ceiling() && memory.calm(s.id()) >= CALM_PERIODS
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
      long roof = remembered ? Math.max(s.limit(), s.roof()) : s.ceiling();
      if (releaseLevel != null && s.priority() == releaseLevel && calm >= CALM_PERIODS && roof > s.limit()) {
        // past a forgotten roof the give-back is a probe: half the step, and a squeeze after it backs off the next
        boolean probe = s.roof() > 0 && !remembered && s.limit() >= s.roof();
        double up = probe ? 1 + (GIVE_BACK - 1) / 2 : GIVE_BACK;
        long next = Math.min(Math.min(s.ceiling(), roof), Math.max(s.limit() + 1, Math.round(s.limit() * up)));
        boolean free = next >= s.ceiling();
        // the next give-back waits for a period measured at this limit (one to take effect, one to measure)
        memory.calm.put(s.id(), CALM_PERIODS - 2);
        if (probe) {
          memory.probing.put(s.id(), true);
        }
        caps.put(s.id(), new Cap(next, free ? Action.FREE : Action.RELEASED, free ? List.of() : above,
            (free ? "released to its ceiling " : "given back from " + s.limit() + " to ") + next + " req/sec after "
            + calm + " calm periods", free ? 0 : s.roof()));
        continue;
      }
      String why;
      Protected pending = aboveOf.get(s.id()).stream().filter(x -> verdicts.get(x.id()) == Verdict.VIOLATED)
          .findFirst().orElse(null);
      if (pending != null) {
        why = "held at " + s.limit() + " req/sec: " + pending.id() + " missed its objective in one period; a second "
            + "miss squeezes";
      } else if (calm == 0) {
        why = "held at " + s.limit() + " req/sec: the objectives above it are met without margin";
      } else if (calm < CALM_PERIODS) {
        why = "held at " + s.limit() + " req/sec: calm for " + calm + " of " + CALM_PERIODS + " periods";
      } else if (roof <= s.limit()) {
        why = "held at " + s.limit() + " req/sec, under the " + s.roof() + " it is not given back above until "
            + (forget - quiet) + " more periods pass without a squeeze";
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
