package io.hbaseqos.operator.calibration;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The running loops, one per calibrated TenantQuota: its law (with what it learnt), its rate
 * window and when it is next due. In memory: after a restart a loop starts again from the limit,
 * state and learnt elasticity in the resource's status, so nothing jumps. A changed
 * {@code spec.calibration} starts a new loop.
 *
 * <p>Readings are aligned with the limit that produced them: after a write the loop comes back
 * when every RegionServer holds the new quota ({@link #IN_FORCE} after it since HBase 2.6.3, which
 * reloads quotas on a write; before, {@link #IN_FORCE} after twice the cluster's quota refresh period
 * has passed too) and takes a fresh baseline there (from a source that reads counters as they are at
 * that moment), so the next period measures the new limit alone; the law is told so and uses it at
 * once. Measured too early, a period would be the old limit's, and a raise would look as if it had
 * paid nothing.
 */
@ApplicationScoped
public class CalibrationLoops {
  /**
   * From a quota write until every RegionServer enforces it, beyond the cluster's quota refresh
   * period where HBase does not reload quotas on a write: since HBase 2.6.3 a write reloads the
   * quota cache at once (a procedure, measured under a second on 2.6.4); before, a RegionServer
   * picks the quota up when its refresh chore refetches it (the {@code quotaInForce} of {@link #step}), which
   * RefreshPeriodCheck asks to keep short, and this covers its read of {@code hbase:quota}.
   */
  public static final Duration IN_FORCE = Duration.ofSeconds(2);

  /**
   * How a period was measured: an observation, or why there is none.
   *
   * @param baseline only the counters' baseline could be taken (no earlier reading): the period
   *     is measured again, nothing is wrong with the metrics
   * @param pointInTime the source reads counters as they are when asked (not a cached or windowed
   *     view), so a baseline taken after a write starts a period of the new limit alone
   * @param pending the reading is being taken elsewhere: nothing was measured, the loop keeps its
   *     place and is asked again when the reading is there
   */
  public record Measurement(Observation observation, String problem, boolean baseline, boolean pointInTime,
      boolean pending) {
    public static Measurement of(Observation o) {
      return new Measurement(o, null, false, false, false);
    }

    public static Measurement pointInTime(Observation o) {
      return new Measurement(o, null, false, true, false);
    }

    public static Measurement failed(String problem) {
      return new Measurement(Observation.missing(), problem, false, false, false);
    }

    public static Measurement baselineOnly() {
      return new Measurement(Observation.missing(), null, true, false, false);
    }

    public static Measurement waiting() {
      return new Measurement(Observation.missing(), null, false, false, true);
    }
  }

  /**
   * When a loop whose reading is being taken looks again by itself: its source wakes it sooner
   * when the reading is there; this is for a wake that is lost (longer than any read takes).
   */
  public static final Duration PENDING_RECHECK = Duration.ofSeconds(15);

  /**
   * A reading taken up to this long before the moment a loop measures at serves it: one reading of
   * every user serves every loop that measures meanwhile. The moment is fixed (the period's end, or
   * when the loop first asked for its baseline), so a reading that takes a while still qualifies
   * when its asker comes back.
   */
  public static final Duration SHARED = Duration.ofSeconds(5);

  /** Something that measures one period: the HBase or Prometheus source. */
  @FunctionalInterface
  public interface Source {
    /**
     * @param notBefore the reading must be taken at or after this moment; fixed while the loop waits
     *     for the same reading
     */
    Measurement measure(RateWindow window, Instant now, Instant notBefore);
  }

  /**
   * @param stepped whether the law ran (a period ended)
   * @param limit the limit in force from now on
   * @param moved whether the limit changed
   * @param next when the loop is due again
   * @param elasticity what the law learnt of the tenant's response (d ln ops / d ln limit); NaN while nothing
   */
  public record Outcome(boolean stepped, long limit, boolean moved, ControlLaw.State state, String reason,
      Observation observation, Instant next, double elasticity) {
    public Duration until(Instant now) {
      Duration d = Duration.between(now, next);
      return d.isNegative() ? Duration.ZERO : d;
    }
  }

  private static final class Loop {
    final String key;
    final LogNewtonLaw law;
    final RateWindow window = new RateWindow();
    Instant due;
    /** How much longer than a period the first period runs (a resumed loop's share of {@link #spread}). */
    Duration firstPeriodExtra = Duration.ZERO;
    ControlLaw.State state = ControlLaw.State.Converging;
    String reason = "measuring the first period";
    Observation last = Observation.missing();
    /** Whether the first period, which straddles the loop's first quota write, has been discarded. */
    boolean warm;
    /** The limit this loop last decided: authoritative over a status the cache may not show yet. */
    long limit;
    /** After a write: when to take the baseline of the next period (the new limit in force). */
    Instant rebase;
    /** The window's baseline was taken after the limit in force was written. */
    boolean rebased;
    /** When the loop first asked for its baseline (null: not asked yet). */
    Instant baselineAsked;

    Loop(String key, LogNewtonLaw law, long limit) {
      this.key = key;
      this.law = law;
      this.limit = limit;
    }
  }

  private final Map<String, Loop> loops = new ConcurrentHashMap<>();

  /**
   * What status said of the loop before this process ran it (after a restart or a failover): a new
   * loop reports that state until its first step, so the Calibrated condition and
   * {@code status.calibration.state} never disagree.
   */
  public record Resume(ControlLaw.State state, String reason, double observedOps, double elasticity) {

    public static Resume of(io.hbaseqos.operator.api.CalibrationStatus status, String conditionReason) {
      if (status == null || status.getState() == null) {
        return null;
      }
      try {
        ControlLaw.State state = ControlLaw.State.valueOf(status.getState());
        // a status written before LimiterStep existed said Converged with reason NearestAchievable
        boolean step = state == ControlLaw.State.LimiterStep || "NearestAchievable".equals(conditionReason);
        return new Resume(step ? ControlLaw.State.LimiterStep : state, status.getMessage(),
            status.getObservedOpsPerSecond() == null ? Double.NaN : status.getObservedOpsPerSecond(),
            status.getElasticity() == null ? Double.NaN : status.getElasticity());
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
  }

  /**
   * Runs the tenant's loop if a period has ended: measures, asks the law, and returns the limit
   * to hold. Between periods it returns the limit in force unchanged.
   *
   * @param tenant the resource's uid
   * @param specKey anything that changes when spec.calibration changes
   * @param statusLimit the limit status (or spec) says is in force; used when the loop starts
   */
  public Outcome step(String tenant, String specKey, CalibrationPlan plan, long statusLimit, Source source,
      Instant now) {
    return step(tenant, specKey, plan, statusLimit, null, Duration.ZERO, source, now);
  }

  /**
   * As {@link #step(String, String, CalibrationPlan, long, Source, Instant)}, resuming a state a new loop
   * reports, on a cluster whose RegionServers may enforce a written quota only {@code quotaInForce}
   * after the write (twice their refresh period before HBase 2.6.3, {@code RefreshPeriodCheck.quotaInForceAfter};
   * zero when they reload on a write).
   */
  public Outcome step(String tenant, String specKey, CalibrationPlan plan, long statusLimit, Resume resume,
      Duration quotaInForce, Source source, Instant now) {
    Duration inForce = IN_FORCE.plus(quotaInForce == null || quotaInForce.isNegative() ? Duration.ZERO : quotaInForce);
    Loop loop = loops.compute(tenant, (k, l) -> {
      if (l != null && l.key.equals(specKey)) {
        return l;
      }
      LogNewtonLaw law = new LogNewtonLaw(plan.settings());
      Loop fresh = new Loop(specKey, law, statusLimit);
      if (l == null && resume != null) { // a restart, not a changed spec: keep saying what status said
        fresh.firstPeriodExtra = spread(tenant, plan.period());
        fresh.state = resume.state();
        fresh.reason = resume.reason() == null ? fresh.reason : resume.reason();
        law.resumeElasticity(resume.elasticity());
        if (resume.observedOps() > 0) {
          // the law verifies the state it resumes instead of starting over; the first period after
          // the baseline is still discarded (it began before this process knew the limit in force)
          switch (resume.state()) {
            case Converged -> law.resumeConverged(statusLimit, resume.observedOps());
            case LimiterStep -> law.resumeLimiterStep(statusLimit, resume.observedOps(), fresh.reason);
            case DemandLimited -> law.resumeDemandLimited(statusLimit, resume.observedOps());
            default -> { }
          }
        }
      }
      return fresh;
    });
    synchronized (loop) {
      long limitInForce = loop.limit;
      if (loop.due == null) {
        // the first call only takes the counters' baseline; the first period ends one period later
        if (loop.baselineAsked == null) {
          loop.baselineAsked = now;
        }
        if (source.measure(loop.window, now, loop.baselineAsked.minus(SHARED)).pending()) {
          return pending(loop, limitInForce, now);
        }
        // the first period is discarded: it straddles the first write, and lasts until that write is in force
        Duration first = plan.period().compareTo(inForce) >= 0 ? plan.period() : inForce;
        loop.due = now.plus(first).plus(loop.firstPeriodExtra);
        return waiting(loop, limitInForce);
      }
      if (now.isBefore(loop.due)) {
        return waiting(loop, limitInForce);
      }
      if (loop.rebase != null) {
        // the new limit is in force now: what was counted under the old one is left out of the next period
        Measurement m = source.measure(loop.window, now, loop.rebase);
        if (m.pending()) {
          return pending(loop, limitInForce, now);
        }
        loop.rebase = null;
        loop.rebased = m.problem() == null;
        loop.due = now.plus(plan.period());
        return waiting(loop, limitInForce);
      }
      Measurement m = source.measure(loop.window, now, loop.due.minus(SHARED));
      if (m.pending()) {
        return pending(loop, limitInForce, now);
      }
      loop.due = now.plus(plan.period());
      boolean aligned = loop.rebased && m.pointInTime();
      loop.rebased = false;
      if (m.baseline()) {
        // the baseline could not be taken before (e.g. the cluster was not described yet): now it is
        return waiting(loop, limitInForce);
      }
      if (!loop.warm && m.problem() == null) {
        // the first period began before the starting limit was in HBase: it measures neither limit
        loop.warm = true;
        loop.reason = "measuring the first period under the starting limit";
        return waiting(loop, limitInForce);
      }
      Observation obs = aligned ? m.observation().asAligned() : m.observation();
      ControlLaw.Step step = loop.law.next(limitInForce, obs);
      long next = Math.max(1, Math.round(step.limit()));
      loop.state = step.state();
      loop.reason = m.problem() != null ? m.problem() : step.reason();
      loop.last = obs;
      loop.limit = next;
      if (next != limitInForce) {
        loop.rebase = now.plus(inForce);
        loop.due = loop.rebase;
      }
      return new Outcome(true, next, next != limitInForce, loop.state, loop.reason, obs, loop.due,
          loop.law.learntElasticity());
    }
  }

  /**
   * After a restart every loop starts at once; each one's first period runs longer by its own share
   * of a period (from the tenant's uid), so their period ends, reads and writes spread over a period
   * instead of landing together. A rate over a longer period measures the same limit.
   */
  static Duration spread(String tenant, Duration period) {
    return Duration.ofMillis(Math.floorMod(tenant.hashCode() * 0x9E3779B9L, period.toMillis()));
  }

  /** The reading is being taken: the loop stays where it is and looks again when woken, or in a while. */
  private static Outcome pending(Loop loop, long limit, Instant now) {
    return new Outcome(false, limit, false, loop.state, loop.reason, loop.last, now.plus(PENDING_RECHECK),
        loop.law.learntElasticity());
  }

  private static Outcome waiting(Loop loop, long limit) {
    return new Outcome(false, limit, false, loop.state, loop.reason, loop.last, loop.due,
        loop.law.learntElasticity());
  }

  public void forget(String tenant) {
    loops.remove(tenant);
  }
}
