package io.hbaseqos.operator.usage;

import io.hbaseqos.operator.quota.Subject;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Every subject's {@link Usage} over the last period of one cluster, from successive samples of
 * the servers' cumulative counters (one sample per period for all subjects together). A subject
 * gets a usage from its second sample on; a server that restarted (a counter went back) or came
 * or went costs that subject one period. Pure.
 */
public final class UsageTracker {
  /** How many periods a subject's {@link Usage.Window} spans at most. */
  public static final int WINDOW = 20;

  private record Previous(Instant at, Map<String, Counts> servers) {}

  /** One period in a subject's window. */
  private record Period(double seconds, double ops, double busiest, long throttled, long requests, boolean counted) {}

  private final Map<Subject, Previous> previous = new HashMap<>();
  private final Map<Subject, java.util.ArrayDeque<Period>> windows = new HashMap<>();

  /**
   * @param at when the sample was taken
   * @param counts per subject, its counters on each server (a subject absent: no longer tracked)
   * @param countsThrottled whether HBase counts throttled requests per user and table (2.6.4+)
   * @return the usage of each subject that has a comparable sample before this one
   */
  public synchronized Map<Subject, Usage> next(Instant at, Map<Subject, Map<String, Counts>> counts,
      boolean countsThrottled) {
    Map<Subject, Usage> out = new HashMap<>();
    previous.keySet().retainAll(counts.keySet());
    windows.keySet().retainAll(counts.keySet());
    counts.forEach((subject, now) -> {
      Previous before = previous.put(subject, new Previous(at, now));
      if (before == null || !before.servers().keySet().equals(now.keySet())) {
        return;
      }
      double seconds = Duration.between(before.at(), at).toMillis() / 1000.0;
      if (seconds <= 0) {
        return;
      }
      Measured m = between(before.servers(), now, seconds, countsThrottled);
      if (m != null) {
        out.put(subject, withWindow(subject, m));
      }
    });
    return out;
  }

  /** A period's usage and the counts behind its throttled share. */
  private record Measured(Usage usage, long done, long throttled) {}

  private Usage withWindow(Subject subject, Measured m) {
    Usage u = m.usage();
    java.util.ArrayDeque<Period> w = windows.computeIfAbsent(subject, k -> new java.util.ArrayDeque<>());
    w.addLast(new Period(u.seconds(), u.opsPerSecond(), u.busiestServerOpsPerSecond(), m.throttled(),
        m.done() + m.throttled(), !Double.isNaN(u.throttledShare())));
    while (w.size() > WINDOW) {
      w.removeFirst();
    }
    double seconds = 0;
    double peak = 0;
    double peakBusiest = 0;
    long t = 0;
    long n = 0;
    boolean all = true;
    for (Period p : w) {
      seconds += p.seconds();
      peak = Math.max(peak, p.ops());
      peakBusiest = Math.max(peakBusiest, p.busiest());
      t += p.throttled();
      n += p.requests();
      all &= p.counted();
    }
    return new Usage(u.readsPerSecond(), u.writesPerSecond(), u.throttledShare(), u.busiestServerShare(), u.servers(),
        u.seconds(), new Usage.Window(w.size(), seconds, peak, peakBusiest, !all ? Double.NaN : n == 0 ? 0
            : t / (double) n), u.dataBytes(), u.byServer());
  }

  /** The usage between two samples of one subject's counters; null when a counter went back (a restart). */
  private static Measured between(Map<String, Counts> before, Map<String, Counts> now,
      double seconds, boolean countsThrottled) {
    long reads = 0;
    long writes = 0;
    long throttled = 0;
    boolean throttleKnown = countsThrottled;
    long busiest = 0;
    int servers = 0;
    Long data = 0L;
    Map<String, long[]> perServer = new HashMap<>();
    for (var e : now.entrySet()) {
      Counts a = before.get(e.getKey());
      Counts b = e.getValue();
      long raw = b.reads() - a.reads();
      long w = b.writes() - a.writes();
      long twice = b.refusedInReads() - a.refusedInReads();
      if (raw < 0 || w < 0 || twice < 0) {
        return null; // a counter went back: the server restarted
      }
      // reads refused and counted among them come out (a refused write of another throttle type may be
      // counted as one: never below none)
      long r = Math.max(0, raw - twice);
      long t = -1;
      if (a.throttled() == null || b.throttled() == null) {
        throttleKnown = false;
      } else {
        t = b.throttled() - a.throttled();
        if (t < 0) {
          return null;
        }
        throttled += t;
      }
      perServer.put(e.getKey(), new long[] {r, w, t});
      data = data == null || b.dataBytes() == null ? null : data + b.dataBytes();
      reads += r;
      writes += w;
      busiest = Math.max(busiest, r + w);
      servers += r + w > 0 ? 1 : 0;
    }
    long done = reads + writes;
    double share = !throttleKnown ? Double.NaN : done + throttled == 0 ? 0 : throttled / (double) (done + throttled);
    boolean known = throttleKnown;
    Map<String, Usage.Server> byServer = new HashMap<>();
    perServer.forEach((server, c) -> byServer.put(server, new Usage.Server(c[0] / seconds, c[1] / seconds,
        known ? c[2] / seconds : Double.NaN)));
    return new Measured(new Usage(reads / seconds, writes / seconds, share, done == 0 ? Double.NaN
        : busiest / (double) done, servers, seconds, null, data, byServer), done, throttleKnown ? throttled : 0);
  }
}
