package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MonotonicClockTest {
  @Test
  void itAdvancesByTheCounterOnlyWhateverTheWallClockDoes() {
    AtomicLong nanos = new AtomicLong(5_000_000_000L);
    Instant start = Instant.parse("2026-11-26T12:00:00Z");
    MonotonicClock clock = new MonotonicClock(start, nanos::get);
    assertThat(clock.instant()).isEqualTo(start);
    nanos.addAndGet(Duration.ofSeconds(30).toNanos());
    assertThat(clock.instant()).isEqualTo(start.plusSeconds(30));
    // the system's clock: never goes back, and moves with elapsed time
    Instant a = MonotonicClock.system().instant();
    Instant b = MonotonicClock.system().instant();
    assertThat(b).isAfterOrEqualTo(a);
    assertThat(Duration.between(MonotonicClock.system().instant(), Instant.now()).abs())
        .as("anchored to the wall clock when the operator started").isLessThan(Duration.ofMinutes(1));
  }
}
