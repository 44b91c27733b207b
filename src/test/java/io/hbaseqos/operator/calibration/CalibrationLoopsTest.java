package io.hbaseqos.operator.calibration;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.calibration.CalibrationLoops.Measurement;
import io.hbaseqos.operator.calibration.CalibrationLoops.Outcome;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The loop runner on virtual time: when a period ends, what is measured and what the law is
 * asked. The source here is a plain function of the limit in force (the real sources read
 * RegionServers or Prometheus and are tested against them in CalibrationIT).
 */
class CalibrationLoopsTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  static final CalibrationPlan PLAN = new CalibrationPlan(ThrottleKind.READ_NUMBER,
      new Settings(1000, 1, 1e9, 4, 0.05), Duration.ofSeconds(30), Limit.Scope.MACHINE);

  /** A tenant that gets 80% of its limit, throttled half the time; records when it was read. */
  static final class Plant implements CalibrationLoops.Source {
    final List<Instant> reads = new ArrayList<>();
    final List<Instant> notBefore = new ArrayList<>();
    long limit;
    boolean pointInTime;

    @Override
    public Measurement measure(RateWindow window, Instant now, Instant notBefore) {
      reads.add(now);
      this.notBefore.add(notBefore);
      Observation o = new Observation(0.8 * limit, 0.5);
      return pointInTime ? Measurement.pointInTime(o) : Measurement.of(o);
    }
  }

  Outcome step(CalibrationLoops loops, String key, Plant p, long limit, int seconds) {
    p.limit = limit;
    return loops.step("uid", key, PLAN, limit, p, T0.plusSeconds(seconds));
  }

  @Test
  void theFirstCallTakesABaselineAndTheFirstPeriodIsDiscarded() {
    CalibrationLoops loops = new CalibrationLoops();
    Plant p = new Plant();
    Outcome first = step(loops, "a", p, 1000, 0);
    assertThat(first.stepped()).isFalse();
    assertThat(first.next()).isEqualTo(T0.plusSeconds(30));
    assertThat(p.reads).hasSize(1);

    // between periods nothing is read and nothing moves
    Outcome between = step(loops, "a", p, 1000, 10);
    assertThat(between.stepped()).isFalse();
    assertThat(between.until(T0.plusSeconds(10))).isEqualTo(Duration.ofSeconds(20));
    assertThat(p.reads).hasSize(1);

    // the first period straddled the first quota write: measured (new baseline), not used
    Outcome discarded = step(loops, "a", p, 1000, 30);
    assertThat(discarded.stepped()).isFalse();
    assertThat(discarded.limit()).isEqualTo(1000);
    assertThat(discarded.reason()).contains("first period");
    assertThat(p.reads).hasSize(2);

    // the second period is the law's: 800 ops/s against 1000 moves the limit up
    Outcome moved = step(loops, "a", p, 1000, 60);
    assertThat(moved.stepped()).isTrue();
    assertThat(moved.moved()).isTrue();
    assertThat(moved.limit()).isGreaterThan(1000);
    assertThat(moved.observation().ops()).isEqualTo(800);
    // after a write the loop comes back when the new limit is in force, for a baseline taken no earlier
    assertThat(moved.next()).isEqualTo(T0.plusSeconds(60).plus(CalibrationLoops.IN_FORCE));
  }

  /**
   * Readings aligned with the limit that produced them: what was counted between a write and the
   * moment the RegionServers enforce it is left out of the next period, and a source that reads
   * counters as they are (not a cached or windowed view) says so to the law, which then uses the
   * period at once instead of discarding it as a straddle.
   */
  @Test
  void afterAWriteTheNextPeriodStartsWhenTheNewLimitIsInForce() {
    CalibrationLoops loops = new CalibrationLoops();
    Plant p = new Plant();
    p.pointInTime = true;
    step(loops, "a", p, 1000, 0);
    step(loops, "a", p, 1000, 30);
    Outcome moved = step(loops, "a", p, 1000, 60);
    assertThat(moved.moved()).isTrue();
    assertThat(moved.observation().aligned()).as("its period began before the first write").isFalse();
    Instant inForce = T0.plusSeconds(60).plus(CalibrationLoops.IN_FORCE);

    Outcome rebase = loops.step("uid", "a", PLAN, moved.limit(), p, inForce);
    assertThat(rebase.stepped()).as("a baseline, not a period").isFalse();
    assertThat(p.notBefore.get(p.notBefore.size() - 1)).as("a reading taken after the write").isEqualTo(inForce);
    assertThat(rebase.next()).isEqualTo(inForce.plusSeconds(30));

    p.limit = moved.limit();
    Outcome next = loops.step("uid", "a", PLAN, moved.limit(), p, inForce.plusSeconds(30));
    assertThat(next.stepped()).isTrue();
    assertThat(next.observation().aligned()).isTrue();

    // a source whose readings are windowed (a Prometheus rate) is never called aligned
    CalibrationLoops windowed = new CalibrationLoops();
    Plant q = new Plant();
    step(windowed, "a", q, 1000, 0);
    step(windowed, "a", q, 1000, 30);
    Outcome m = step(windowed, "a", q, 1000, 60);
    windowed.step("uid", "a", PLAN, m.limit(), q, inForce);
    q.limit = m.limit();
    assertThat(windowed.step("uid", "a", PLAN, m.limit(), q, inForce.plusSeconds(30)).observation().aligned())
        .isFalse();
  }

  /**
   * A cluster whose RegionServers pick a written quota up only at their refresh (before HBase
   * 2.6.3), here up to 60 s after the write, longer than the 30 s period: the discarded first period lasts until the
   * first write is in force, and after every write the next period's baseline waits the refresh out,
   * so no period the law is told is aligned measures the old limit.
   */
  @Test
  void whereQuotasArePickedUpAtTheRefreshTheLoopWaitsItOutAfterEveryWrite() {
    CalibrationLoops loops = new CalibrationLoops();
    Plant p = new Plant();
    p.pointInTime = true;
    Duration refresh = Duration.ofSeconds(60);
    Duration inForce = refresh.plus(CalibrationLoops.IN_FORCE);
    p.limit = 1000;
    Outcome first = loops.step("uid", "a", PLAN, 1000, null, refresh, p, T0);
    assertThat(first.next()).as("the first period outlasts the refresh").isEqualTo(T0.plus(inForce));
    Outcome discarded = loops.step("uid", "a", PLAN, 1000, null, refresh, p, T0.plus(inForce));
    assertThat(discarded.stepped()).isFalse();
    assertThat(discarded.next()).isEqualTo(T0.plus(inForce).plusSeconds(30));

    Instant end = T0.plus(inForce).plusSeconds(30);
    Outcome moved = loops.step("uid", "a", PLAN, 1000, null, refresh, p, end);
    assertThat(moved.moved()).isTrue();
    assertThat(moved.next()).as("the baseline waits until every RegionServer has the new limit")
        .isEqualTo(end.plus(inForce));
    // asked before then, the loop neither reads nor steps
    int reads = p.reads.size();
    Outcome early = loops.step("uid", "a", PLAN, moved.limit(), null, refresh, p, end.plus(CalibrationLoops.IN_FORCE));
    assertThat(early.stepped()).isFalse();
    assertThat(p.reads).hasSize(reads);

    Outcome rebase = loops.step("uid", "a", PLAN, moved.limit(), null, refresh, p, end.plus(inForce));
    assertThat(rebase.stepped()).isFalse();
    assertThat(p.notBefore.get(p.notBefore.size() - 1)).isEqualTo(end.plus(inForce));
    p.limit = moved.limit();
    Outcome next = loops.step("uid", "a", PLAN, moved.limit(), null, refresh, p, end.plus(inForce).plusSeconds(30));
    assertThat(next.stepped()).isTrue();
    assertThat(next.observation().aligned()).isTrue();
  }

  /**
   * A reading being taken elsewhere (the sampler's thread) is no measurement: the loop keeps its
   * place (baseline, period end, rebase after a write) and takes the reading when asked again.
   */
  @Test
  void aPendingReadingKeepsTheLoopsPlaceUntilItIsThere() {
    CalibrationLoops loops = new CalibrationLoops();
    Plant p = new Plant();
    p.pointInTime = true;
    boolean[] pending = {true};
    CalibrationLoops.Source source = (w, now, notBefore) -> {
      if (pending[0]) {
        return Measurement.waiting();
      }
      return p.measure(w, now, notBefore);
    };
    // the baseline: no period starts before it is taken
    Outcome first = loops.step("uid", "a", PLAN, 1000, source, T0);
    assertThat(first.stepped()).isFalse();
    assertThat(first.next()).isEqualTo(T0.plus(CalibrationLoops.PENDING_RECHECK));
    pending[0] = false;
    p.limit = 1000;
    assertThat(loops.step("uid", "a", PLAN, 1000, source, T0.plusSeconds(1)).next()).as("the period starts now")
        .isEqualTo(T0.plusSeconds(31));
    loops.step("uid", "a", PLAN, 1000, source, T0.plusSeconds(31)); // the discarded first period

    // the period's end: pending, then measured when it is there, a period from its own start
    pending[0] = true;
    Outcome waiting = loops.step("uid", "a", PLAN, 1000, source, T0.plusSeconds(61));
    assertThat(waiting.stepped()).isFalse();
    assertThat(waiting.limit()).isEqualTo(1000);
    pending[0] = false;
    Outcome moved = loops.step("uid", "a", PLAN, 1000, source, T0.plusSeconds(62));
    assertThat(moved.stepped()).isTrue();
    assertThat(moved.moved()).isTrue();
    Instant inForce = T0.plusSeconds(62).plus(CalibrationLoops.IN_FORCE);
    assertThat(moved.next()).isEqualTo(inForce);

    // the rebase after the write: pending keeps it due, with the same moment asked for
    pending[0] = true;
    int readsBefore = p.reads.size();
    assertThat(loops.step("uid", "a", PLAN, moved.limit(), source, inForce).stepped()).isFalse();
    pending[0] = false;
    Outcome rebased = loops.step("uid", "a", PLAN, moved.limit(), source, inForce.plusSeconds(1));
    assertThat(p.reads).hasSize(readsBefore + 1);
    assertThat(p.notBefore.get(p.notBefore.size() - 1)).as("still a reading after the write").isEqualTo(inForce);
    assertThat(rebased.next()).isEqualTo(inForce.plusSeconds(31));
  }

  @Test
  void theLoopKeepsItsOwnLimitOverAStaleStatusAndRestartsWhenTheSpecChanges() {
    CalibrationLoops loops = new CalibrationLoops();
    Plant p = new Plant();
    step(loops, "a", p, 1000, 0);
    step(loops, "a", p, 1000, 30);
    long limit = step(loops, "a", p, 1000, 60).limit();
    // the cache still shows the old status limit: the loop's own decision stands
    Outcome held = loops.step("uid", "a", PLAN, 1000, p, T0.plusSeconds(70));
    assertThat(held.limit()).isEqualTo(limit);

    // a changed spec.calibration starts afresh from the limit it is given, with a new baseline
    Outcome restarted = loops.step("uid", "b", PLAN, 500, p, T0.plusSeconds(75));
    assertThat(restarted.stepped()).isFalse();
    assertThat(restarted.limit()).isEqualTo(500);
    assertThat(restarted.next()).isEqualTo(T0.plusSeconds(105));
  }

  @Test
  void aPeriodWithoutMetricsIsNotMistakenForTheWarmUpAndHoldsTheLimit() {
    CalibrationLoops loops = new CalibrationLoops();
    CalibrationLoops.Source broken = (w, now, notBefore) -> Measurement.failed("RegionServer rs1: connection refused");
    assertThat(loops.step("uid", "a", PLAN, 700, broken, T0).stepped()).isFalse();
    Outcome o = loops.step("uid", "a", PLAN, 700, broken, T0.plusSeconds(30));
    assertThat(o.stepped()).isTrue();
    assertThat(o.limit()).isEqualTo(700);
    assertThat(o.state()).isEqualTo(ControlLaw.State.MetricsUnavailable);
    assertThat(o.reason()).contains("connection refused");
  }

  @Test
  void forgetDropsTheLoop() {
    CalibrationLoops loops = new CalibrationLoops();
    Plant p = new Plant();
    step(loops, "a", p, 1000, 0);
    loops.forget("uid");
    assertThat(step(loops, "a", p, 1000, 30).next()).as("a new loop: baseline again")
        .isEqualTo(T0.plusSeconds(60));
  }

  @Test
  void afterARestartANewLoopSaysWhatStatusSaidUntilItsFirstStep() {
    CalibrationLoops loops = new CalibrationLoops();
    Plant p = new Plant();
    p.limit = 1000;
    var status = new io.hbaseqos.operator.api.CalibrationStatus();
    status.setState("Converged");
    status.setMessage("1000 ops/s is within 5% of the target");
    var resume = CalibrationLoops.Resume.of(status, "Converged");
    Outcome first = loops.step("uid", "a", PLAN, 1000, resume, Duration.ZERO, p, T0);
    assertThat(first.state()).as("agrees with the Calibrated condition written before the restart")
        .isEqualTo(ControlLaw.State.Converged);
    assertThat(first.reason()).isEqualTo("1000 ops/s is within 5% of the target");
    // a changed spec is a new loop, not a resumed one
    Outcome changed = loops.step("uid", "b", PLAN, 1000, resume, Duration.ZERO, p, T0.plusSeconds(1));
    assertThat(changed.state()).isEqualTo(ControlLaw.State.Converging);
    assertThat(CalibrationLoops.Resume.of(null, null)).isNull();
    status.setState("NoSuchState");
    assertThat(CalibrationLoops.Resume.of(status, null)).isNull();
    // a status written before LimiterStep existed (Converged, NearestAchievable) resumes as LimiterStep
    status.setState("Converged");
    assertThat(CalibrationLoops.Resume.of(status, "NearestAchievable").state())
        .isEqualTo(ControlLaw.State.LimiterStep);
  }

  /**
   * A restarted operator resumes each loop from its status: the learnt elasticity (so its first
   * move is not the cautious first move of a new loop) and a LimiterStep or DemandLimited hold,
   * said from the first reconcile and kept without a write while the rate there is unchanged.
   */
  @Test
  void afterARestartTheElasticityAndAHoldAreResumed() {
    for (String state : List.of("LimiterStep", "DemandLimited")) {
      var status = new io.hbaseqos.operator.api.CalibrationStatus();
      status.setState(state);
      status.setMessage("held by the predecessor");
      status.setObservedOpsPerSecond(state.equals("LimiterStep") ? 940.0 : 600.0);
      status.setElasticity(0.42);
      var resume = CalibrationLoops.Resume.of(status, state);
      assertThat(resume.elasticity()).isEqualTo(0.42);
      CalibrationLoops loops = new CalibrationLoops();
      AtTarget p = new AtTarget();
      p.ops = status.getObservedOpsPerSecond();
      // a demand-limited tenant HBase barely refuses: served, its refused requests would not reach the target
      p.refused = state.equals("DemandLimited") ? 0.01 : 0.5;
      for (int s = 0; s <= 150; s += 30) {
        Outcome o = loops.step("uid", "a", PLAN, 1250, resume, Duration.ZERO, p, T0.plusSeconds(s));
        assertThat(o.state()).as(state + " at %ds", s).isEqualTo(ControlLaw.State.valueOf(state));
        assertThat(o.limit()).as("nothing moves").isEqualTo(1250);
        assertThat(o.elasticity()).isEqualTo(0.42);
      }
    }
    // a DemandLimited hold resumed while HBase refuses half the tenant's requests (enough to reach the
    // target): the throttle holds it back, not its demand, so the hold ends and the limit is raised
    var held = new io.hbaseqos.operator.api.CalibrationStatus();
    held.setState("DemandLimited");
    held.setObservedOpsPerSecond(600.0);
    held.setElasticity(0.42);
    CalibrationLoops resumed = new CalibrationLoops();
    AtTarget refused = new AtTarget();
    refused.ops = 600;
    Outcome after = null;
    for (int s = 0; s <= 150 && (after == null || !after.moved()); s += 30) {
      after = resumed.step("uid", "a", PLAN, 1250, CalibrationLoops.Resume.of(held, "DemandLimited"), Duration.ZERO, refused,
          T0.plusSeconds(s));
    }
    assertThat(after.state()).isEqualTo(ControlLaw.State.Converging);
    assertThat(after.limit()).isGreaterThan(1250);
    // the elasticity alone: the first move after the restart uses it, not the cautious first move
    var status = new io.hbaseqos.operator.api.CalibrationStatus();
    status.setState("Converging");
    status.setElasticity(0.5);
    CalibrationLoops loops = new CalibrationLoops();
    AtTarget p = new AtTarget();
    p.ops = 800; // 20% under the target of 1000, throttled
    Outcome o = null;
    // (its first period runs longer by its share of the restart's spread)
    for (int s = 0; s <= 120 && (o == null || !o.stepped()); s += 5) {
      o = loops.step("uid", "a", PLAN, 1000, CalibrationLoops.Resume.of(status, "Converging"), Duration.ZERO, p, T0.plusSeconds(s));
    }
    // ln(1000/800) x 0.85 / 0.5 = 0.38: x1.46 (a new loop's cautious first move: x1.25)
    assertThat(o.limit()).isBetween(1440L, 1480L);
  }

  /**
   * After a restart 300 loops start at the same instant: their first periods end spread over the
   * period that follows (each by its own share, from its uid), not together; a loop started
   * otherwise (a new tenant, a changed spec) measures exactly one period.
   */
  @Test
  void afterARestartTheLoopsFirstPeriodsEndSpreadOverAPeriod() {
    var status = new io.hbaseqos.operator.api.CalibrationStatus();
    status.setState("Converging");
    var resume = CalibrationLoops.Resume.of(status, "Converging");
    CalibrationLoops loops = new CalibrationLoops();
    java.util.Map<Long, Integer> perSecond = new java.util.TreeMap<>();
    for (int i = 0; i < 300; i++) {
      Outcome o = loops.step(java.util.UUID.nameUUIDFromBytes(("tenant-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString(), "a", PLAN, 1000, resume, Duration.ZERO, new AtTarget(), T0);
      assertThat(o.stepped()).isFalse();
      assertThat(o.next()).isAfterOrEqualTo(T0.plus(PLAN.period())).isBefore(T0.plus(PLAN.period().multipliedBy(2)));
      perSecond.merge(Duration.between(T0, o.next()).toSeconds(), 1, Integer::sum);
    }
    assertThat(perSecond).as("every second of the period after the first").hasSize(30);
    assertThat(perSecond.values()).as("about ten a second, never a crowd").allSatisfy(n -> assertThat(n).isLessThan(30));
    Outcome fresh = loops.step("new-tenant", "a", PLAN, 1000, null, Duration.ZERO, new AtTarget(), T0);
    assertThat(fresh.next()).isEqualTo(T0.plus(PLAN.period()));
  }

  /** A tenant that gets what its target asks at limit 1250 (80% of the limit), throttled. */
  static final class AtTarget implements CalibrationLoops.Source {
    double ops = 1000;
    double refused = 0.5;
    int baselines;

    @Override
    public Measurement measure(RateWindow window, Instant now, Instant notBefore) {
      if (baselines > 0) {
        baselines--;
        return Measurement.baselineOnly();
      }
      return Measurement.of(new Observation(ops, refused));
    }
  }

  @Test
  void afterARestartAConvergedLoopVerifiesItsOperatingPointInsteadOfStartingOver() {
    var status = new io.hbaseqos.operator.api.CalibrationStatus();
    status.setState("Converged");
    status.setMessage("1000 ops/s is within 5% of the target");
    status.setObservedOpsPerSecond(1000.0);
    var resume = CalibrationLoops.Resume.of(status, "Converged");
    CalibrationLoops loops = new CalibrationLoops();
    AtTarget p = new AtTarget();
    p.baselines = 2; // the baseline cannot be read at once after a start (cluster not described yet)
    List<ControlLaw.State> states = new ArrayList<>();
    for (int s = 0; s <= 150; s += 30) {
      Outcome o = loops.step("uid", "a", PLAN, 1250, resume, Duration.ZERO, p, T0.plusSeconds(s));
      states.add(o.state());
      assertThat(o.limit()).as("nothing moves").isEqualTo(1250);
    }
    assertThat(states).as("never MetricsUnavailable for a missing baseline, never Converging for an unchanged rate")
        .containsOnly(ControlLaw.State.Converged);

    // a rate that did move after the restart is measured again, as a converged loop's would be
    CalibrationLoops moved = new CalibrationLoops();
    AtTarget q = new AtTarget();
    q.ops = 700;
    List<ControlLaw.State> after = new ArrayList<>();
    for (int s = 0; s <= 90; s += 30) {
      after.add(moved.step("uid", "a", PLAN, 1250, resume, Duration.ZERO, q, T0.plusSeconds(s)).state());
    }
    assertThat(after).startsWith(ControlLaw.State.Converged).doesNotContain(ControlLaw.State.MetricsUnavailable)
        .contains(ControlLaw.State.Converging);
  }

  @Test
  void theCalibratedThrottleKeepsItsOwnScope() {
    var spec = new io.hbaseqos.operator.api.TenantQuotaSpec();
    var c = new io.hbaseqos.operator.api.CalibrationSpec();
    c.setTargetOpsPerSecond(100L);
    c.setOperations(io.hbaseqos.operator.api.CalibrationSpec.Operations.reads);
    spec.setCalibration(c);
    assertThat(CalibrationPlan.of(spec).scope()).isEqualTo(Limit.Scope.MACHINE);
    spec.setScope(io.hbaseqos.operator.api.TenantQuotaSpec.Scope.CLUSTER);
    assertThat(CalibrationPlan.of(spec).scope()).as("the resource's scope").isEqualTo(Limit.Scope.CLUSTER);
    var read = io.hbaseqos.operator.api.ThrottleSpec.shell(ThrottleKind.READ_NUMBER, "100req/sec");
    read.setScope(io.hbaseqos.operator.api.TenantQuotaSpec.Scope.MACHINE);
    var write = io.hbaseqos.operator.api.ThrottleSpec.shell(ThrottleKind.WRITE_NUMBER, "100req/sec");
    write.setScope(io.hbaseqos.operator.api.TenantQuotaSpec.Scope.CLUSTER);
    spec.setThrottles(new ArrayList<>(List.of(read, write)));
    assertThat(CalibrationPlan.of(spec).scope()).as("the calibrated throttle's own scope wins")
        .isEqualTo(Limit.Scope.MACHINE);
  }
}
