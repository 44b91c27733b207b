package io.hbaseqos.operator.quota;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Desired versus actual for one subject: the smallest list of writes that makes HBase match.
 * An empty list means nothing is to be written.
 */
public final class QuotaDiff {

  private QuotaDiff() {}

  public static List<QuotaOp> between(SubjectQuota desired, SubjectQuota actual) {
    if (!desired.subject().equals(actual.subject())) {
      throw new IllegalArgumentException("different subjects: " + desired.subject() + " vs " + actual.subject());
    }
    Subject s = desired.subject();
    List<QuotaOp> ops = new ArrayList<>();
    // Removals first: for a user's global quota, removing the last type deletes the whole user row
    // in HBase (including per-table settings), so callers re-read that user after removals.
    for (ThrottleKind k : actual.throttles().keySet()) {
      if (!desired.throttles().containsKey(k)) {
        ops.add(new QuotaOp.RemoveThrottle(s, k));
      }
    }
    for (Map.Entry<ThrottleKind, Limit> e : desired.throttles().entrySet()) {
      Limit current = actual.throttles().get(e.getKey());
      if (!e.getValue().equals(current)) {
        ops.add(new QuotaOp.SetThrottle(s, e.getKey(), e.getValue()));
      }
    }
    if (desired.bypassGlobals() != actual.bypassGlobals()) {
      ops.add(new QuotaOp.SetBypassGlobals(s, desired.bypassGlobals()));
    }
    return ops;
  }

  /** Writes that remove everything a subject has (used on deletion and for unmanaged quotas). */
  public static List<QuotaOp> removeAll(SubjectQuota actual) {
    return between(SubjectQuota.empty(actual.subject()), actual);
  }

  /** True when applying {@code ops} may delete other subjects of the same user (HBase row delete). */
  public static boolean mayDropUserRow(List<QuotaOp> ops, SubjectQuota actual) {
    if (actual.subject().kind() != Subject.Kind.USER) {
      return false;
    }
    SubjectQuota after = actual;
    for (QuotaOp op : ops) {
      after = applyTo(after, op);
    }
    return after.isEmpty() && !actual.isEmpty();
  }

  /** The state HBase holds for the subject after the write (for a write-through cache). */
  public static SubjectQuota applyTo(SubjectQuota state, QuotaOp op) {
    if (op instanceof QuotaOp.SetThrottle set) {
      return state.with(set.kind(), set.limit());
    }
    if (op instanceof QuotaOp.RemoveThrottle rm) {
      return state.with(rm.kind(), null);
    }
    return state.withBypass(((QuotaOp.SetBypassGlobals) op).bypass());
  }
}
