package io.hbaseqos.operator.gateway;

import io.hbaseqos.operator.hbase.MetricsUnavailableException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Takes one cluster's metric readings on threads of its own, so that no reconcile ever waits for an
 * info server or a Prometheus: one thread for the RegionServers' info servers and one for
 * Prometheus, per cluster (a hung port or a black-holed Prometheus delays only that cluster's
 * readings of that kind, and only by what their breakers let through).
 *
 * <p>Each kind of reading has a slot holding the latest result and when it was taken. A caller
 * asks for a result taken at or after a moment ({@code notBefore}), or for one at most
 * {@code period} old: it gets it at once when the slot has it; otherwise the slot's next read is
 * due (at most one per slot at a time, and one per {@code period}: a read starts no sooner than a
 * period after the one before it, whoever asks) and the caller is told
 * {@link MetricsPendingException}, to come back when its {@code wake} runs, which every caller
 * waiting on the slot gets once the read ends.
 */
final class MetricsSampler implements AutoCloseable {
  /** A blocking read, run on the sampler's thread. */
  @FunctionalInterface
  interface Read<T> {
    T get() throws IOException;

    /** When the result was taken (null: when its read started). */
    default Instant taken(T result) {
      return null;
    }

    /** A read whose result says when it was taken. */
    static <T> Read<T> timed(Read<T> read, java.util.function.Function<T, Instant> taken) {
      return new Read<>() {
        @Override
        public T get() throws IOException {
          return read.get();
        }

        @Override
        public Instant taken(T result) {
          return taken.apply(result);
        }
      };
    }
  }

  /** Which thread a read runs on. */
  enum Kind { INFO_SERVERS, PROMETHEUS }

  /** Slots not asked for this long are dropped (a tenant deleted, a query changed). */
  static final Duration FORGET = Duration.ofMinutes(10);

  private static final class Slot {
    /** When the last read started (null: none yet): the next starts a period later at the soonest. */
    Instant started;
    Instant at;
    Object value;
    IOException failure;
    boolean running;
    Instant asked;
    final Set<Runnable> waiters = new LinkedHashSet<>();
  }

  private final Clock clock;
  private final Map<Kind, ScheduledExecutorService> threads;
  private final Map<Object, Slot> slots = new ConcurrentHashMap<>();
  private volatile Instant pruned;
  /** Closed: reads scheduled and not run never will be, so nobody is told to wait for them. */
  private volatile boolean closed;

  MetricsSampler(Clock clock, String name) {
    this.clock = clock;
    this.threads = Map.of(Kind.INFO_SERVERS, thread("hbaseqos-sampler-" + name), Kind.PROMETHEUS,
        thread("hbaseqos-prometheus-" + name));
    this.pruned = clock.instant();
  }

  private static ScheduledExecutorService thread(String name) {
    return Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The slot's result if it was taken at or after {@code notBefore} (null: at most {@code period}
   * ago); else makes the slot's next read due and throws {@link MetricsPendingException}. That
   * read starts at once, or a period after the last one started if that is later: however many
   * callers ask, and whatever moments they ask for, the slot is read at most once per period.
   *
   * @param wake run once the read ends (null: the caller looks again on its own schedule)
   * @throws IOException the read's own failure, when that is the result that qualifies
   */
  @SuppressWarnings("unchecked")
  <T> T get(Object key, Kind kind, Instant notBefore, Duration period, Read<T> read, Runnable wake)
      throws IOException {
    if (closed) {
      throw new MetricsUnavailableException("the connection changed while reading; read again next period");
    }
    Instant now = clock.instant();
    prune(now);
    Slot s = slots.computeIfAbsent(key, k -> new Slot());
    synchronized (s) {
      if (slots.get(key) != s) {
        // pruned between the lookup and the lock: ask the slot that is there now
        return get(key, kind, notBefore, period, read, wake);
      }
      s.asked = now;
      boolean fresh = s.at != null && (notBefore != null ? !s.at.isBefore(notBefore) : !s.at.plus(period).isBefore(now));
      if (fresh) {
        if (s.failure != null) {
          throw s.failure;
        }
        return (T) s.value;
      }
      if (wake != null) {
        s.waiters.add(wake);
      }
      if (!s.running) {
        s.running = true;
        Instant due = s.started == null ? now : s.started.plus(period);
        if (notBefore != null && notBefore.isAfter(due)) {
          due = notBefore;
        }
        long delay = Math.max(0, Duration.between(now, due).toNanos());
        try {
          threads.get(kind).schedule(() -> run(s, read), delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
          s.running = false;
          throw new MetricsUnavailableException("the connection changed while reading; read again next period");
        }
      }
    }
    throw new MetricsPendingException("the " + (kind == Kind.PROMETHEUS ? "Prometheus query" : "RegionServers")
        + " are being read");
  }

  /**
   * The slot's last result, however old: what a waiter woken by that read takes (a read slower than
   * the period still serves it, and so does one after which another asker made the next read due);
   * null when there is none yet.
   *
   * @throws IOException that read's own failure
   */
  @SuppressWarnings("unchecked")
  <T> T latest(Object key) throws IOException {
    Slot s = slots.get(key);
    if (s == null) {
      return null;
    }
    synchronized (s) {
      if (s.at == null) {
        return null;
      }
      if (s.failure != null) {
        throw s.failure;
      }
      return (T) s.value;
    }
  }

  private <T> void run(Slot s, Read<T> read) {
    Instant started = clock.instant();
    synchronized (s) {
      s.started = started; // on the sampler's own clock, like the moments the next read is scheduled by
    }
    T value = null;
    IOException failure = new MetricsUnavailableException("the read ended without an answer");
    Instant at = started;
    try {
      value = read.get();
      failure = null;
      Instant taken = value == null ? null : read.taken(value);
      at = taken == null ? started : taken;
    } catch (IOException e) {
      failure = e;
    } catch (RuntimeException e) {
      failure = new MetricsUnavailableException(String.valueOf(e));
    } finally {
      // whatever happened, the slot is free again and its waiters are told
      List<Runnable> waiters;
      synchronized (s) {
        s.at = at;
        s.value = value;
        s.failure = failure;
        s.running = false;
        waiters = new ArrayList<>(s.waiters);
        s.waiters.clear();
      }
      waiters.forEach(MetricsSampler::runQuietly);
    }
  }

  private static void runQuietly(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      // a wake that fails (the operator stopping) leaves the caller to its own schedule
    }
  }

  private void prune(Instant now) {
    if (pruned.plus(FORGET).isAfter(now)) {
      return;
    }
    pruned = now;
    slots.entrySet().removeIf(e -> {
      synchronized (e.getValue()) {
        return !e.getValue().running && e.getValue().asked != null && e.getValue().asked.plus(FORGET).isBefore(now);
      }
    });
  }

  @Override
  public void close() {
    closed = true;
    threads.values().forEach(ExecutorService::shutdownNow);
    // reads dropped from the queue never run: their waiters look again now, and are told the connection changed
    for (Slot s : slots.values()) {
      List<Runnable> waiters;
      synchronized (s) {
        waiters = new ArrayList<>(s.waiters);
        s.waiters.clear();
      }
      waiters.forEach(MetricsSampler::runQuietly);
    }
  }
}
