package io.hbaseqos.operator.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stop-the-world pauses of a JVM started with {@code -Xlog:gc:file=<log>:timemillis}, to set a
 * period's latency beside the pauses that fell in it. A pause line is written when the pause ends:
 * {@code [1764000000123ms] GC(7) Pause Full (Allocation Failure) 600M->310M(768M) 312.456ms}.
 */
record GcPauses(List<Pause> pauses) {
  private static final Pattern PAUSE = Pattern.compile("^\\[(\\d+)ms\\].*\\bPause\\b.*\\s([\\d.]+)ms\\s*$");

  /** One pause: when it ended (epoch ms) and how long it lasted (ms). */
  record Pause(long endMillis, double millis) {}

  /** The pauses in a period: how many, their sum and the longest, in ms. */
  record Within(int count, double totalMillis, double longestMillis) {
    static final Within NONE = new Within(0, 0, 0);
  }

  /** The pauses logged so far (none when the log does not exist). */
  static GcPauses read(Path log) {
    if (log == null || !Files.isReadable(log)) {
      return new GcPauses(List.of());
    }
    try (var lines = Files.lines(log)) {
      return new GcPauses(lines.map(PAUSE::matcher).filter(Matcher::matches)
          .map(m -> new Pause(Long.parseLong(m.group(1)), Double.parseDouble(m.group(2)))).toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The pauses that ended in {@code [fromMillis, toMillis)}, epoch ms. */
  Within within(long fromMillis, long toMillis) {
    var in = pauses.stream().filter(p -> p.endMillis() >= fromMillis && p.endMillis() < toMillis).toList();
    return in.isEmpty() ? Within.NONE : new Within(in.size(), in.stream().mapToDouble(Pause::millis).sum(),
        in.stream().mapToDouble(Pause::millis).max().orElse(0));
  }
}
