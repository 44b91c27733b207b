package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The keys are checked against the constants of HBase's own jars in QuotaSettingsIT. */
class RuntimeKeyTest {

  @Test
  void everyThrottleTypeButCapacityUnitsHasADefaultUserKeyOfItsOwnName() {
    Set<ThrottleKind> without = EnumSet.noneOf(ThrottleKind.class);
    for (ThrottleKind t : ThrottleKind.values()) {
      RuntimeKey k = RuntimeKey.defaultUser(t);
      if (k == null) {
        without.add(t);
      } else {
        assertThat(k.name()).isEqualTo("DEFAULT_USER_" + t.name());
        assertThat(k.since()).isEqualTo(t.since() == null ? new HBaseVersion(2, 6, 0) : t.since());
      }
    }
    assertThat(without).containsExactlyInAnyOrder(ThrottleKind.REQUEST_CAPACITY_UNIT, ThrottleKind.READ_CAPACITY_UNIT,
        ThrottleKind.WRITE_CAPACITY_UNIT);
  }

  @Test
  void valuesCompareAsHBaseParsesThem() {
    assertThat(RuntimeKey.REFILL_INTERVAL_MS.matches(" 100 ", "100")).isTrue();
    assertThat(RuntimeKey.REFILL_INTERVAL_MS.matches(null, "1000")).isTrue();
    assertThat(RuntimeKey.REFILL_INTERVAL_MS.matches(null, "100")).isFalse();
    assertThat(RuntimeKey.REFILL_INTERVAL_MS.matches("100ms", "100")).isFalse();
    assertThat(RuntimeKey.RATE_LIMITER.matches(null, RuntimeKey.AVERAGE_LIMITER)).isTrue();
    assertThat(RuntimeKey.RATE_LIMITER.matches(RuntimeKey.FIXED_LIMITER + " ", RuntimeKey.FIXED_LIMITER)).isTrue();
    assertThat(RuntimeKey.USE_RESULT_SIZE_BYTES.matches("TRUE", "true")).isTrue();
    // Hadoop's getBoolean falls back to the default for anything but true/false
    assertThat(RuntimeKey.USE_RESULT_SIZE_BYTES.matches("yes", "false")).isTrue();
    assertThat(RuntimeKey.USE_RESULT_SIZE_BYTES.matches(null, "true")).isFalse();
    // a default user quota left out of a declared list must be unset, or -1
    assertThat(RuntimeKey.DEFAULT_USER_READ_NUMBER.matches(null, null)).isTrue();
    assertThat(RuntimeKey.DEFAULT_USER_READ_NUMBER.matches("-1", null)).isTrue();
    assertThat(RuntimeKey.DEFAULT_USER_READ_NUMBER.matches("50", null)).isFalse();
    // HBase reads them as an int: a long value is not what it runs with
    assertThat(RuntimeKey.DEFAULT_USER_READ_SIZE.matches("4294967296", "4294967296")).isFalse();
    assertThat(RuntimeKey.USER_OVERRIDE_KEY.matches(null, null)).isTrue();
    assertThat(RuntimeKey.USER_OVERRIDE_KEY.matches(null, "quota.user")).isFalse();
  }

  @Test
  void valuesInWords() {
    assertThat(RuntimeKey.RATE_LIMITER.describe(null)).isEqualTo("unset (HBase default AverageIntervalRateLimiter)");
    assertThat(RuntimeKey.RATE_LIMITER.describe(RuntimeKey.FIXED_LIMITER)).isEqualTo("FixedIntervalRateLimiter");
    assertThat(RuntimeKey.REFILL_INTERVAL_MS.describe(null)).isEqualTo("unset (HBase default 1000)");
    assertThat(RuntimeKey.DEFAULT_USER_READ_NUMBER.describe(null)).isEqualTo("unset");
    assertThat(RuntimeKey.DEFAULT_USER_READ_NUMBER.describe("-1")).isEqualTo("-1 (unset)");
    assertThat(RuntimeKey.USER_OVERRIDE_KEY.describe(null)).isEqualTo("unset");
    assertThat(RuntimeKey.READ_CAPACITY_UNIT.describe("2k")).isEqualTo("'2k' (not a number)");
  }
}
