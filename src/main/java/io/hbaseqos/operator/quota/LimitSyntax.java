package io.hbaseqos.operator.quota;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HBase shell's limit syntax ({@code '2500req/sec'}, {@code '10M/sec'}, {@code '100CU/min'}),
 * parsed and printed. Matches {@code _parse_limit} in the shell's {@code quotas.rb}
 * ({@code ^(\d+)(req|cu|[bkmgtp])/(sec|min|hour|day)$}, case-insensitive) and adds {@code ms} for
 * {@link ThrottleKind#REQUEST_HANDLER_USAGE_MS}, which the shell has no unit for.
 */
public final class LimitSyntax {

  /** Largest amount accepted, in the base unit: far above any real limit, far below overflow. */
  public static final long MAX_AMOUNT = 1L << 53;

  /** The whole syntax (the CRD checks the same in steps, with a message for each: {@code ThrottleSpec}). */
  public static final String PATTERN =
      "^([0-9]{1,16})(req|cu|ms|[bkmgtp])/(sec|min|hour|day)$";

  private static final Pattern SHELL = Pattern.compile(PATTERN, Pattern.CASE_INSENSITIVE);
  /** The shape every limit has, units aside; the API server's rules check the same steps in the same order. */
  private static final Pattern SHAPE = Pattern.compile("^([0-9]+)([a-zA-Z]+)/([a-zA-Z]+)$");
  private static final java.util.Set<String> UNITS = java.util.Set.of("req", "cu", "ms", "b", "k", "m", "g", "t", "p");
  private static final java.util.Set<String> TIME_UNITS = java.util.Set.of("sec", "min", "hour", "day");

  private LimitSyntax() {}

  /**
   * Parses a shell limit for the given throttle type.
   *
   * @param field the field path reported in errors
   */
  public static Limit parse(ThrottleKind kind, String text, Limit.Scope scope, String field)
      throws InvalidSpecException {
    if (text == null || text.isBlank()) {
      throw new InvalidSpecException(field, "is empty; expected e.g. " + example(kind));
    }
    String t = text.trim();
    if (t.charAt(0) < '0' || t.charAt(0) > '9') {
      throw new InvalidSpecException(field, "'" + text + "' must start with a whole number, such as " + example(kind));
    }
    Matcher shape = SHAPE.matcher(t);
    if (!shape.matches()) {
      throw new InvalidSpecException(field, "'" + text + "' must be <number><unit>/<time unit>, such as " + example(kind));
    }
    if (!UNITS.contains(shape.group(2).toLowerCase(Locale.ROOT))) {
      throw new InvalidSpecException(field, "'" + text + "' has an unknown unit '" + shape.group(2)
          + "': use req, B, K, M, G, T, P, CU or ms");
    }
    if (!TIME_UNITS.contains(shape.group(3).toLowerCase(Locale.ROOT))) {
      throw new InvalidSpecException(field, "'" + text + "' has an unknown time unit '" + shape.group(3)
          + "': use sec, min, hour or day");
    }
    if (shape.group(1).length() > 16) {
      throw new InvalidSpecException(field, "'" + text + "' is too large (at most " + MAX_AMOUNT
          + " requests, bytes, CU or ms per time unit)");
    }
    Matcher m = SHELL.matcher(t);
    if (!m.matches()) { // cannot happen after the checks above; kept as the single source of the syntax
      throw new InvalidSpecException(field, "'" + text + "' is not a limit such as " + example(kind));
    }
    String unit = m.group(2).toLowerCase(Locale.ROOT);
    ThrottleKind.Unit given = unitOf(unit);
    if (given != kind.unit()) {
      throw new InvalidSpecException(field, "unit '" + m.group(2) + "' does not fit " + kind
          + ", which is counted in " + kind.unit().shellUnits() + " (e.g. " + example(kind) + ")");
    }
    long number = parseNumber(m.group(1), text, field);
    long amount = checkedAmount(number, sizeMultiplier(unit), text, field);
    return new Limit(amount, timeUnit(m.group(3)), scope);
  }

  /** Builds a limit from structured fields. */
  public static Limit of(ThrottleKind kind, long value, String sizeUnit, TimeUnit timeUnit,
      Limit.Scope scope, String field) throws InvalidSpecException {
    if (value < 1) {
      throw new InvalidSpecException(field + ".value", "must be at least 1, got " + value);
    }
    long multiplier = 1;
    if (sizeUnit != null && !sizeUnit.isEmpty()) {
      if (kind.unit() != ThrottleKind.Unit.BYTES) {
        throw new InvalidSpecException(field + ".sizeUnit", "only size throttles take a size unit; "
            + kind + " is counted in " + kind.unit().shellUnits());
      }
      String u = sizeUnit.toLowerCase(Locale.ROOT);
      if (!u.matches("[bkmgtp]")) {
        throw new InvalidSpecException(field + ".sizeUnit", "unknown size unit '" + sizeUnit + "'; use B, K, M, G, T or P");
      }
      multiplier = sizeMultiplier(u);
    }
    long amount = checkedAmount(value, multiplier, String.valueOf(value) + (sizeUnit == null ? "" : sizeUnit), field + ".value");
    return new Limit(amount, timeUnit == null ? TimeUnit.SECONDS : timeUnit, scope);
  }

  /** Prints the limit the way the shell shows and accepts it, using the largest exact size unit. */
  public static String format(ThrottleKind kind, Limit limit) {
    String amount;
    switch (kind.unit()) {
      case REQUESTS -> amount = limit.amount() + "req";
      case CAPACITY_UNITS -> amount = limit.amount() + "CU";
      case MILLISECONDS -> amount = limit.amount() + "ms";
      default -> amount = formatSize(limit.amount());
    }
    return amount + "/" + timeUnitName(limit.timeUnit());
  }

  static String formatSize(long bytes) {
    String[] units = {"B", "K", "M", "G", "T", "P"};
    int i = 0;
    long v = bytes;
    while (i < units.length - 1 && v % 1024 == 0) {
      v /= 1024;
      i++;
    }
    return v + units[i];
  }

  public static String timeUnitName(TimeUnit unit) {
    return switch (unit) {
      case SECONDS -> "sec";
      case MINUTES -> "min";
      case HOURS -> "hour";
      case DAYS -> "day";
      default -> throw new IllegalArgumentException("HBase throttles use sec, min, hour or day, not " + unit);
    };
  }

  public static TimeUnit timeUnit(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "sec" -> TimeUnit.SECONDS;
      case "min" -> TimeUnit.MINUTES;
      case "hour" -> TimeUnit.HOURS;
      case "day" -> TimeUnit.DAYS;
      default -> throw new IllegalArgumentException(name);
    };
  }

  public static String example(ThrottleKind kind) {
    return switch (kind.unit()) {
      case REQUESTS -> "'2500req/sec'";
      case BYTES -> "'10M/sec'";
      case CAPACITY_UNITS -> "'100CU/min'";
      case MILLISECONDS -> "'500ms/sec'";
    };
  }

  private static ThrottleKind.Unit unitOf(String unit) {
    return switch (unit) {
      case "req" -> ThrottleKind.Unit.REQUESTS;
      case "cu" -> ThrottleKind.Unit.CAPACITY_UNITS;
      case "ms" -> ThrottleKind.Unit.MILLISECONDS;
      default -> ThrottleKind.Unit.BYTES;
    };
  }

  private static long sizeMultiplier(String unit) {
    return switch (unit) {
      case "k" -> 1L << 10;
      case "m" -> 1L << 20;
      case "g" -> 1L << 30;
      case "t" -> 1L << 40;
      case "p" -> 1L << 50;
      default -> 1L;
    };
  }

  private static long parseNumber(String digits, String text, String field) throws InvalidSpecException {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new InvalidSpecException(field, "'" + text + "' is too large");
    }
  }

  private static long checkedAmount(long number, long multiplier, String text, String field)
      throws InvalidSpecException {
    if (number < 1) {
      throw new InvalidSpecException(field, "'" + text + "' must be greater than 0");
    }
    if (number > MAX_AMOUNT / multiplier) {
      throw new InvalidSpecException(field, "'" + text + "' is too large (at most " + MAX_AMOUNT
          + " requests, bytes, CU or ms per time unit)");
    }
    return number * multiplier;
  }
}
