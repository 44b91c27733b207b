package io.hbaseqos.operator.topology;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Memory sizes as the API writes them: JVM style ({@code 30g}, {@code 512m}) or Kubernetes style ({@code 30Gi}). */
public final class Memory {
  public static final long MIB = 1L << 20;
  public static final long GIB = 1L << 30;
  private static final Pattern SIZE = Pattern.compile("^([0-9]+)(m|g|Mi|Gi)$");

  private Memory() {}

  /** Bytes of a heap or reserve size; both styles are binary (1g = 1Gi). */
  public static long parse(String text) {
    Matcher m = text == null ? null : SIZE.matcher(text.trim());
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a size such as 30g, 512m, 30Gi or 512Mi");
    }
    if (m.group(1).length() > 7) {
      throw new IllegalArgumentException("'" + text + "' is too large: at most seven digits");
    }
    long n = Long.parseLong(m.group(1));
    return m.group(2).startsWith("g") || m.group(2).startsWith("G") ? n * GIB : n * MIB;
  }

  /** JVM option style, in whole MiB or GiB: {@code 30g}, {@code 30976m}. */
  public static String jvm(long bytes) {
    return bytes % GIB == 0 ? bytes / GIB + "g" : bytes / MIB + "m";
  }

  /** Kubernetes quantity style: {@code 36Gi}, {@code 37120Mi}. */
  public static String quantity(long bytes) {
    return bytes % GIB == 0 ? bytes / GIB + "Gi" : bytes / MIB + "Mi";
  }
}
