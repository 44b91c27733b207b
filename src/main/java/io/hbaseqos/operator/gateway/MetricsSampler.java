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

/**
 * Takes one cluster's metric readings on threads of its own, so that no reconcile ever waits for an
 * info server or a Prometheus: one thread for the RegionServers' info servers and one for
 * Prometheus, per cluster (a hung port or a black-holed Prometheus delays only that cluster's
 * readings of that kind, and only by what their breakers let through).
 *
 * <p>Each kind of reading has a slot holding the latest result and when its read started. A caller
 * asks for a result taken at or after a moment ({@code notBefore}), or for one at most
 * {@code reuse} old: it gets it at once when the slot has it; otherwise the read is started (at
 * most one per slot at a time) and the caller is told {@link MetricsPendingException}, to come back
 * when its {@code wake} runs, which every caller waiting on the slot gets once the read ends.
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
    Instant at;
    Object value;
    IOException failure;
    boolean running;
    Instant asked;
    final Set<Runnable> waiters = new LinkedHashSet<>();
  }

  private final Clock clock;
  private final Map<Kind, ExecutorService> threads;
  private final Map<Object, Slot> slots = new ConcurrentHashMap<>();
  private volatile Instant pruned;

  MetricsSampler(Clock clock, String name) {
    this.clock = clock;
    this.threads = Map.of(Kind.INFO_SERVERS, thread("hbaseqos-sampler-" + name), Kind.PROMETHEUS,
        thread("hbaseqos-prometheus-" + name));
    this.pruned = clock.instant();
  }

  private static ExecutorService thread(String name) {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The slot's result if it was taken at or after {@code notBefore} (null: at most {@code reuse}
   * ago); else starts the read and throws {@link MetricsPendingException}.
   *
   * @param wake run once the read ends (null: the caller looks again on its own schedule)
   * @throws IOException the read's own failure, when that is the result that qualifies
   */
  @SuppressWarnings("unchecked")
  <T> T get(Object key, Kind kind, Instant notBefore, Duration reuse, Read<T> read, Runnable wake) throws IOException {
    Instant now = clock.instant();
    prune(now);
    Slot s = slots.computeIfAbsent(key, k -> new Slot());
    synchronized (s) {
      if (slots.get(key) != s) {
        // pruned between the lookup and the lock: ask the slot that is there now
        return get(key, kind, notBefore, reuse, read, wake);
      }
      s.asked = now;
      boolean fresh = s.at != null && (notBefore != null ? !s.at.isBefore(notBefore) : !s.at.plus(reuse).isBefore(now));
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
        try {
          threads.get(kind).execute(() -> run(s, read));
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
   * The slot's last result, however old, once no read of it runs: what a waiter woken by that read
   * takes (a read slower than the reuse time still serves it); null when there is none yet or a read
   * runs.
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
      if (s.running || s.at == null) {
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
