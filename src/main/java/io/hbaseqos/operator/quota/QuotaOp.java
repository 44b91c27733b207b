package io.hbaseqos.operator.quota;

/** One write to HBase: each maps to exactly one {@code Admin.setQuota} call. */
public sealed interface QuotaOp {

  Subject subject();

  /** Sets (adds or changes) one throttle type. */
  record SetThrottle(Subject subject, ThrottleKind kind, Limit limit) implements QuotaOp {}

  /** Removes one throttle type ({@code unthrottle*ByThrottleType}). */
  record RemoveThrottle(Subject subject, ThrottleKind kind) implements QuotaOp {}

  /** Sets or clears the user's bypass of table, namespace and RegionServer throttles. */
  record SetBypassGlobals(Subject subject, boolean bypass) implements QuotaOp {}
}
