package io.hbaseqos.operator.quota;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A namespace's table and region maximums, which HBase keeps on the namespace descriptor (keys
 * {@value #MAX_TABLES} and {@value #MAX_REGIONS}), not in {@code hbase:quota}. A null maximum is
 * "no limit": the key is absent. HBase refuses values below 1; the API refuses them at admission.
 */
public record NamespaceLimits(Long maxTables, Long maxRegions) {
  public static final String MAX_TABLES = "hbase.namespace.quota.maxtables";
  public static final String MAX_REGIONS = "hbase.namespace.quota.maxregions";
  public static final NamespaceLimits NONE = new NamespaceLimits(null, null);

  /**
   * The limits a descriptor's configuration holds. A value that is not a whole number of at least
   * 1 (set by hand; HBase refuses it too) reads as {@link #INVALID}, which no declared limit equals,
   * so it is rewritten.
   */
  public static NamespaceLimits of(Map<String, String> config) {
    return new NamespaceLimits(parse(config.get(MAX_TABLES)), parse(config.get(MAX_REGIONS)));
  }

  /** Stands for a key whose value is not a whole number of at least 1. */
  public static final long INVALID = 0L;

  private static Long parse(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      long v = Long.parseLong(value.trim());
      return v < 1 ? INVALID : v;
    } catch (NumberFormatException e) {
      return INVALID;
    }
  }

  /** True when neither maximum is set. */
  public boolean isNone() {
    return maxTables == null && maxRegions == null;
  }

  /**
   * The descriptor configuration that holds these limits: {@code config} with both keys set or
   * removed, every other key kept as it is.
   */
  public Map<String, String> applyTo(Map<String, String> config) {
    Map<String, String> out = new LinkedHashMap<>(config);
    put(out, MAX_TABLES, maxTables);
    put(out, MAX_REGIONS, maxRegions);
    return out;
  }

  private static void put(Map<String, String> config, String key, Long value) {
    if (value == null) {
      config.remove(key);
    } else {
      config.put(key, Long.toString(value));
    }
  }

  /** For status and events: {@code maxTables=5, maxRegions=100}, or {@code no limits}. */
  public String describe() {
    if (isNone()) {
      return "no limits";
    }
    StringBuilder sb = new StringBuilder();
    if (maxTables != null) {
      sb.append("maxTables=").append(text(maxTables));
    }
    if (maxRegions != null) {
      sb.append(sb.isEmpty() ? "" : ", ").append("maxRegions=").append(text(maxRegions));
    }
    return sb.toString();
  }

  private static String text(long v) {
    return v == INVALID ? "invalid" : Long.toString(v);
  }
}
