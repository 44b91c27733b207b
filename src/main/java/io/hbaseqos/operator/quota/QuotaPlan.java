package io.hbaseqos.operator.quota;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The writes that bring one subject to its desired settings, given how HBase stores a user's
 * quotas: all in one row ({@code u.<user>}), one cell for the user's own settings and one per table
 * or namespace. Pure.
 *
 * <p>HBase's row semantics the plan respects (checked against a real HBase by the contract test):
 * <ul>
 *   <li>a cell whose last setting is removed is deleted; for the user's own cell that deletes the
 *       whole row, with the user's per-table and per-namespace throttles;</li>
 *   <li>a cell that ever stored a bypass keeps {@code bypass_globals=false} when the bypass is
 *       switched off, and is then never deleted by removing throttles;</li>
 *   <li>a row whose cells hold no setting at all stops HBase's quota scanner.</li>
 * </ul>
 * So a user's own settings are removed without touching the row's other cells by first storing
 * a false bypass (pinning the cell), and a cell left holding nothing is deleted explicitly
 * ({@link QuotaOp.DropEmptySettings}) once its last setting is gone.
 */
public final class QuotaPlan {

  private QuotaPlan() {}

  /**
   * Whether planning needs the subject's user row as HBase holds it now: the subject's last
   * setting goes, which can delete other cells of the row or leave a cell holding nothing.
   */
  public static boolean needsRow(SubjectQuota desired, SubjectQuota actual) {
    return desired.subject().user() != null && !desired.hasSettings() && !actual.isEmpty();
  }

  /**
   * @param desired what HBase must hold for the subject (no settings: remove everything)
   * @param actual what HBase holds for it
   * @param row every cell of the subject's user row, as read just before (needed when
   *     {@link #needsRow} says so; may be null otherwise)
   */
  public static List<QuotaOp> plan(SubjectQuota desired, SubjectQuota actual, Map<Subject, SubjectQuota> row) {
    if (desired.hasSettings() || actual.isEmpty() || actual.unreadable() != null) {
      // an unreadable cell is deleted exactly (one cell, never the row): nothing to pin around it
      return QuotaDiff.between(desired, actual);
    }
    Subject s = desired.subject();
    if (s.user() == null) {
      return QuotaDiff.between(desired, actual);
    }
    if (row == null) {
      throw new IllegalArgumentException("removing the settings of " + s + " needs its user row");
    }
    List<QuotaOp> ops = new ArrayList<>();
    Subject own = Subject.user(s.user());
    if (s.equals(own)) {
      boolean stored = actual.bypassStored();
      if (!stored && !actual.throttles().isEmpty() && othersHold(row, own, null)) {
        ops.add(new QuotaOp.SetBypassGlobals(s, false)); // pin: the cell, and the row, survive
        stored = true;
      }
      actual.throttles().keySet().forEach(k -> ops.add(new QuotaOp.RemoveThrottle(s, k)));
      if (actual.bypassGlobals()) {
        ops.add(new QuotaOp.SetBypassGlobals(s, false));
      }
      if (stored) {
        ops.add(new QuotaOp.DropEmptySettings(s));
      }
      return ops;
    }
    actual.throttles().keySet().forEach(k -> ops.add(new QuotaOp.RemoveThrottle(s, k)));
    SubjectQuota global = row.get(own);
    if (global != null && global.isEmptyCell() && !othersHold(row, own, s)) {
      ops.add(new QuotaOp.DropEmptySettings(own)); // the row would hold nothing but an empty cell
    }
    return ops;
  }

  private static boolean othersHold(Map<Subject, SubjectQuota> row, Subject own, Subject except) {
    return row.entrySet().stream().anyMatch(e -> !e.getKey().equals(own) && !e.getKey().equals(except)
        && !e.getValue().isEmpty());
  }
}
