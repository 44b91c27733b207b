package io.hbaseqos.operator.quota;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A space quota: how many bytes of store files (HBase snapshots' own files included) a table or
 * namespace may hold, and what HBase does once it holds more. Sizes use the HBase shell's syntax
 * ({@code '10G'}: B, K, M, G, T or P, powers of 1024; a bare number is bytes).
 */
public record SpaceLimit(long bytes, Policy policy) {

  /** HBase's {@code SpaceViolationPolicy}, in order of severity. */
  public enum Policy {
    /** Refuses writes and blocks compactions. */
    NO_WRITES_COMPACTIONS,
    /** Refuses puts, appends, increments and deletes. */
    NO_WRITES,
    /** Refuses new data (puts, appends, increments); deletes still run. */
    NO_INSERTS,
    /** Takes the table offline until it is back under its limit. */
    DISABLE
  }

  /** Largest size accepted: 2^53 bytes (8 PiB), where CEL and JSON numbers are still exact. */
  public static final long MAX_BYTES = 1L << 53;

  private static final Pattern SYNTAX = Pattern.compile("^([0-9]+)([bkmgtp]?)$", Pattern.CASE_INSENSITIVE);
  private static final String UNITS = "bkmgtp";

  public SpaceLimit {
    if (bytes < 1 || bytes > MAX_BYTES) {
      throw new IllegalArgumentException("space limit out of range: " + bytes);
    }
    if (policy == null) {
      throw new IllegalArgumentException("a space limit needs a violation policy");
    }
  }

  /**
   * Parses a size in the shell's syntax.
   *
   * @param field the field path reported in errors
   */
  public static long parseSize(String text, String field) throws InvalidSpecException {
    if (text == null || text.isBlank()) {
      throw new InvalidSpecException(field, "is empty; write a size such as 10G");
    }
    String t = text.trim();
    if (t.charAt(0) < '0' || t.charAt(0) > '9') {
      throw new InvalidSpecException(field, "'" + text + "' must start with a whole number, such as 10G");
    }
    Matcher m = SYNTAX.matcher(t);
    if (!m.matches()) {
      String unit = t.replaceFirst("^[0-9]+", "");
      throw new InvalidSpecException(field, "'" + text + "' has an unknown unit '" + unit
          + "': use B, K, M, G, T or P (powers of 1024, as in the HBase shell), or no unit for bytes");
    }
    String digits = m.group(1).replaceFirst("^0+(?=.)", "");
    int shift = 10 * Math.max(0, UNITS.indexOf(m.group(2).toLowerCase(Locale.ROOT)));
    if (digits.length() > 16 || Long.parseLong(digits) > (MAX_BYTES >> shift)) {
      throw new InvalidSpecException(field, "'" + text + "' is too large: at most 8P (2^53 bytes)");
    }
    long bytes = Long.parseLong(digits) << shift;
    if (bytes < 1) {
      throw new InvalidSpecException(field, "'" + text + "' must be greater than 0");
    }
    return bytes;
  }

  /** The shell's rendering: the largest unit that divides the size, e.g. {@code 10G} or {@code 1536K}. */
  public static String formatSize(long bytes) {
    int u = 0;
    long v = bytes;
    while (u < UNITS.length() - 1 && v % 1024 == 0 && v > 0) {
      v /= 1024;
      u++;
    }
    return u == 0 ? v + "B" : v + UNITS.substring(u, u + 1).toUpperCase(Locale.ROOT);
  }

  /** e.g. {@code 10G NO_INSERTS}. */
  public String describe() {
    return formatSize(bytes) + " " + policy;
  }
}
