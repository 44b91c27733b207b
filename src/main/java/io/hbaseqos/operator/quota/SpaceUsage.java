package io.hbaseqos.operator.quota;

/**
 * What HBase's master last reported for a space quota (its {@code SpaceQuotaSnapshot}): bytes
 * used, the limit it enforces, and whether the violation policy is in force.
 *
 * @param policy the policy in force while in violation, or the configured one (may be null)
 */
public record SpaceUsage(long usedBytes, long limitBytes, boolean inViolation, SpaceLimit.Policy policy) {

  /** Used as a whole percentage of the limit, rounded down (0 for a limit of 0). */
  public int usedPercent() {
    return limitBytes <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, usedBytes * 100 / limitBytes);
  }

  /** For {@code kubectl get}: {@code 12% of 10G}, or {@code 104% of 1M, NO_INSERTS in force}. */
  public String describe() {
    String s = usedPercent() + "% of " + SpaceLimit.formatSize(limitBytes);
    return inViolation ? s + ", " + (policy == null ? "policy" : policy.name()) + " in force" : s;
  }
}
