package io.hbaseqos.operator.app;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbaseqos.operator.cluster.WriteFence;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The write fence on its own: a stopped-and-resumed leader, a lost lease, an API server away. */
class LeaseFenceTest {
  static final Duration DEADLINE = Duration.ofSeconds(10);
  static final Duration RECHECK = Duration.ofMillis(500);

  Instant wallNow = Instant.parse("2026-11-26T12:00:00Z");
  long nanosNow = 1_000_000_000L;
  boolean leading = true;
  final AtomicReference<Object> lease = new AtomicReference<>(); // a Reading, a RuntimeException, or null
  final AtomicInteger reads = new AtomicInteger();

  LeaseFence fence(boolean electionOn) {
    return new LeaseFence(() -> electionOn, () -> leading, () -> {
      reads.incrementAndGet();
      Object l = lease.get();
      if (l instanceof RuntimeException e) {
        throw e;
      }
      return Optional.ofNullable((LeaseFence.Reading) l);
    }, "me", "ns/lease", DEADLINE, RECHECK, new Clock() {
      @Override
      public Instant instant() {
        return wallNow;
      }

      @Override
      public java.time.ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(java.time.ZoneId zone) {
        return this;
      }
    }, () -> nanosNow);
  }

  void renewedBy(String holder, Instant at) {
    lease.set(new LeaseFence.Reading(holder, at, 0));
  }

  void elapse(Duration d) {
    wallNow = wallNow.plus(d);
    nanosNow += d.toNanos();
  }

  @Test
  void withoutLeaderElectionEveryWriteIsAllowedAndNothingIsRead() {
    leading = false;
    assertThatCode(() -> fence(false).check()).doesNotThrowAnyException();
    assertThatCode(() -> fence(false).check()).doesNotThrowAnyException();
    org.assertj.core.api.Assertions.assertThat(reads).hasValue(0);
  }

  @Test
  void aLeaderWritesWhileTheLeaseNamesItAndReadsTheLeaseAtMostOncePerRecheck() throws Exception {
    LeaseFence f = fence(true);
    renewedBy("me", wallNow.minusSeconds(1));
    for (int i = 0; i < 50; i++) {
      f.check();
      elapse(Duration.ofMillis(10));
    }
    org.assertj.core.api.Assertions.assertThat(reads.get()).isEqualTo(1);
  }

  @Test
  void aStandbyNeverWrites() {
    leading = false;
    renewedBy("me", wallNow);
    assertThatThrownBy(() -> fence(true).check()).isInstanceOf(WriteFence.NotLeaderException.class)
        .hasMessageContaining("does not lead");
  }

  @Test
  void aLeaderStoppedPastItsLeaseAndResumedReadsTheLeaseBeforeItsFirstWrite() throws Exception {
    LeaseFence f = fence(true);
    renewedBy("me", wallNow);
    f.check();
    // SIGSTOP for 20 s: both clocks move on; the election has not noticed yet (still "leading")
    elapse(Duration.ofSeconds(20));
    renewedBy("other", wallNow.minusSeconds(1));
    assertThatThrownBy(f::check).isInstanceOf(WriteFence.NotLeaderException.class)
        .hasMessageContaining("held by other");
  }

  @Test
  void withTheApiServerAwayTheLastReadingStandsUpToTheRenewDeadlineAndNoFurther() throws Exception {
    LeaseFence f = fence(true);
    renewedBy("me", wallNow);
    f.check();
    lease.set(new IllegalStateException("connection refused"));
    elapse(Duration.ofSeconds(9));
    f.check(); // could not read again: the renewal 9 s ago still holds
    elapse(Duration.ofSeconds(1));
    assertThatThrownBy(f::check).isInstanceOf(WriteFence.NotLeaderException.class)
        .hasMessageContaining("renew deadline");
  }

  @Test
  void aLeaseNeverReadOrGoneAllowsNothing() {
    LeaseFence f = fence(true);
    lease.set(new IllegalStateException("forbidden"));
    assertThatThrownBy(f::check).hasMessageContaining("could not read");
    lease.set(null);
    elapse(Duration.ofSeconds(1));
    assertThatThrownBy(f::check).hasMessageContaining("held by nobody");
  }
}
