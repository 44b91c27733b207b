package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DurationsTest {

  @ParameterizedTest
  @CsvSource({"0, 0s", "1500, 1500ms", "30000, 30s", "90000, 1m30s", "3600000, 1h", "43200000, 12h",
      "3661000, 1h1m1s", "300000, 5m"})
  void formatsTheShortestForm(long ms, String text) {
    assertThat(Durations.format(Duration.ofMillis(ms))).isEqualTo(text);
  }

  @ParameterizedTest
  @CsvSource({"1500ms", "30s", "1m30s", "12h", "1h1m1s"})
  void formatAndParseRoundTrip(String text) {
    assertThat(Durations.format(Durations.parse(text, null))).isEqualTo(text);
  }

  @Test
  void parseFallsBackOnBlankAndRefusesGarbage() {
    assertThat(Durations.parse(" ", Duration.ofSeconds(7))).isEqualTo(Duration.ofSeconds(7));
    assertThatThrownBy(() -> Durations.parse("30 s", null)).hasMessageContaining("not a duration");
    assertThatThrownBy(() -> Durations.parse("1d", null)).hasMessageContaining("not a duration");
  }

  @ParameterizedTest
  @CsvSource({"99999999999999999999s", "9999999999999999h", "2562047788016h", "9223372036854775807ms1ms"})
  void aDurationThatOverflowsIsRefusedInWords(String text) {
    assertThatThrownBy(() -> Durations.parse(text, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'" + text + "' is too long a duration");
  }
}
