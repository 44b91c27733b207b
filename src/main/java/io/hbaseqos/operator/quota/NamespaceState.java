package io.hbaseqos.operator.quota;

/**
 * One namespace as a listing found it: the limits on its descriptor, its tables (disabled ones
 * included, as HBase counts them against {@code maxtables}) and its regions online.
 */
public record NamespaceState(String name, NamespaceLimits limits, int tables, int regions) {

  /** A namespace no listing has counted yet (created since the last one). */
  public static NamespaceState uncounted(String name) {
    return new NamespaceState(name, NamespaceLimits.NONE, 0, 0);
  }

  /** The same namespace and counts, holding {@code other} limits. */
  public NamespaceState withLimits(NamespaceLimits other) {
    return new NamespaceState(name, other, tables, regions);
  }

  /** For status: {@code 3 of 5 tables, 12 of 100 regions}; a count without a maximum stands alone. */
  public String describeUsage() {
    return count(tables, limits.maxTables(), "table") + ", " + count(regions, limits.maxRegions(), "region");
  }

  private static String count(int used, Long max, String noun) {
    String plural = noun + (((max == null ? used : max) == 1) ? "" : "s");
    return max == null ? used + " " + plural : used + " of " + max + " " + plural;
  }
}
