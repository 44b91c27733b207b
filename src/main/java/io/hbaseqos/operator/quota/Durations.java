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
    while (m.find()) {
      long n = Long.parseLong(m.group(1));
      d = d.plus(switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      });
    }
    return d;
  }
}
