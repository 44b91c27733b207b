package io.hbaseqos.operator.quota;

/**
 * One write to HBase. All but {@link DropEmptySettings} and {@link ClearUnreadable} are one
 * {@code Admin.setQuota} call each; those two are conditional deletes of a cell HBase's own API can
 * never remove.
 */
public sealed interface QuotaOp {

  Subject subject();

  /** The writes in words, for events: {@code set READ_NUMBER=100req/sec, removed WRITE_SIZE for user=alice}. */
  static String describe(java.util.List<QuotaOp> ops) {
    return ops.stream().map(op -> {
      if (op instanceof SetThrottle s) {
        return "set " + s.kind() + "=" + LimitSyntax.format(s.kind(), s.limit());
      }
      if (op instanceof RemoveThrottle r) {
        return "removed " + r.kind();
      }
      if (op instanceof SetBypassGlobals b) {
        return "bypassGlobals=" + b.bypass();
      }
      if (op instanceof SetSpace sp) {
        return "set SPACE=" + sp.limit().describe();
      }
      if (op instanceof RemoveSpace) {
        return "removed SPACE";
      }
      if (op instanceof ClearUnreadable c) {
        return "deleted the unreadable cell " + c.cell().describe();
      }
      return "dropped the empty settings cell of user " + op.subject().user();
    }).collect(java.util.stream.Collectors.joining(", ", "", " for " + ops.get(0).subject()));
  }

  /** Sets (adds or changes) one throttle type. */
  record SetThrottle(Subject subject, ThrottleKind kind, Limit limit) implements QuotaOp {}

  /** Removes one throttle type ({@code unthrottle*ByThrottleType}). */
  record RemoveThrottle(Subject subject, ThrottleKind kind) implements QuotaOp {}

  /** Sets (adds or changes) the space limit of a table or namespace. */
  record SetSpace(Subject subject, SpaceLimit limit) implements QuotaOp {}

  /** Removes the space limit of a table or namespace. */
  record RemoveSpace(Subject subject) implements QuotaOp {}

  /** Sets or clears the user's bypass of table, namespace and RegionServer throttles. */
  record SetBypassGlobals(Subject subject, boolean bypass) implements QuotaOp {}

  /**
   * Deletes a user's own settings cell if it holds no setting (only {@code bypass_globals=false}).
   * HBase keeps such a cell forever once a bypass was set; a user row holding nothing else stops
   * HBase's quota scanner ({@code QuotaRetriever}), hiding every later row from
   * {@code Admin.getQuota} and {@code list_quotas}. Applied only while the cell is still empty.
   */
  record DropEmptySettings(Subject subject) implements QuotaOp {}

  /**
   * Deletes a subject's cell that holds bytes that are not quota settings, only while it holds
   * exactly those bytes. HBase's {@code setQuota} parses the cell before changing it, so it can
   * neither overwrite nor remove such a cell; once it is gone the subject is written as usual.
   */
  record ClearUnreadable(Subject subject, UnreadableCell cell) implements QuotaOp {}
}
