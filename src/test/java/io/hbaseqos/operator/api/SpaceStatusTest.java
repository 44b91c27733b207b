package io.hbaseqos.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.quota.SpaceLimit;
import io.hbaseqos.operator.quota.SpaceUsage;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SpaceStatusTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  static final SpaceLimit TEN_GIB = new SpaceLimit(10L << 30, SpaceLimit.Policy.NO_INSERTS);

  static SpaceUsage used(long bytes, boolean violation) {
    return new SpaceUsage(bytes, 10L << 30, violation, SpaceLimit.Policy.NO_INSERTS);
  }

  @Test
  void beforeHBaseReportsTheStatusSaysSo() {
    SpaceStatus s = SpaceStatus.of(TEN_GIB, null, true, null, T0);
    assertThat(s.getUsage()).isEqualTo("10G, usage not reported yet");
    assertThat(s.getUsedBytes()).isNull();
    assertThat(s.getInViolation()).isFalse();
    assertThat(s.getLimitBytes()).isEqualTo(10L << 30);
    assertThat(s.getObservedTime()).isEqualTo(T0.toString());
  }

  @Test
  void smallChangesKeepTheStatusAsItWasAndRealOnesReplaceIt() {
    SpaceStatus zero = SpaceStatus.of(TEN_GIB, used(0, false), true, null, T0);
    assertThat(zero.getUsage()).isEqualTo("0% of 10G");
    SpaceStatus oneMiB = SpaceStatus.of(TEN_GIB, used(1L << 20, false), true, zero, T0.plusSeconds(60));
    assertThat(oneMiB).as("0 to 1 MiB is news, though both are 0%").isNotSameAs(zero);
    assertThat(oneMiB.getUsedBytes()).isEqualTo(1L << 20);
    SpaceStatus crept = SpaceStatus.of(TEN_GIB, used((1L << 20) + 50_000, false), true, oneMiB, T0.plusSeconds(120));
    assertThat(crept).as("under a tenth more: nothing to write").isSameAs(oneMiB);
    SpaceStatus over = SpaceStatus.of(TEN_GIB, used(11L << 30, true), true, crept, T0.plusSeconds(180));
    assertThat(over.getUsage()).isEqualTo("110% of 10G, NO_INSERTS in force");
    assertThat(over.getInViolation()).isTrue();
    assertThat(over.getTableDisabled()).isNull();
  }

  @Test
  void aDisablePolicyInForceOnATableSaysTheTableIsOffline() {
    SpaceLimit disable = new SpaceLimit(1L << 20, SpaceLimit.Policy.DISABLE);
    SpaceUsage over = new SpaceUsage(3L << 20, 1L << 20, true, SpaceLimit.Policy.DISABLE);
    assertThat(SpaceStatus.of(disable, over, true, null, T0).getTableDisabled()).isTrue();
    assertThat(SpaceStatus.of(disable, over, false, null, T0).getTableDisabled()).as("a namespace").isNull();
  }

  @Test
  void thePercentageIsOfTheLimitHBaseHoldsNotOfAStaleSnapshotsLimit() {
    SpaceUsage staleLimit = new SpaceUsage(3L << 20, 1L << 20, true, SpaceLimit.Policy.NO_INSERTS);
    SpaceStatus s = SpaceStatus.of(new SpaceLimit(100L << 20, SpaceLimit.Policy.NO_INSERTS), staleLimit, true, null, T0);
    assertThat(s.getUsedPercent()).isEqualTo(3);
    assertThat(s.getInViolation()).as("until the master says otherwise").isTrue();
  }
}
