package io.hbaseqos.operator.calibration;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The running loops, one per calibrated TenantQuota: its law (with what it learnt), its rate
 * window and when it is next due. In memory: after a restart a loop starts again from the limit
 * in the resource's status, so nothing jumps. A changed {@code spec.calibration} starts a new loop.
 */
@ApplicationScoped
public class CalibrationLoops {

  /**
   * How a period was measured: an observation, or why there is none.
   *
   * @param baseline only the counters' baseline could be taken (no earlier reading): the period
   *     is measured again, nothing is wrong with the metrics
   */
  public record Measurement(Observation observation, String problem, boolean baseline) {
    public static Measurement of(Observation o) {
      return new Measurement(o, null, false);
    }

    public static Measurement failed(String problem) {
      return new Measurement(Observation.missing(), problem, false);
    }

    public static Measurement baselineOnly() {
      return new Measurement(Observation.missing(), null, true);
    }
  }

  /** Something that measures one period: the HBase or Prometheus source. */
  @FunctionalInterface
  public interface Source {
    Measurement measure(RateWindow window, Instant now);
  }

  /**
   * @param stepped whether the law ran (a period ended)
   * @param limit the limit in force from now on
   * @param moved whether the limit changed
   * @param next when the loop is due again
   */
  public record Outcome(boolean stepped, long limit, boolean moved, ControlLaw.State state, boolean nearest,
      String reason, Observation observation, Instant next) {
    public Duration until(Instant now) {
      Duration d = Duration.between(now, next);
      return d.isNegative() ? Duration.ZERO : d;
    }
  }

  private static final class Loop {
    final String key;
    final ControlLaw law;
    final RateWindow window = new RateWindow();
    Instant due;
    ControlLaw.State state = ControlLaw.State.Converging;
    boolean nearest;
    String reason = "measuring the first period";
    Observation last = Observation.missing();
    /** Whether the first period, which straddles the loop's first quota write, has been discarded. */
    boolean warm;
    /** The limit this loop last decided: authoritative over a status the cache may not show yet. */
    long limit;

    Loop(String key, ControlLaw law, long limit) {
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
  public record Resume(ControlLaw.State state, boolean nearest, String reason, double observedOps) {
    public Resume(ControlLaw.State state, boolean nearest, String reason) {
      this(state, nearest, reason, Double.NaN);
    }

    public static Resume of(io.hbaseqos.operator.api.CalibrationStatus status, String conditionReason) {
      if (status == null || status.getState() == null) {
        return null;
      }
      try {
        return new Resume(ControlLaw.State.valueOf(status.getState()), "NearestAchievable".equals(conditionReason),
            status.getMessage(), status.getObservedOpsPerSecond() == null ? Double.NaN
                : status.getObservedOpsPerSecond());
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
    return step(tenant, specKey, plan, statusLimit, null, source, now);
  }

  /** As {@link #step(String, String, CalibrationPlan, long, Source, Instant)}, resuming a state a new loop reports. */
  public Outcome step(String tenant, String specKey, CalibrationPlan plan, long statusLimit, Resume resume,
      Source source, Instant now) {
    Loop loop = loops.compute(tenant, (k, l) -> {
      if (l != null && l.key.equals(specKey)) {
        return l;
      }
      LogNewtonLaw law = new LogNewtonLaw(plan.settings());
      Loop fresh = new Loop(specKey, law, statusLimit);
      if (l == null && resume != null) { // a restart, not a changed spec: keep saying what status said
        fresh.state = resume.state();
        fresh.nearest = resume.nearest();
        fresh.reason = resume.reason() == null ? fresh.reason : resume.reason();
        if (resume.state() == ControlLaw.State.Converged && !resume.nearest() && resume.observedOps() > 0) {
          // the law verifies its converged state instead of starting over; the first period after
          // the baseline is still discarded (a baseline taken at an arbitrary moment against
          // RegionServer counters that are refreshed periodically can skew that one period)
          law.resumeConverged(statusLimit, resume.observedOps());
        }
      }
      return fresh;
    });
    synchronized (loop) {
      long limitInForce = loop.limit;
      if (loop.due == null) {
        // the first call only takes the counters' baseline; the first period ends one period later
        source.measure(loop.window, now);
        loop.due = now.plus(plan.period());
        return new Outcome(false, limitInForce, false, loop.state, loop.nearest, loop.reason, loop.last, loop.due);
      }
      if (now.isBefore(loop.due)) {
        return new Outcome(false, limitInForce, false, loop.state, loop.nearest, loop.reason, loop.last, loop.due);
      }
      Measurement m = source.measure(loop.window, now);
      loop.due = now.plus(plan.period());
      if (m.baseline()) {
        // the baseline could not be taken before (e.g. the cluster was not described yet): now it is
        return new Outcome(false, limitInForce, false, loop.state, loop.nearest, loop.reason, loop.last, loop.due);
      }
      if (!loop.warm && m.problem() == null) {
        // the first period began before the starting limit was in HBase: it measures neither limit
        loop.warm = true;
        loop.reason = "measuring the first period under the starting limit";
        return new Outcome(false, limitInForce, false, loop.state, loop.nearest, loop.reason, loop.last, loop.due);
      }
      ControlLaw.Step step = loop.law.next(limitInForce, m.observation());
      long next = Math.max(1, Math.round(step.limit()));
      loop.state = step.state();
      loop.nearest = step.nearest();
      loop.reason = m.problem() != null ? m.problem() : step.reason();
      loop.last = m.observation();
      loop.limit = next;
      return new Outcome(true, next, next != limitInForce, loop.state, loop.nearest, loop.reason, m.observation(),
          loop.due);
    }
  }

  public void forget(String tenant) {
    loops.remove(tenant);
  }
}
