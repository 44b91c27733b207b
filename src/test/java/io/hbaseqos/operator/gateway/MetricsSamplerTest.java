package io.hbaseqos.operator.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbaseqos.operator.hbase.MetricsUnavailableException;
import io.hbaseqos.operator.support.SettableClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The sampler: reads run on its own threads, callers never wait, and each waiter is woken once. */
class MetricsSamplerTest {
  final SettableClock clock = new SettableClock(Instant.parse("2026-11-27T10:00:00Z"));
  final MetricsSampler sampler = new MetricsSampler(clock, "test");
  static final Duration REUSE = Duration.ofSeconds(5);

  @AfterEach
  void close() {
    sampler.close();
  }

  @Test
  void aReadThatHangsNeverHoldsTheCallerAndWakesEveryWaiterOnceWhenItEnds() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger reads = new AtomicInteger();
    String[] thread = new String[1];
    MetricsSampler.Read<String> hung = () -> {
      reads.incrementAndGet();
      thread[0] = Thread.currentThread().getName();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return "v";
    };
    CountDownLatch woken = new CountDownLatch(2);
    AtomicInteger wakes = new AtomicInteger();
    Runnable a = () -> {
      wakes.incrementAndGet();
      woken.countDown();
    };
    Runnable b = () -> {
      wakes.incrementAndGet();
      woken.countDown();
    };
    // the read cannot end before release: returning at all proves the callers did not wait for it
    assertThatThrownBy(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, null, REUSE, hung, a))
        .isInstanceOf(MetricsPendingException.class);
    assertThatThrownBy(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, null, REUSE, hung, a))
        .isInstanceOf(MetricsPendingException.class);
    assertThatThrownBy(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, null, REUSE, hung, b))
        .isInstanceOf(MetricsPendingException.class);
    assertThat(release.getCount()).isEqualTo(1);
    release.countDown();
    assertThat(woken.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, null, REUSE, hung, a)).isEqualTo("v");
    assertThat(reads).as("one read for every asker").hasValue(1);
    assertThat(wakes).as("each waiter once").hasValue(2);
    assertThat(thread[0]).isEqualTo("hbaseqos-sampler-test");
  }

  @Test
  void aResultServesWithinItsReuseOrFromTheMomentAskedFor() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    MetricsSampler.Read<Integer> read = reads::incrementAndGet;
    Instant t0 = clock.now;
    assertThat(await(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, null, REUSE, read, null))).isEqualTo(1);
    clock.now = t0.plusSeconds(4);
    assertThat(sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, null, REUSE, read, null)).as("within reuse")
        .isEqualTo(1);
    assertThat(sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, t0, REUSE, read, null)).as("taken at t0")
        .isEqualTo(1);
    assertThatThrownBy(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, t0.plusSeconds(1), REUSE, read,
        null)).as("asked for a later one").isInstanceOf(MetricsPendingException.class);
    assertThat(await(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, t0.plusSeconds(1), REUSE, read, null)))
        .isEqualTo(2);
    clock.now = t0.plusSeconds(10);
    assertThatThrownBy(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, null, REUSE, read, null))
        .as("past reuse").isInstanceOf(MetricsPendingException.class);
  }

  @Test
  void aFailedReadIsTheAnswerItsCallersGetAndAClosedSamplerSaysSo() throws Exception {
    MetricsSampler.Read<Integer> broken = () -> {
      throw new IOException("RegionServer rs1: connection refused");
    };
    assertThatThrownBy(() -> await(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, null, REUSE, broken,
        null))).hasMessageContaining("connection refused").isNotInstanceOf(MetricsPendingException.class);
    sampler.close();
    assertThatThrownBy(() -> sampler.get("other", MetricsSampler.Kind.PROMETHEUS, null, REUSE, () -> 1, null))
        .isInstanceOf(MetricsUnavailableException.class).hasMessageContaining("connection changed");
  }

  /**
   * A read that takes longer than the reuse, asked for from a fixed moment: its result still serves
   * the asker that comes back (a moment that moved on every retry would never be met). The slot goes
   * by the reading's own time when the read says it.
   */
  @Test
  void aSlowReadAskedForFromAFixedMomentServesItsAskerWhenItEnds() throws Exception {
    Instant moment = clock.now;
    AtomicInteger reads = new AtomicInteger();
    MetricsSampler.Read<Instant> slow = new MetricsSampler.Read<>() {
      @Override
      public Instant get() {
        reads.incrementAndGet();
        Instant took = clock.now;
        clock.now = clock.now.plusSeconds(9); // a read of all servers up to its deadline
        return took;
      }

      @Override
      public Instant taken(Instant result) {
        return result;
      }
    };
    assertThat(await(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, moment, REUSE, slow, null)))
        .isEqualTo(moment);
    clock.now = clock.now.plusSeconds(20); // the wakes took their time too
    assertThat(sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, moment, REUSE, slow, null)).isEqualTo(moment);
    assertThat(reads).hasValue(1);
    assertThatThrownBy(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, null, REUSE, slow, null))
        .as("by its reading's own time it is 29 s old").isInstanceOf(MetricsPendingException.class);
  }

  @Test
  void aReadThatDiesFreesItsSlotAndTellsItsWaiters() throws Exception {
    CountDownLatch woken = new CountDownLatch(1);
    MetricsSampler.Read<Integer> dies = () -> {
      throw new AssertionError("an Error, not an exception");
    };
    assertThatThrownBy(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, clock.now, REUSE, dies,
        woken::countDown)).isInstanceOf(MetricsPendingException.class);
    assertThat(woken.await(30, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(() -> sampler.get("k", MetricsSampler.Kind.INFO_SERVERS, clock.now, REUSE, dies, null))
        .isInstanceOf(MetricsUnavailableException.class).hasMessageContaining("ended without an answer");
  }

  @Test
  void closingWakesTheWaitersOfReadsThatWillNeverRun() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch queuedWoken = new CountDownLatch(1);
    try {
      assertThatThrownBy(() -> sampler.get("hung", MetricsSampler.Kind.PROMETHEUS, clock.now, REUSE, () -> {
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return 1.0;
      }, null)).isInstanceOf(MetricsPendingException.class);
      assertThatThrownBy(() -> sampler.get("queued", MetricsSampler.Kind.PROMETHEUS, clock.now, REUSE, () -> 2.0,
          queuedWoken::countDown)).isInstanceOf(MetricsPendingException.class);
      sampler.close();
      assertThat(queuedWoken.await(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      release.countDown();
    }
  }

  interface Ask<T> {
    T get() throws IOException;
  }

  /** Asks until the answer is there (the read runs on the sampler's thread). */
  static <T> T await(Ask<T> ask) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        return ask.get();
      } catch (MetricsPendingException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(10);
      }
    }
  }
}
