package io.hbaseqos.operator.reconciler;

import java.util.function.LongSupplier;

/**
 * A token bucket: {@code burst} tokens at most, refilled at {@code perSecond}. Thread-safe, no
 * I/O; the clock is a nanosecond source so tests can drive it.
 */
final class TokenBucket {
  private final double perSecond;
  private final double burst;
  private final LongSupplier nanos;
  private double tokens;
  private long last;

  TokenBucket(double perSecond, double burst, LongSupplier nanos) {
    if (perSecond <= 0 || burst < 1) {
      throw new IllegalArgumentException("rate must be positive and burst at least 1");
    }
    this.perSecond = perSecond;
    this.burst = burst;
    this.nanos = nanos;
    this.tokens = burst;
    this.last = nanos.getAsLong();
  }

  /** Takes one token if there is one. */
  synchronized boolean tryTake() {
    long now = nanos.getAsLong();
    tokens = Math.min(burst, tokens + (now - last) / 1e9 * perSecond);
    last = now;
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }
}
