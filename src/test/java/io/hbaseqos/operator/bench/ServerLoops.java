package io.hbaseqos.operator.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The RegionServer's Netty event loops, read from /proc (Linux): CPU ticks per loop thread. The
 * RegionServer serves each client connection on one loop for the connection's life, taking loops in
 * turn as connections arrive; a tenant's load shows as CPU on its connection's loop. From U's loads
 * alone (the baseline) and a period with T running, {@link #place} says which loop carries each.
 */
final class ServerLoops {
  /** Thread names are cut to 15 characters in /proc: {@code RS-EventLoopGroup-1-3}. */
  static final String PREFIX = "RS-EventLoopGro";

  private final long pid;

  ServerLoops(long pid) {
    this.pid = pid;
  }

  /** Where U's and T's connections are served: loop numbers from 1, by thread id. */
  record Placement(int uLoop, int tLoop) {
    boolean shared() {
      return uLoop == tLoop;
    }

    @Override
    public String toString() {
      return shared() ? "T on U's loop " + uLoop : "T on loop " + tLoop + ", U on " + uLoop;
    }
  }

  /**
   * U's loop is the busiest with U alone; T's is the loop whose CPU rose most over that baseline.
   * Null when either reading is empty, or when no loop rose at all (T sent nothing).
   *
   * @param alone CPU seconds per second of each loop with U alone
   * @param both the same with T running beside U
   */
  static Placement place(Map<Integer, Double> alone, Map<Integer, Double> both) {
    if (alone.isEmpty() || both.isEmpty()) {
      return null;
    }
    int u = alone.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    Map.Entry<Integer, Double> rise = both.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue() - alone.getOrDefault(e.getKey(), 0.0)))
        .max(Map.Entry.comparingByValue()).orElseThrow();
    return rise.getValue() <= 0 ? null : new Placement(u, rise.getKey());
  }

  /** CPU seconds so far per loop, numbered from 1 in thread-id order (empty: nothing to read). */
  Map<Integer, Double> cpu() {
    Map<Integer, Double> out = new TreeMap<>();
    if (pid <= 0) {
      return out;
    }
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    try (Stream<Path> ts = Files.list(tasks)) {
      List<Path> loops = ts.filter(t -> comm(t).startsWith(PREFIX))
          .sorted((a, b) -> Long.compare(tid(a), tid(b))).toList();
      for (int i = 0; i < loops.size(); i++) {
        out.put(i + 1, CpuByProcess.cpuSeconds(loops.get(i)));
      }
    } catch (IOException | RuntimeException e) {
      out.clear(); // the process is gone or /proc is not there
    }
    return out;
  }

  /** CPU seconds per second per loop between two readings {@code seconds} apart. */
  static Map<Integer, Double> rate(Map<Integer, Double> before, Map<Integer, Double> after, double seconds) {
    Map<Integer, Double> out = new TreeMap<>();
    after.forEach((k, v) -> {
      if (before.containsKey(k)) {
        out.put(k, (v - before.get(k)) / seconds);
      }
    });
    return out;
  }

  private static long tid(Path task) {
    return Long.parseLong(task.getFileName().toString());
  }

  private static String comm(Path task) {
    try {
      return Files.readString(task.resolve("comm")).trim();
    } catch (IOException e) {
      return "";
    }
  }
}
