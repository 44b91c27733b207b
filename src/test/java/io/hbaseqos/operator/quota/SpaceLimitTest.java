package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class SpaceLimitTest {

  @ParameterizedTest
  @CsvSource({"10G, 10737418240", "10g, 10737418240", "1536K, 1572864", "512, 512", "512B, 512", "1M, 1048576",
      "2T, 2199023255552", "8P, 9007199254740992", "007M, 7340032"})
  void parsesTheShellsSizes(String text, long bytes) throws Exception {
    assertThat(SpaceLimit.parseSize(text, "f")).isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "'' | is empty",
      "-1G | must start with a whole number",
      "G | must start with a whole number",
      "10Gi | unknown unit 'Gi'",
      "1.5G | unknown unit '.5G'",
      "10 G | unknown unit ' G'",
      "0 | must be greater than 0",
      "0G | must be greater than 0",
      "9P | too large",
      "8796093022209K | too large",
      "99999999999999999999 | too large"})
  void refusesWithAMessageInWords(String text, String message) {
    assertThatThrownBy(() -> SpaceLimit.parseSize(text, "spec.space.limit")).isInstanceOf(InvalidSpecException.class)
        .hasMessageContaining("spec.space.limit").hasMessageContaining(message);
  }

  @Test
  void formatsWithTheLargestUnitThatDivides() {
    assertThat(SpaceLimit.formatSize(10L << 30)).isEqualTo("10G");
    assertThat(SpaceLimit.formatSize(1536L << 10)).isEqualTo("1536K");
    assertThat(SpaceLimit.formatSize(1000)).isEqualTo("1000B");
    assertThat(SpaceLimit.formatSize(8L << 50)).isEqualTo("8P");
    assertThat(new SpaceLimit(1L << 20, SpaceLimit.Policy.DISABLE).describe()).isEqualTo("1M DISABLE");
  }

  @Test
  void usageIsAPercentageOfTheLimitAndSaysWhenThePolicyIsInForce() {
    assertThat(new SpaceUsage(95, 100, false, SpaceLimit.Policy.NO_INSERTS).describe()).isEqualTo("95% of 100B");
    assertThat(new SpaceUsage(3L << 20, 1L << 20, true, SpaceLimit.Policy.NO_INSERTS).describe())
        .isEqualTo("300% of 1M, NO_INSERTS in force");
    assertThat(new SpaceUsage(5, 0, false, null).usedPercent()).isZero();
  }

  @Test
  void aSpaceLimitIsASettingOfItsSubjectAndDiffsLikeAThrottle() {
    Subject t = Subject.table("default:t");
    Limit l = new Limit(10, TimeUnit.SECONDS, Limit.Scope.MACHINE);
    SpaceLimit tenG = new SpaceLimit(10L << 30, SpaceLimit.Policy.NO_INSERTS);
    SubjectQuota none = SubjectQuota.empty(t);
    SubjectQuota spaceOnly = none.withSpace(tenG);
    assertThat(spaceOnly.hasSettings()).isTrue();
    assertThat(spaceOnly.isEmpty()).isFalse();
    assertThat(spaceOnly.describe()).isEqualTo("SPACE=10G NO_INSERTS");
    assertThat(QuotaDiff.between(spaceOnly, none)).containsExactly(new QuotaOp.SetSpace(t, tenG));
    assertThat(QuotaDiff.between(none, spaceOnly)).containsExactly(new QuotaOp.RemoveSpace(t));
    SpaceLimit disable = new SpaceLimit(10L << 30, SpaceLimit.Policy.DISABLE);
    assertThat(QuotaDiff.between(none.withSpace(disable), spaceOnly)).as("a policy change is a new limit")
        .containsExactly(new QuotaOp.SetSpace(t, disable));
    SubjectQuota both = new SubjectQuota(t, Map.of(ThrottleKind.READ_NUMBER, l), false).withSpace(tenG);
    assertThat(QuotaDiff.matches(both, both)).isTrue();
    assertThat(QuotaDiff.matches(both, both.withSpace(null))).isFalse();
    // dropping the throttle keeps the space limit; removing both sets nothing first
    assertThat(QuotaDiff.between(spaceOnly, both)).containsExactly(new QuotaOp.RemoveThrottle(t, ThrottleKind.READ_NUMBER));
    assertThat(QuotaDiff.between(none, both)).containsExactly(new QuotaOp.RemoveThrottle(t, ThrottleKind.READ_NUMBER),
        new QuotaOp.RemoveSpace(t));
    // the write-through cache follows the writes
    SubjectQuota after = QuotaDiff.applyTo(both, new QuotaOp.RemoveSpace(t));
    assertThat(after.space()).isNull();
    assertThat(after.throttles()).containsOnlyKeys(ThrottleKind.READ_NUMBER);
    assertThat(QuotaDiff.applyTo(spaceOnly, new QuotaOp.RemoveSpace(t))).isEqualTo(none);
    assertThat(QuotaDiff.applyTo(none, new QuotaOp.SetSpace(t, tenG))).isEqualTo(spaceOnly);
  }
}
