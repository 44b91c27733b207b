package io.hbaseqos.operator.quota;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Desired versus actual settings of one subject: the writes that make HBase match, in an order
 * that never leaves the subject without a setting on the way (sets, then a bypass switched on,
 * then removals, then a bypass switched off). HBase deletes a subject's cell when its last setting
 * goes, and for a user's own settings that deletes the whole user row with the user's per-table
 * and per-namespace throttles: changing a user's only throttle type must add before it removes.
 * An empty list means nothing is to be written. See {@link QuotaPlan} for removals to nothing.
 */
public final class QuotaDiff {

  private QuotaDiff() {}

  public static List<QuotaOp> between(SubjectQuota desired, SubjectQuota actual) {
    if (!desired.subject().equals(actual.subject())) {
      throw new IllegalArgumentException("different subjects: " + desired.subject() + " vs " + actual.subject());
    }
    Subject s = desired.subject();
    List<QuotaOp> ops = new ArrayList<>();
    if (actual.unreadable() != null) {
      // nothing can be written over it: delete it, then write the subject as if it held nothing
      ops.add(new QuotaOp.ClearUnreadable(s, actual.unreadable()));
      ops.addAll(between(desired, SubjectQuota.empty(s)));
      return ops;
    }
    for (Map.Entry<ThrottleKind, Limit> e : desired.throttles().entrySet()) {
      if (!e.getValue().equals(actual.throttles().get(e.getKey()))) {
        ops.add(new QuotaOp.SetThrottle(s, e.getKey(), e.getValue()));
      }
    }
    if (desired.space() != null && !desired.space().equals(actual.space())) {
      ops.add(new QuotaOp.SetSpace(s, desired.space()));
    }
    if (desired.bypassGlobals() && !actual.bypassGlobals()) {
      ops.add(new QuotaOp.SetBypassGlobals(s, true));
    }
    for (ThrottleKind k : actual.throttles().keySet()) {
      if (!desired.throttles().containsKey(k)) {
        ops.add(new QuotaOp.RemoveThrottle(s, k));
      }
    }
    if (desired.space() == null && actual.space() != null) {
      ops.add(new QuotaOp.RemoveSpace(s));
    }
    if (!desired.bypassGlobals() && actual.bypassGlobals()) {
      ops.add(new QuotaOp.SetBypassGlobals(s, false));
    }
    return ops;
  }

  /** Whether HBase holds exactly the desired settings (storage details aside). */
  public static boolean matches(SubjectQuota desired, SubjectQuota actual) {
    return actual.unreadable() == null && desired.throttles().equals(actual.throttles()) && desired.bypassGlobals() == actual.bypassGlobals()
        && java.util.Objects.equals(desired.space(), actual.space());
  }

  /** The state HBase holds for the subject after the write (for a write-through cache). */
  public static SubjectQuota applyTo(SubjectQuota state, QuotaOp op) {
    if (op instanceof QuotaOp.SetThrottle set) {
      return state.with(set.kind(), set.limit());
    }
    if (op instanceof QuotaOp.RemoveThrottle rm) {
      return state.with(rm.kind(), null);
    }
    if (op instanceof QuotaOp.SetBypassGlobals b) {
      return state.withBypass(b.bypass());
    }
    if (op instanceof QuotaOp.SetSpace set) {
      return state.withSpace(set.limit());
    }
    if (op instanceof QuotaOp.RemoveSpace) {
      SubjectQuota left = state.withSpace(null);
      return left.isEmpty() ? SubjectQuota.empty(state.subject()) : left;
    }
    if (op instanceof QuotaOp.ClearUnreadable) {
      return SubjectQuota.empty(state.subject());
    }
    return state.hasSettings() ? state : SubjectQuota.empty(state.subject()); // DropEmptySettings
  }
}
