package io.hbaseqos.operator.qos;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.qos.ProtectionLaw.Action;
import io.hbaseqos.operator.qos.ProtectionLaw.Decision;
import io.hbaseqos.operator.qos.ProtectionLaw.Memory;
import io.hbaseqos.operator.qos.ProtectionLaw.Objective;
import io.hbaseqos.operator.qos.ProtectionLaw.Protected;
import io.hbaseqos.operator.qos.ProtectionLaw.Sheddable;
import io.hbaseqos.operator.qos.ProtectionLaw.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProtectionLawTest {

  static Protected u(int priority, double p99) {
    return new Protected("u", priority, List.of(new Objective("reads p99", 10, p99, null)));
  }

  static Sheddable s(String id, int priority, long limit, double used) {
    return new Sheddable(id, priority, 100, 10_000, limit, used, 0);
  }

  /** A violation short of twice the bound is acted on in its second period: the decision of that period. */
  static Decision confirmed(List<Protected> ps, List<Sheddable> ss) {
    Memory m = new Memory();
    Decision first = ProtectionLaw.step(ps, ss, m);
    assertThat(first.caps().values()).as("one period of a slight miss moves nothing")
        .allSatisfy(c -> assertThat(c.action()).isNotEqualTo(Action.SQUEEZED));
    return ProtectionLaw.step(ps, ss, m);
  }

  @Test
  void oneSlightMissIsNotActedOnButASecondOrAGrossOneIs() {
    Memory m = new Memory();
    List<Sheddable> t = List.of(s("t", 1, 4000, 4000));
    assertThat(ProtectionLaw.step(List.of(u(50, 12)), t, m).caps().get("t").reason()).contains("a second miss squeezes");
    assertThat(ProtectionLaw.step(List.of(u(50, 9)), t, m).caps().get("t").limit()).isEqualTo(4000);
    assertThat(ProtectionLaw.step(List.of(u(50, 12)), t, m).caps().get("t").limit()).as("2 of the last 3 missed")
        .isEqualTo(Math.round(4000 * 10 / 12.0));
    assertThat(ProtectionLaw.step(List.of(u(50, 25)), t, new Memory()).caps().get("t").limit()).as("gross")
        .isEqualTo(2000);
  }

  @Test
  void verdictsFollowTheBoundWithAHysteresisBand() {
    assertThat(new Objective("r", 10, 12, null).verdict()).isEqualTo(Verdict.VIOLATED);
    assertThat(new Objective("r", 10, 10, null).verdict()).isEqualTo(Verdict.MET);
    assertThat(new Objective("r", 10, 8, null).verdict()).isEqualTo(Verdict.MET);
    assertThat(new Objective("r", 10, 7.9, null).verdict()).isEqualTo(Verdict.MARGIN);
    assertThat(new Objective("r", 10, 0, null).verdict()).isEqualTo(Verdict.IDLE);
    // a busy tenant whose operations all took under a whole-millisecond source's resolution
    assertThat(new Objective("r", 10, 0, null, false).verdict()).isEqualTo(Verdict.MARGIN);
    assertThat(new Objective("r", 10, 0, null, true).verdict()).isEqualTo(Verdict.IDLE);
    for (double absurd : new double[] {Double.NaN, -1, Double.POSITIVE_INFINITY, 1e9}) {
      assertThat(new Objective("r", 10, absurd, null).verdict()).as("%s", absurd).isEqualTo(Verdict.UNKNOWN);
    }
    assertThat(new Objective("r", 10, 5, "RegionServer rs1: unreachable").verdict()).isEqualTo(Verdict.UNKNOWN);
  }

  @Test
  void aViolationCutsTheLowestPriorityBelowAndNeverEqualOrHigher() {
    List<Sheddable> all = List.of(s("batch", 1, 10_000, 4000), s("etl", 5, 10_000, 4000),
        s("peer", 50, 10_000, 4000), s("boss", 90, 10_000, 4000));
    Decision d = confirmed(List.of(u(50, 15)), all);
    // bound/reading = 10/15: the cut is 2/3 of what batch used (4000), not of its limit
    assertThat(d.caps().get("batch").limit()).isEqualTo(Math.round(4000 * 10 / 15.0));
    assertThat(d.caps().get("batch").action()).isEqualTo(Action.SQUEEZED);
    assertThat(d.caps().get("batch").heldBy()).containsExactly("u");
    assertThat(d.caps().get("etl").limit()).as("a higher level below waits its turn").isEqualTo(10_000);
    assertThat(d.caps().get("peer").limit()).as("equal priority").isEqualTo(10_000);
    assertThat(d.caps().get("boss").limit()).as("higher priority").isEqualTo(10_000);
    assertThat(d.standings().get("u").holding()).containsExactly("batch");
    assertThat(d.standings().get("u").verdict()).isEqualTo(Verdict.VIOLATED);
  }

  @Test
  void theCutIsAtLeastATenthAndAtMostHalf() {
    Decision slight = confirmed(List.of(u(50, 10.1)), List.of(s("t", 1, 5000, Double.NaN)));
    assertThat(slight.caps().get("t").limit()).isEqualTo(4500);
    Decision bad = ProtectionLaw.step(List.of(u(50, 100)), List.of(s("t", 1, 5000, Double.NaN)), new Memory());
    assertThat(bad.caps().get("t").limit()).isEqualTo(2500);
  }

  @Test
  void theFloorIsNeverCrossedAndAtTheFloorTheNextLevelGives() {
    Decision d = ProtectionLaw.step(List.of(u(50, 100)), List.of(s("batch", 1, 150, 150), s("etl", 5, 8000, 8000)),
        new Memory());
    assertThat(d.caps().get("batch").limit()).isEqualTo(100);
    assertThat(d.caps().get("etl").limit()).as("batch could still give").isEqualTo(8000);
    d = ProtectionLaw.step(List.of(u(50, 100)), List.of(s("batch", 1, 100, 150), s("etl", 5, 8000, 8000)),
        new Memory());
    assertThat(d.caps().get("batch").limit()).isEqualTo(100);
    assertThat(d.caps().get("etl").limit()).isEqualTo(4000);
    assertThat(d.standings().get("u").outOfCapacity()).isFalse();
  }

  @Test
  void aTenantUsingNoMoreThanItsFloorHasNothingToGive() {
    Decision d = ProtectionLaw.step(List.of(u(50, 20)), List.of(s("idle", 1, 10_000, 40), s("etl", 5, 8000, 8000)),
        new Memory());
    assertThat(d.caps().get("idle").limit()).isEqualTo(10_000);
    assertThat(d.caps().get("etl").limit()).isEqualTo(4000);
  }

  @Test
  void aViolationWithEverySheddableAtItsFloorIsOutOfCapacity() {
    Decision d = ProtectionLaw.step(List.of(u(50, 30)), List.of(s("a", 1, 100, 900), s("b", 2, 100, 900),
        s("peer", 50, 10_000, 9000)), new Memory());
    assertThat(d.standings().get("u").outOfCapacity()).isTrue();
    assertThat(d.caps().values()).allSatisfy(c -> assertThat(c.action()).isNotEqualTo(Action.SQUEEZED));
    assertThat(d.caps().get("peer").limit()).isEqualTo(10_000);
  }

  @Test
  void aProtectedTenantWithNothingBelowIsSaidSoAndNotOutOfCapacity() {
    Decision d = ProtectionLaw.step(List.of(u(1, 30)), List.of(s("peer", 1, 10_000, 9000)), new Memory());
    assertThat(d.standings().get("u").nothingBelow()).isTrue();
    assertThat(d.standings().get("u").outOfCapacity()).isFalse();
    assertThat(d.caps().get("peer").limit()).isEqualTo(10_000);
  }

  @Test
  void missingOrAbsurdReadingsHoldEveryLimitBelow() {
    Memory m = new Memory();
    for (double reading : new double[] {Double.NaN, -3, 1e12}) {
      Decision d = ProtectionLaw.step(List.of(u(50, reading)), List.of(s("t", 1, 3000, 9000),
          s("free", 1, 10_000, 9000)), m);
      assertThat(d.caps().get("t").limit()).isEqualTo(3000);
      assertThat(d.caps().get("t").action()).isEqualTo(Action.FROZEN);
      assertThat(d.caps().get("t").reason()).contains("not known");
      assertThat(d.caps().get("free").limit()).as("never unthrottled, never dropped").isEqualTo(10_000);
    }
    assertThat(m.calm("t")).isZero();
  }

  @Test
  void aViolationIsActedOnEvenWhenAnotherObjectiveIsUnknown() {
    Protected p = new Protected("u", 50, List.of(new Objective("reads p99", 10, 20, null),
        new Objective("writes p99", 10, Double.NaN, "no metric")));
    Decision d = ProtectionLaw.step(List.of(p), List.of(s("t", 1, 4000, 4000)), new Memory());
    assertThat(d.caps().get("t").limit()).isEqualTo(2000);
  }

  @Test
  void insideTheBandNothingMovesAndCapacityComesBackOnlyAfterCalmPeriodsGradually() {
    Memory m = new Memory();
    Sheddable t = new Sheddable("t", 1, 100, 10_000, 2000, 2000, 4000);
    for (int i = 0; i < 5; i++) {
      Decision d = ProtectionLaw.step(List.of(u(50, 9)), List.of(t), m);
      assertThat(d.caps().get("t").limit()).isEqualTo(2000);
      assertThat(d.caps().get("t").action()).isEqualTo(Action.HELD);
    }
    long limit = 2000;
    for (int i = 1; i <= 2; i++) {
      Decision d = ProtectionLaw.step(List.of(u(50, 5)), List.of(t), m);
      assertThat(d.caps().get("t").limit()).as("calm period %d", i).isEqualTo(2000);
    }
    Decision d = ProtectionLaw.step(List.of(u(50, 5)), List.of(t), m);
    assertThat(d.caps().get("t").limit()).isEqualTo(2500);
    assertThat(d.caps().get("t").action()).isEqualTo(Action.RELEASED);
    // up by a quarter every other calm period (one to take effect, one measured at it), not past the roof of 4000
    t = new Sheddable("t", 1, 100, 10_000, 2500, 2500, 4000);
    assertThat(ProtectionLaw.step(List.of(u(50, 5)), List.of(t), m).caps().get("t").limit()).isEqualTo(2500);
    assertThat(ProtectionLaw.step(List.of(u(50, 5)), List.of(t), m).caps().get("t").limit()).isEqualTo(3125);
    t = new Sheddable("t", 1, 100, 10_000, 3125, 3125, 4000);
    ProtectionLaw.step(List.of(u(50, 5)), List.of(t), m);
    assertThat(ProtectionLaw.step(List.of(u(50, 5)), List.of(t), m).caps().get("t").limit()).isEqualTo(3906);
    t = new Sheddable("t", 1, 100, 10_000, 3906, 3906, 4000);
    ProtectionLaw.step(List.of(u(50, 5)), List.of(t), m);
    assertThat(ProtectionLaw.step(List.of(u(50, 5)), List.of(t), m).caps().get("t").limit())
        .as("more than ten periods without a squeeze: the roof is forgotten").isEqualTo(4883);
    // a roof read back from status (a restarted operator) holds for ten periods
    Memory restarted = new Memory();
    Sheddable atRoof = new Sheddable("t", 1, 100, 10_000, 3906, 3906, 4000);
    List<Long> limits = new java.util.ArrayList<>();
    for (int i = 0; i < ProtectionLaw.FORGET_VIOLATION_AFTER + 3; i++) {
      d = ProtectionLaw.step(List.of(u(50, 5)), List.of(atRoof), restarted);
      limits.add(d.caps().get("t").limit());
      atRoof = new Sheddable("t", 1, 100, 10_000, d.caps().get("t").limit(), 3906, d.caps().get("t").roof());
    }
    assertThat(limits.subList(0, ProtectionLaw.FORGET_VIOLATION_AFTER - 1)).allSatisfy(l -> assertThat(l)
        .isLessThanOrEqualTo(4000));
    assertThat(limits.get(limits.size() - 1)).isGreaterThan(4000);
  }

  @Test
  void theHighestSqueezedLevelIsGivenBackFirstAndReachingTheCeilingFreesIt() {
    Memory m = new Memory();
    List<Sheddable> both = List.of(s("batch", 1, 200, 200), s("etl", 5, 9000, 9000));
    Decision d = null;
    for (int i = 0; i < ProtectionLaw.CALM_PERIODS; i++) {
      d = ProtectionLaw.step(List.of(u(50, 0)), both, m);
    }
    assertThat(d.caps().get("etl").limit()).isEqualTo(10_000);
    assertThat(d.caps().get("etl").action()).isEqualTo(Action.FREE);
    assertThat(d.caps().get("batch").limit()).isEqualTo(200);
    d = ProtectionLaw.step(List.of(u(50, 0)), List.of(s("batch", 1, 200, 200), s("etl", 5, 10_000, 9000)), m);
    assertThat(d.caps().get("batch").limit()).isEqualTo(250);
  }

  @Test
  void aLimitOutsideTheSpecsRangeComesBackInside() {
    Decision d = ProtectionLaw.step(List.of(u(50, 9)), List.of(s("high", 1, 50_000, 9000), s("low", 1, 10, 9)),
        new Memory());
    assertThat(d.caps().get("high").limit()).isEqualTo(10_000);
    assertThat(d.caps().get("low").limit()).isEqualTo(100);
  }

  @Test
  void twoProtectedTenantsEachProtectOnlyWhatIsBelowThem() {
    Protected gold = new Protected("gold", 90, List.of(new Objective("reads p99", 10, 20, null)));
    Protected silver = new Protected("silver", 50, List.of(new Objective("reads p99", 10, 5, null)));
    // silver is also sheddable for gold
    Sheddable silverS = new Sheddable("silver", 50, 100, 10_000, 8000, 8000, 0);
    Decision d = ProtectionLaw.step(List.of(gold, silver), List.of(silverS, s("batch", 1, 100, 900)), new Memory());
    assertThat(d.caps().get("batch").limit()).isEqualTo(100);
    assertThat(d.caps().get("silver").limit()).as("batch is at its floor: silver gives for gold").isEqualTo(4000);
    assertThat(d.caps().get("silver").heldBy()).containsExactly("gold");
  }
}
