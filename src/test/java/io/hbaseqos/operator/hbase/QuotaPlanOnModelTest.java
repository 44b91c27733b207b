package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.QuotaDiff;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.QuotaPlan;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every plan, for every row a user can have and every change of one of its subjects, applied write
 * by write to the model of hbase:quota (whose semantics the contract checks against a real HBase):
 * the subject ends as desired, no other cell is ever lost or changed on the way, and no row is
 * left that would hide others from HBase's own listing.
 */
class QuotaPlanOnModelTest {
  static final Limit L10 = new Limit(10, TimeUnit.SECONDS, Limit.Scope.MACHINE);
  static final Limit L30 = new Limit(30, TimeUnit.SECONDS, Limit.Scope.MACHINE);
  static final Subject OWN = Subject.user("u");
  static final Subject PER_TABLE = new Subject("u", null, "default:t");
  static final Subject PER_NS = new Subject("u", "ns", null);
  static final Subject LATER = Subject.user("z");

  /** How the user's own cell starts, as shell commands. */
  static final Map<String, List<QuotaOp>> OWN_STATES = Map.of(
      "absent", List.of(),
      "R", List.of(new QuotaOp.SetThrottle(OWN, ThrottleKind.REQUEST_NUMBER, L10)),
      "R+W", List.of(new QuotaOp.SetThrottle(OWN, ThrottleKind.REQUEST_NUMBER, L10),
          new QuotaOp.SetThrottle(OWN, ThrottleKind.WRITE_NUMBER, L10)),
      "bypass", List.of(new QuotaOp.SetBypassGlobals(OWN, true)),
      "R+bypass", List.of(new QuotaOp.SetThrottle(OWN, ThrottleKind.REQUEST_NUMBER, L10),
          new QuotaOp.SetBypassGlobals(OWN, true)),
      "R+pinned", List.of(new QuotaOp.SetThrottle(OWN, ThrottleKind.REQUEST_NUMBER, L10),
          new QuotaOp.SetBypassGlobals(OWN, false)),
      "empty cell", List.of(new QuotaOp.SetBypassGlobals(OWN, false)));

  static List<SubjectQuota> desiredFor(Subject s) {
    List<SubjectQuota> out = new ArrayList<>(List.of(SubjectQuota.empty(s),
        SubjectQuota.empty(s).with(ThrottleKind.REQUEST_NUMBER, L30),
        SubjectQuota.empty(s).with(ThrottleKind.READ_NUMBER, L10),
        SubjectQuota.empty(s).with(ThrottleKind.REQUEST_NUMBER, L10).with(ThrottleKind.READ_NUMBER, L10)));
    if (s.equals(OWN)) {
      out.add(SubjectQuota.empty(s).withBypass(true));
      out.add(SubjectQuota.empty(s).with(ThrottleKind.READ_NUMBER, L10).withBypass(true));
    }
    return out;
  }

  @Test
  void everyPlanOnEveryRowKeepsTheRestAndHidesNothing() throws Exception {
    int cases = 0;
    for (var own : OWN_STATES.entrySet()) {
      for (boolean perTable : new boolean[] {false, true}) {
        for (boolean perNs : new boolean[] {false, true}) {
          for (Subject target : List.of(OWN, PER_TABLE, PER_NS)) {
            for (SubjectQuota desired : desiredFor(target)) {
              check(own.getKey(), own.getValue(), perTable, perNs, desired);
              cases++;
            }
          }
        }
      }
    }
    assertThat(cases).isEqualTo(7 * 2 * 2 * (6 + 4 + 4));
  }

  private static void check(String ownState, List<QuotaOp> own, boolean perTable, boolean perNs,
      SubjectQuota desired) throws Exception {
    MemoryQuotaTable hbase = new MemoryQuotaTable();
    for (QuotaOp op : own) {
      hbase.setQuota(op);
    }
    if (perTable) {
      hbase.setQuota(new QuotaOp.SetThrottle(PER_TABLE, ThrottleKind.READ_NUMBER, L10));
    }
    if (perNs) {
      hbase.setQuota(new QuotaOp.SetThrottle(PER_NS, ThrottleKind.WRITE_NUMBER, L10));
    }
    hbase.setQuota(new QuotaOp.SetThrottle(LATER, ThrottleKind.REQUEST_NUMBER, L10));
    Subject target = desired.subject();
    String what = "own=" + ownState + " perTable=" + perTable + " perNs=" + perNs + " -> " + target + " = "
        + desired.describe();

    Map<Subject, SubjectQuota> before = hbase.readUser("u");
    SubjectQuota actual = before.getOrDefault(target, SubjectQuota.empty(target));
    Map<Subject, SubjectQuota> row = QuotaPlan.needsRow(desired, actual) ? before : null;
    List<QuotaOp> plan = QuotaPlan.plan(desired, actual, row);
    if (plan.isEmpty()) {
      assertThat(QuotaDiff.matches(desired, actual) && (desired.hasSettings() || !actual.hasSettings()))
          .as(what + ": nothing to write only when HBase already holds it").isTrue();
      return; // (an empty row that was there before is the resync's to remove)
    }
    Map<Subject, SubjectQuota> othersBefore = settingsOfOthers(before, target);
    for (QuotaOp op : plan) {
      hbase.apply(op);
      assertThat(settingsOfOthers(hbase.readUser("u"), target)).as(what + ", after " + op).isEqualTo(othersBefore);
    }
    Map<Subject, SubjectQuota> after = hbase.readUser("u");
    SubjectQuota now = after.getOrDefault(target, SubjectQuota.empty(target));
    assertThat(QuotaDiff.matches(desired, now)).as(what + ": " + now.describe()).isTrue();
    if (!desired.hasSettings()) {
      assertThat(after).as(what + ": nothing left of the subject").doesNotContainKey(target);
    }
    assertThat(hbase.hbaseListing()).as(what + ": HBase's listing reaches the later row").contains(LATER);
    if (ownState.equals("empty cell") && desired.hasSettings()) {
      return; // an empty own cell the plan did not touch stays, and hides nothing while the row holds a setting
    }
    assertThat(after.values().stream().filter(SubjectQuota::isEmptyCell).count() == 0 || othersHold(after))
        .as(what + ": no row left holding only an empty cell").isTrue();
  }

  private static boolean othersHold(Map<Subject, SubjectQuota> row) {
    return row.values().stream().anyMatch(SubjectQuota::hasSettings);
  }

  /** The settings of every other cell in the row (the user's own empty cell is storage, not a setting). */
  private static Map<Subject, SubjectQuota> settingsOfOthers(Map<Subject, SubjectQuota> row, Subject target) {
    Map<Subject, SubjectQuota> out = new HashMap<>();
    row.forEach((s, q) -> {
      if (!s.equals(target) && q.hasSettings()) {
        out.put(s, q.settingsOnly());
      }
    });
    return out;
  }
}
