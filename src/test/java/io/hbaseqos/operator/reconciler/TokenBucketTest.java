package io.hbaseqos.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private int take(TokenBucket b, int tries) {
    int n = 0;
    for (int i = 0; i < tries; i++) {
      n += b.tryTake() ? 1 : 0;
    }
    return n;
  }

  @Test
  void startsFullAndAllowsTheBurst() {
    TokenBucket b = new TokenBucket(10, 5, now::get);
    assertThat(take(b, 100)).isEqualTo(5);
  }

  @Test
  void refillsAtTheRate() {
    TokenBucket b = new TokenBucket(10, 5, now::get);
    take(b, 5);
    now.addAndGet(250_000_000L); // a quarter second at 10/s: 2.5 tokens
    assertThat(take(b, 100)).isEqualTo(2);
    now.addAndGet(50_000_000L); // the half token left plus 0.5
    assertThat(take(b, 100)).isEqualTo(1);
  }

  @Test
  void neverHoldsMoreThanTheBurst() {
    TokenBucket b = new TokenBucket(10, 5, now::get);
    now.addAndGet(3_600_000_000_000L);
    assertThat(take(b, 100)).isEqualTo(5);
  }

  @Test
  void refusesNonsense() {
    assertThatThrownBy(() -> new TokenBucket(0, 5, now::get)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TokenBucket(1, 0, now::get)).isInstanceOf(IllegalArgumentException.class);
  }
}
