package io.hbaseqos.operator.quota;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Go-style durations as Kubernetes users write them: {@code 30s}, {@code 1m30s}, {@code 500ms}. */
public final class Durations {
  private static final Pattern PART = Pattern.compile("([0-9]+)(ms|s|m|h)");
  private static final Pattern WHOLE = Pattern.compile("^([0-9]+(ms|s|m|h))+$");

  private Durations() {}

  public static Duration parse(String text, Duration fallback) {
    if (text == null || text.isBlank()) {
      return fallback;
    }
    if (!WHOLE.matcher(text).matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a duration such as 30s, 1m or 500ms");
    }
    Matcher m = PART.matcher(text);
    Duration d = Duration.ZERO;
    try {
      while (m.find()) {
        long n = Long.parseLong(m.group(1));
        d = d.plus(switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          default -> Duration.ofHours(n);
        });
      }
      d.toMillis(); // what every caller takes: it must fit a long
    } catch (ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is too long a duration");
    }
    return d;
  }

  /** The shortest form in the same syntax: 30s, 1m30s, 12h, 1500ms. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0s";
    }
    StringBuilder sb = new StringBuilder();
    long h = ms / 3_600_000;
    long m = ms / 60_000 % 60;
    long s = ms / 1000 % 60;
    long rest = ms % 1000;
    if (rest != 0) {
      return ms + "ms";
    }
    if (h > 0) {
      sb.append(h).append('h');
    }
    if (m > 0) {
      sb.append(m).append('m');
    }
    if (s > 0) {
      sb.append(s).append('s');
    }
    return sb.toString();
  }
}
