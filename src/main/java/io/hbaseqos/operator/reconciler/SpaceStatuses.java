package io.hbaseqos.operator.reconciler;

import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.api.SpaceStatus;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TenantQuotaStatus;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.quota.SpaceLimit;
import io.hbaseqos.operator.quota.SpaceUsage;
import io.hbaseqos.operator.quota.Subject;

/** A space quota's usage as status, the SpaceQuotaViolated condition, events and gauges. */
final class SpaceStatuses {
  private SpaceStatuses() {}

  /**
   * @param inHBase the space limit HBase holds for the subject (null: none)
   * @param usage the master's last report for the subject (null: none yet)
   * @param usageRead whether usage has been read at all since the operator connected
   */
  static void report(TenantQuota tq, StatusAggregator<TenantQuotaStatus> status, Subject subject,
      SpaceLimit inHBase, SpaceUsage usage, boolean usageRead, OperatorMetrics metrics) {
    TenantQuotaStatus old = status.old;
    TenantQuotaStatus st = status.st;
    String ns = tq.getMetadata().getNamespace();
    String name = tq.getMetadata().getName();
    if (inHBase == null) {
      st.setSpace(null);
      status.remove(Conditions.SPACE_VIOLATED);
      metrics.forgetSpace(ns, name);
      return;
    }
    boolean table = subject.kind() == Subject.Kind.TABLE;
    SpaceStatus before = old.getSpace();
    if (!usageRead && before != null && Long.valueOf(inHBase.bytes()).equals(before.getLimitBytes())
        && inHBase.policy().name().equals(before.getPolicy())) {
      // no usage read yet (right after a start): what status says still stands
      st.setSpace(before);
      metrics.space(ns, name, before.getUsedBytes() == null ? Double.NaN : before.getUsedBytes(), inHBase.bytes(),
          Boolean.TRUE.equals(before.getInViolation()));
      return;
    }
    SpaceStatus s = SpaceStatus.of(inHBase, usage, table, before, status.now);
    st.setSpace(s);
    metrics.space(ns, name, s.getUsedBytes() == null ? Double.NaN : s.getUsedBytes(), inHBase.bytes(),
        Boolean.TRUE.equals(s.getInViolation()));
    boolean was = Conditions.isTrue(old, Conditions.SPACE_VIOLATED);
    boolean is = Boolean.TRUE.equals(s.getInViolation());
    String policy = usage != null && usage.policy() != null ? usage.policy().name() : inHBase.policy().name();
    String message = is
        ? subject + " is over its space limit of " + SpaceLimit.formatSize(inHBase.bytes()) + ": HBase enforces "
            + policy + " (" + effect(policy, table) + ") until usage is back under the limit or the limit is raised"
        : "usage is within the space limit of " + SpaceLimit.formatSize(inHBase.bytes());
    status.set(Conditions.SPACE_VIOLATED, is, is ? policy : "WithinLimit", message);
    if (is && !was) {
      status.warning("SpaceQuotaViolated", message + "; " + s.getUsage());
      if (Boolean.TRUE.equals(s.getTableDisabled())) {
        status.warning("TableDisabledBySpaceQuota", "HBase disabled table " + subject.table()
            + ": it is over its space limit and its policy is DISABLE");
      } else if ("DISABLE".equals(policy) && !table) {
        status.warning("TableDisabledBySpaceQuota", "HBase disables the tables of namespace "
            + subject.namespace() + ": it is over its space limit and its policy is DISABLE");
      }
    } else if (!is && was) {
      status.normal("SpaceQuotaRestored", subject + " is back within its space limit (" + s.getUsage()
          + "): HBase no longer enforces " + old.condition(Conditions.SPACE_VIOLATED).map(c -> c.getReason())
          .orElse("the policy"));
    }
  }

  private static String effect(String policy, boolean table) {
    return switch (policy) {
      case "NO_INSERTS" -> "puts, appends and increments are refused";
      case "NO_WRITES" -> "puts, appends, increments and deletes are refused";
      case "NO_WRITES_COMPACTIONS" -> "writes and compactions are refused";
      case "DISABLE" -> table ? "the table is disabled" : "the namespace's tables are disabled";
      default -> "writes are limited";
    };
  }
}
