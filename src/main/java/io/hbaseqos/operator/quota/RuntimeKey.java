package io.hbaseqos.operator.quota;

import java.util.Locale;

/**
 * A quota setting each RegionServer reads from its own hbase-site.xml (not from {@code hbase:quota}):
 * the key, the value HBase uses when it is not set, how HBase parses it, and the first release that
 * reads it (checked in the HBase 2.6.4 jars: {@code QuotaUtil}, {@code QuotaCache},
 * {@code TimeBasedLimiter}, {@code DefaultOperationQuota}). Pure.
 */
public enum RuntimeKey {
  RATE_LIMITER("hbase.quota.rate.limiter", RuntimeKey.AVERAGE_LIMITER, Parse.CLASS, null, null),
  REFILL_INTERVAL_MS("hbase.quota.rate.limiter.refill.interval.ms", "1000", Parse.LONG, Since.V260, null),
  USER_OVERRIDE_KEY("hbase.quota.user.override.key", null, Parse.TEXT, Since.V260, null),
  USE_RESULT_SIZE_BYTES("hbase.quota.use.result.size.bytes", "false", Parse.BOOLEAN, Since.V260, null),
  READ_CAPACITY_UNIT("hbase.quota.read.capacity.unit", "1024", Parse.LONG, null, null),
  WRITE_CAPACITY_UNIT("hbase.quota.write.capacity.unit", "1024", Parse.LONG, null, null),
  DEFAULT_USER_REQUEST_NUMBER(RuntimeKey.DEFAULT_USER + "request.num", ThrottleKind.REQUEST_NUMBER),
  DEFAULT_USER_REQUEST_SIZE(RuntimeKey.DEFAULT_USER + "request.size", ThrottleKind.REQUEST_SIZE),
  DEFAULT_USER_READ_NUMBER(RuntimeKey.DEFAULT_USER + "read.num", ThrottleKind.READ_NUMBER),
  DEFAULT_USER_READ_SIZE(RuntimeKey.DEFAULT_USER + "read.size", ThrottleKind.READ_SIZE),
  DEFAULT_USER_WRITE_NUMBER(RuntimeKey.DEFAULT_USER + "write.num", ThrottleKind.WRITE_NUMBER),
  DEFAULT_USER_WRITE_SIZE(RuntimeKey.DEFAULT_USER + "write.size", ThrottleKind.WRITE_SIZE),
  DEFAULT_USER_ATOMIC_REQUEST_NUMBER(RuntimeKey.DEFAULT_USER + "atomic.request.num", ThrottleKind.ATOMIC_REQUEST_NUMBER),
  DEFAULT_USER_ATOMIC_READ_SIZE(RuntimeKey.DEFAULT_USER + "atomic.read.size", ThrottleKind.ATOMIC_READ_SIZE),
  DEFAULT_USER_ATOMIC_WRITE_SIZE(RuntimeKey.DEFAULT_USER + "atomic.write.size", ThrottleKind.ATOMIC_WRITE_SIZE),
  DEFAULT_USER_REQUEST_HANDLER_USAGE_MS(RuntimeKey.DEFAULT_USER + "request.handler.usage.ms",
      ThrottleKind.REQUEST_HANDLER_USAGE_MS);

  /** How HBase reads the value (Hadoop's {@code Configuration} getters). */
  public enum Parse { TEXT, CLASS, LONG, INT, BOOLEAN }

  public static final String AVERAGE_LIMITER = "org.apache.hadoop.hbase.quotas.AverageIntervalRateLimiter";
  public static final String FIXED_LIMITER = "org.apache.hadoop.hbase.quotas.FixedIntervalRateLimiter";
  static final String DEFAULT_USER = "hbase.quota.default.user.machine.";
  /** Held apart: the enum constants are built before the enum's own static fields. */
  private static final class Since {
    static final HBaseVersion V260 = new HBaseVersion(2, 6, 0);
  }

  private final String key;
  private final String hbaseDefault;
  private final Parse parse;
  private final HBaseVersion since;
  private final ThrottleKind defaultUserType;

  RuntimeKey(String key, String hbaseDefault, Parse parse, HBaseVersion since, ThrottleKind defaultUserType) {
    this.key = key;
    this.hbaseDefault = hbaseDefault;
    this.parse = parse;
    this.since = since;
    this.defaultUserType = defaultUserType;
  }

  /** A default user quota: an int per second on each RegionServer, -1 (unset) by default (HBASE-27800). */
  RuntimeKey(String key, ThrottleKind type) {
    this(key, "-1", Parse.INT, type.since() == null ? Since.V260 : type.since(), type);
  }

  public String key() {
    return key;
  }

  /** What HBase uses when the key is not set; null when "not set" is itself the behaviour. */
  public String hbaseDefault() {
    return hbaseDefault;
  }

  /** The first HBase release that reads the key, or null for every supported release. */
  public HBaseVersion since() {
    return since;
  }

  /** The key of the default user quota of a throttle type, or null when HBase has none (capacity units). */
  public static RuntimeKey defaultUser(ThrottleKind type) {
    for (RuntimeKey k : values()) {
      if (k.defaultUserType == type) {
        return k;
      }
    }
    return null;
  }

  public ThrottleKind defaultUserType() {
    return defaultUserType;
  }

  /**
   * What a RegionServer does with a raw value ({@code null}: not set), as HBase parses it, so that
   * {@code "100"} and {@code " 100 "}, or an unset key and its default, compare equal; null when
   * HBase cannot parse it.
   */
  private String effective(String raw) {
    if (raw == null) {
      return hbaseDefault == null ? "" : hbaseDefault;
    }
    String v = raw.trim();
    return switch (parse) {
      case TEXT, CLASS -> v;
      case BOOLEAN -> v.equalsIgnoreCase("true") ? "true" : v.equalsIgnoreCase("false") ? "false" : hbaseDefault;
      case LONG, INT -> {
        try {
          yield String.valueOf(parse == Parse.INT ? Integer.parseInt(v) : Long.parseLong(v));
        } catch (NumberFormatException e) {
          yield null;
        }
      }
    };
  }

  /**
   * Whether a RegionServer running with {@code raw} behaves as declared ({@code declared} null:
   * unset). A value HBase cannot parse never matches.
   */
  public boolean matches(String raw, String declared) {
    String e = effective(raw);
    return e != null && e.equals(effective(declared));
  }

  /** A raw value in words for messages: the class's short name, or what unset means. */
  public String describe(String raw) {
    if (raw == null) {
      return hbaseDefault == null || (parse == Parse.INT && "-1".equals(hbaseDefault)) ? "unset"
          : "unset (HBase default " + shortName(hbaseDefault) + ")";
    }
    String e = effective(raw);
    if (e == null) {
      return "'" + raw + "' (not a number)";
    }
    if (parse == Parse.INT && "-1".equals(e)) {
      return "-1 (unset)";
    }
    return parse == Parse.CLASS ? shortName(e) : e;
  }

  private static String shortName(String value) {
    int dot = value.lastIndexOf('.');
    return dot >= 0 && value.toLowerCase(Locale.ROOT).startsWith("org.apache.") ? value.substring(dot + 1) : value;
  }
}
