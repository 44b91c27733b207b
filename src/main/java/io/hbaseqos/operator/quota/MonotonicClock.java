package io.hbaseqos.operator.quota;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/**
 * A clock that never steps: the wall time when it was made, plus the time elapsed since on a
 * monotonic counter ({@link System#nanoTime()}). The control loops compute rates and periods from
 * differences of its instants, so a step of the host's wall clock (a VM resumed, an NTP step, an
 * operator setting the date) neither freezes them (a step back: a period that seems not to end)
 * nor jolts them (a step forward: one period's operations spread over an hour). The instants it
 * writes to status may differ from the wall clock by the steps the host took since the operator
 * started; a restart aligns them again. NTP's slewing moves both clocks alike. Pure apart from the
 * counter it is given.
 */
public final class MonotonicClock extends Clock {
  private static final MonotonicClock SYSTEM = new MonotonicClock(Instant.now(), System::nanoTime);

  private final Instant origin;
  private final long originNanos;
  private final LongSupplier nanos;

  /**
   * @param origin the instant at which the counter read its current value
   * @param nanos a monotonic counter of nanoseconds
   */
  public MonotonicClock(Instant origin, LongSupplier nanos) {
    this.origin = origin;
    this.nanos = nanos;
    this.originNanos = nanos.getAsLong();
  }

  /** The process's clock: every loop and reading of one operator shares it. */
  public static MonotonicClock system() {
    return SYSTEM;
  }

  @Override
  public Instant instant() {
    return origin.plus(Duration.ofNanos(nanos.getAsLong() - originNanos));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    if (zone.equals(ZoneOffset.UTC)) {
      return this;
    }
    throw new UnsupportedOperationException("the operator's clock is UTC only");
  }
}
