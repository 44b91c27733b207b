package io.hbaseqos.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WakeupsTest {

  /**
   * The timer runs its wakes one at a time in the order of their times: a wake asked for after a
   * dropped one's time has run only once the dropped one would have.
   */
  @Test
  void theLatestWakeReplacesTheOneBeforeAndNoneCancelsIt() throws Exception {
    try (Wakeups w = new Wakeups()) {
      AtomicInteger replaced = new AtomicInteger();
      AtomicInteger cancelled = new AtomicInteger();
      CountDownLatch latest = new CountDownLatch(1);
      CountDownLatch after = new CountDownLatch(1);
      w.after("a", Duration.ofMillis(100), replaced::incrementAndGet);
      w.after("a", Duration.ofMillis(10), latest::countDown);
      w.after("b", Duration.ofMillis(100), cancelled::incrementAndGet);
      w.after("b", null, null);
      assertThat(latest.await(30, TimeUnit.SECONDS)).as("the latest wake ran").isTrue();
      w.after("c", Duration.ofMillis(300), after::countDown);
      assertThat(after.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(replaced).as("the wake it replaced").hasValue(0);
      assertThat(cancelled).as("the wake a reconcile asking for none cancelled").hasValue(0);
      assertThat(w.size()).as("a wake that ran is no longer asked for").isZero();
      w.after("d", Duration.ofHours(1), () -> { });
      assertThat(w.size()).isEqualTo(1);
      w.cancel("d");
      assertThat(w.size()).isZero();
    }
  }

  @Test
  void aWakeWithNoDelayLeftRunsAtOnce() throws Exception {
    try (Wakeups w = new Wakeups()) {
      CountDownLatch ran = new CountDownLatch(1);
      w.after("a", Duration.ofMillis(-5), ran::countDown);
      assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aFailedReconcileIsRetriedLaterEachTimeUpToFiveMinutesAndNeverGivenUp() {
    assertThat(Wakeups.afterFailure(0)).isEqualTo(Duration.ofSeconds(2));
    assertThat(Wakeups.afterFailure(1)).isEqualTo(Duration.ofSeconds(3));
    assertThat(Wakeups.afterFailure(2)).isEqualTo(Duration.ofMillis(4500));
    assertThat(Wakeups.afterFailure(4)).isEqualTo(Duration.ofMillis(10125));
    // past the framework's five attempts: still retried, at most every five minutes
    assertThat(Wakeups.afterFailure(13)).isEqualTo(Duration.ofMinutes(5));
    assertThat(Wakeups.afterFailure(Integer.MAX_VALUE)).isEqualTo(Duration.ofMinutes(5));
    assertThat(Wakeups.afterFailure(-1)).isEqualTo(Duration.ofSeconds(2));
  }

  /** The operator counts failures in a row itself: the framework's count stops at its five attempts. */
  @Test
  void failuresInARowAreCountedUntilASuccessAndEachWaitsLonger() {
    try (Wakeups w = new Wakeups()) {
      assertThat(w.failed("a")).isEqualTo(Duration.ofSeconds(2));
      assertThat(w.failed("a")).isEqualTo(Duration.ofSeconds(3));
      assertThat(w.failed("b")).as("counted per resource").isEqualTo(Duration.ofSeconds(2));
      for (int i = 0; i < 20; i++) {
        w.failed("a");
      }
      assertThat(w.failed("a")).as("past the framework's five: still later, at most 5 minutes")
          .isEqualTo(Duration.ofMinutes(5));
      assertThat(w.succeeded("a")).isTrue();
      assertThat(w.succeeded("a")).as("nothing left to forget").isFalse();
      assertThat(w.failed("a")).as("a new run of failures starts over").isEqualTo(Duration.ofSeconds(2));
      w.cancel("a");
      assertThat(w.succeeded("a")).as("a resource gone takes its count with it").isFalse();
    }
  }
}
