package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The plan's steps, case by case (the HBase side of each is checked by QuotaPlanOnModelTest and the contract). */
class QuotaPlanTest {
  static final Limit L = new Limit(10, TimeUnit.SECONDS, Limit.Scope.MACHINE);
  static final Subject OWN = Subject.user("u");
  static final Subject PER_TABLE = new Subject("u", null, "t");
  static final Subject PER_NS = new Subject("u", "ns", null);

  static SubjectQuota throttled(Subject s) {
    return SubjectQuota.empty(s).with(ThrottleKind.REQUEST_NUMBER, L);
  }

  @Test
  void aChangeThatKeepsSettingsIsTheDiffAndNeedsNoRow() {
    SubjectQuota desired = SubjectQuota.empty(OWN).with(ThrottleKind.READ_NUMBER, L);
    assertThat(QuotaPlan.needsRow(desired, throttled(OWN))).isFalse();
    assertThat(QuotaPlan.plan(desired, throttled(OWN), null)).isEqualTo(QuotaDiff.between(desired, throttled(OWN)));
  }

  @Test
  void removingAUsersLastSettingNeedsTheRow() {
    assertThat(QuotaPlan.needsRow(SubjectQuota.empty(OWN), throttled(OWN))).isTrue();
    assertThat(QuotaPlan.needsRow(SubjectQuota.empty(PER_TABLE), throttled(PER_TABLE))).isTrue();
    assertThat(QuotaPlan.needsRow(SubjectQuota.empty(OWN), SubjectQuota.empty(OWN))).isFalse();
    assertThat(QuotaPlan.needsRow(SubjectQuota.empty(Subject.table("t")), throttled(Subject.table("t")))).isFalse();
    assertThatThrownBy(() -> QuotaPlan.plan(SubjectQuota.empty(OWN), throttled(OWN), null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void alone_inItsRow_aUsersSettingsAreSimplyRemoved() {
    assertThat(QuotaPlan.plan(SubjectQuota.empty(OWN), throttled(OWN), Map.of(OWN, throttled(OWN))))
        .containsExactly(new QuotaOp.RemoveThrottle(OWN, ThrottleKind.REQUEST_NUMBER));
  }

  @Test
  void withOtherCellsTheOwnCellIsPinnedFirstAndDroppedLast() {
    assertThat(QuotaPlan.plan(SubjectQuota.empty(OWN), throttled(OWN),
        Map.of(OWN, throttled(OWN), PER_TABLE, throttled(PER_TABLE)))).containsExactly(
        new QuotaOp.SetBypassGlobals(OWN, false), new QuotaOp.RemoveThrottle(OWN, ThrottleKind.REQUEST_NUMBER),
        new QuotaOp.DropEmptySettings(OWN));
  }

  @Test
  void aBypassIsSwitchedOffAfterTheThrottlesAndItsCellDropped() {
    SubjectQuota bypass = throttled(OWN).withBypass(true);
    assertThat(QuotaPlan.plan(SubjectQuota.empty(OWN), bypass, Map.of(OWN, bypass))).containsExactly(
        new QuotaOp.RemoveThrottle(OWN, ThrottleKind.REQUEST_NUMBER), new QuotaOp.SetBypassGlobals(OWN, false),
        new QuotaOp.DropEmptySettings(OWN));
  }

  @Test
  void anAlreadyPinnedCellNeedsNoPin() {
    SubjectQuota pinned = new SubjectQuota(OWN, throttled(OWN).throttles(), false, true);
    assertThat(QuotaPlan.plan(SubjectQuota.empty(OWN), pinned, Map.of(OWN, pinned, PER_NS, throttled(PER_NS))))
        .containsExactly(new QuotaOp.RemoveThrottle(OWN, ThrottleKind.REQUEST_NUMBER), new QuotaOp.DropEmptySettings(OWN));
  }

  @Test
  void anEmptyCellIsDropped() {
    assertThat(QuotaPlan.plan(SubjectQuota.empty(OWN), SubjectQuota.emptyCell(OWN), Map.of(OWN, SubjectQuota.emptyCell(OWN))))
        .containsExactly(new QuotaOp.DropEmptySettings(OWN));
  }

  @Test
  void theLastOtherCellNextToAnEmptyOwnCellTakesTheOwnCellAlong() {
    assertThat(QuotaPlan.plan(SubjectQuota.empty(PER_TABLE), throttled(PER_TABLE),
        Map.of(OWN, SubjectQuota.emptyCell(OWN), PER_TABLE, throttled(PER_TABLE)))).containsExactly(
        new QuotaOp.RemoveThrottle(PER_TABLE, ThrottleKind.REQUEST_NUMBER), new QuotaOp.DropEmptySettings(OWN));
    // another cell still holds a setting: the empty own cell hides nothing and stays
    assertThat(QuotaPlan.plan(SubjectQuota.empty(PER_TABLE), throttled(PER_TABLE),
        Map.of(OWN, SubjectQuota.emptyCell(OWN), PER_TABLE, throttled(PER_TABLE), PER_NS, throttled(PER_NS))))
        .containsExactly(new QuotaOp.RemoveThrottle(PER_TABLE, ThrottleKind.REQUEST_NUMBER));
    // an own cell with settings: nothing to drop
    assertThat(QuotaPlan.plan(SubjectQuota.empty(PER_TABLE), throttled(PER_TABLE),
        Map.of(OWN, throttled(OWN), PER_TABLE, throttled(PER_TABLE))))
        .containsExactly(new QuotaOp.RemoveThrottle(PER_TABLE, ThrottleKind.REQUEST_NUMBER));
  }

  @Test
  void tablesAndNamespacesAreTheirOwnRows() {
    Subject t = Subject.table("t");
    assertThat(QuotaPlan.plan(SubjectQuota.empty(t), throttled(t), null))
        .containsExactly(new QuotaOp.RemoveThrottle(t, ThrottleKind.REQUEST_NUMBER));
  }
}
