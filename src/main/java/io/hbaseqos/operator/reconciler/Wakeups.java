package io.hbaseqos.operator.reconciler;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * When a resource is reconciled again: a timer of the operator's own, on the monotonic clock
 * ({@link ScheduledThreadPoolExecutor} waits by {@link System#nanoTime()}). The framework's
 * {@code rescheduleAfter} runs on {@link java.util.Timer}, which goes by the wall clock: after the
 * host's clock stepped back an hour, every loop's next period would wait an hour (ClockStepE2E saw
 * a calibration loop skip two periods until the resync asked it again), and after a step forward
 * every wait would end at once. One wake per resource: the latest asked replaces the one before, as
 * {@code rescheduleAfter} does, and a reconcile that asks for none cancels it.
 *
 * <p>The reconcilers still ask the framework for the same reschedule. Without it the framework
 * schedules its ten-minute backstop instead, and a cancelled java.util.Timer task stays queued until
 * its time (the timer is never purged): a tenant rescheduled every 5 s would leave 120 of them at any
 * time. On an unstepped clock the two fire together: whichever comes first reconciles, and that
 * reconcile replaces this wake or the framework cancels its own. After a step of the wall clock the
 * framework's fires late or at once: one more reconcile, which writes nothing.
 *
 * <p>A reconcile that fails with an exception is retried the same way ({@link #afterFailure}): the
 * framework's retry also runs on {@link java.util.Timer}.
 */
final class Wakeups implements AutoCloseable {
  private final ScheduledThreadPoolExecutor timer;
  private final Map<String, ScheduledFuture<?>> pending = new ConcurrentHashMap<>();

  Wakeups() {
    timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "hbaseqos-wakeups");
      t.setDaemon(true);
      return t;
    });
    timer.setRemoveOnCancelPolicy(true);
  }

  /**
   * When a reconcile that failed with an exception runs again: 2 s, then 1.5 times longer per failed
   * attempt before it, at most 5 minutes (the framework's own retry waits the same, on the wall
   * clock, and stops after five attempts; this one goes on, so a failure that outlasts them is still
   * retried). Pure.
   *
   * @param attempt how many attempts failed before this one, counted by the operator (0: the first failure)
   */
  static Duration afterFailure(int attempt) {
    double ms = 2000 * Math.pow(1.5, Math.max(0, Math.min(attempt, 30)));
    return Duration.ofMillis((long) Math.min(ms, Duration.ofMinutes(5).toMillis()));
  }

  /** Failed reconciles in a row, per resource (the framework's own count stops at its five attempts). */
  private final Map<String, Integer> failures = new ConcurrentHashMap<>();

  /** A reconcile of {@code key} failed: when to run it again ({@link #afterFailure} of the failures before it). */
  Duration failed(String key) {
    return afterFailure(failures.merge(key, 1, (a, b) -> a == Integer.MAX_VALUE ? a : a + 1) - 1);
  }

  /** A reconcile of {@code key} succeeded: whether failures had been counted (they are forgotten). */
  boolean succeeded(String key) {
    return failures.remove(key) != null;
  }

  /** Runs {@code wake} after {@code delay} (null: never), instead of what was asked for {@code key} before. */
  void after(String key, Duration delay, Runnable wake) {
    if (delay == null) {
      cancel(key);
      return;
    }
    pending.compute(key, (k, before) -> {
      if (before != null) {
        before.cancel(false);
      }
      AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
      ScheduledFuture<?> f = timer.schedule(() -> {
        pending.remove(k, self.get()); // a wake that ran is no longer asked for (unless another replaced it)
        wake.run();
      }, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
      self.set(f);
      return f;
    });
  }

  /** Drops what was asked for {@code key} (the resource is gone, or asks for no wake). */
  void cancel(String key) {
    failures.remove(key);
    ScheduledFuture<?> f = pending.remove(key);
    if (f != null) {
      f.cancel(false);
    }
  }

  /** How many resources have a wake asked for that has not run. */
  int size() {
    return pending.size();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
