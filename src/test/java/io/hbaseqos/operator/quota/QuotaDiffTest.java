package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class QuotaDiffTest {
  private static final Subject U = Subject.user("alice");
  private static final Limit L2500 = new Limit(2500, TimeUnit.SECONDS, Limit.Scope.MACHINE);
  private static final Limit L10M = new Limit(10L << 20, TimeUnit.SECONDS, Limit.Scope.MACHINE);

  private static SubjectQuota q(Subject s, Map<ThrottleKind, Limit> m, boolean bypass) {
    return new SubjectQuota(s, m, bypass);
  }

  @Test
  void equalStatesNeedNoWrites() {
    SubjectQuota a = q(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500, ThrottleKind.READ_SIZE, L10M), true);
    SubjectQuota b = q(U, Map.of(ThrottleKind.READ_SIZE, L10M, ThrottleKind.REQUEST_NUMBER, L2500), true);
    assertThat(QuotaDiff.between(a, b)).isEmpty();
  }

  @Test
  void addsChangesAndRemovesExactlyWhatDiffers() {
    SubjectQuota desired = q(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500.withAmount(3000),
        ThrottleKind.WRITE_NUMBER, L2500), false);
    SubjectQuota actual = q(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500, ThrottleKind.READ_SIZE, L10M), false);
    List<QuotaOp> ops = QuotaDiff.between(desired, actual);
    // sets first: the subject never holds nothing on the way (HBase would delete a user's row)
    assertThat(ops).containsExactly(
        new QuotaOp.SetThrottle(U, ThrottleKind.REQUEST_NUMBER, L2500.withAmount(3000)),
        new QuotaOp.SetThrottle(U, ThrottleKind.WRITE_NUMBER, L2500),
        new QuotaOp.RemoveThrottle(U, ThrottleKind.READ_SIZE));
  }

  @Test
  void timeUnitAndScopeChangesAreChanges() {
    SubjectQuota actual = q(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500), false);
    assertThat(QuotaDiff.between(q(U, Map.of(ThrottleKind.REQUEST_NUMBER, new Limit(2500, TimeUnit.MINUTES,
        Limit.Scope.MACHINE)), false), actual)).hasSize(1);
    assertThat(QuotaDiff.between(q(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500.withScope(Limit.Scope.CLUSTER)),
        false), actual)).hasSize(1);
  }

  @Test
  void bypassGlobalsIsItsOwnWrite() {
    assertThat(QuotaDiff.between(q(U, Map.of(), true), SubjectQuota.empty(U)))
        .containsExactly(new QuotaOp.SetBypassGlobals(U, true));
    assertThat(QuotaDiff.between(SubjectQuota.empty(U), q(U, Map.of(), true)))
        .containsExactly(new QuotaOp.SetBypassGlobals(U, false));
  }

  @Test
  void changingTheOnlyTypeNeverPassesThroughNothing() {
    SubjectQuota actual = q(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500), false);
    SubjectQuota desired = q(U, Map.of(ThrottleKind.READ_NUMBER, L2500), false);
    SubjectQuota state = actual;
    for (QuotaOp op : QuotaDiff.between(desired, actual)) {
      state = QuotaDiff.applyTo(state, op);
      assertThat(state.hasSettings()).as("after " + op).isTrue();
    }
    assertThat(QuotaDiff.matches(desired, state)).isTrue();
  }

  @Test
  void aBypassSwitchedOnComesBeforeRemovalsAndOneSwitchedOffAfterThem() {
    SubjectQuota actual = q(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500), false);
    assertThat(QuotaDiff.between(q(U, Map.of(), true), actual)).containsExactly(
        new QuotaOp.SetBypassGlobals(U, true), new QuotaOp.RemoveThrottle(U, ThrottleKind.REQUEST_NUMBER));
    assertThat(QuotaDiff.between(q(U, Map.of(ThrottleKind.READ_SIZE, L10M), false),
        q(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500), true))).containsExactly(
        new QuotaOp.SetThrottle(U, ThrottleKind.READ_SIZE, L10M), new QuotaOp.RemoveThrottle(U, ThrottleKind.REQUEST_NUMBER),
        new QuotaOp.SetBypassGlobals(U, false));
  }

  @Test
  void aStoredFalseBypassIsAStorageDetailNotADifference() {
    SubjectQuota pinned = new SubjectQuota(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500), false, true);
    SubjectQuota desired = q(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500), false);
    assertThat(QuotaDiff.between(desired, pinned)).isEmpty();
    assertThat(QuotaDiff.matches(desired, pinned)).isTrue();
    assertThat(pinned.settingsOnly()).isEqualTo(desired);
    assertThat(SubjectQuota.emptyCell(U).isEmpty()).isFalse();
    assertThat(SubjectQuota.emptyCell(U).isEmptyCell()).isTrue();
    assertThat(SubjectQuota.emptyCell(U).hasSettings()).isFalse();
  }

  @Test
  void applyingTheDiffReachesTheDesiredState() {
    SubjectQuota desired = q(U, Map.of(ThrottleKind.WRITE_SIZE, L10M, ThrottleKind.READ_NUMBER, L2500), true);
    SubjectQuota actual = q(U, Map.of(ThrottleKind.READ_NUMBER, L2500.withAmount(1), ThrottleKind.ATOMIC_READ_SIZE,
        L10M), false);
    SubjectQuota state = actual;
    for (QuotaOp op : QuotaDiff.between(desired, actual)) {
      state = QuotaDiff.applyTo(state, op);
    }
    assertThat(state).isEqualTo(desired);
    assertThat(QuotaDiff.between(desired, state)).isEmpty();
  }

  @Test
  void describeRendersShellSyntax() {
    assertThat(q(U, Map.of(ThrottleKind.REQUEST_NUMBER, L2500, ThrottleKind.READ_SIZE, L10M.withScope(
        Limit.Scope.CLUSTER)), true).describe())
        .isEqualTo("REQUEST_NUMBER=2500req/sec,READ_SIZE=10M/sec(cluster),bypassGlobals");
    assertThat(SubjectQuota.empty(U).describe()).isEqualTo("none");
  }
}
