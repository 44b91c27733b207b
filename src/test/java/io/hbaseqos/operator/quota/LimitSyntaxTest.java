package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class LimitSyntaxTest {

  private static Limit parse(ThrottleKind k, String s) throws InvalidSpecException {
    return LimitSyntax.parse(k, s, Limit.Scope.MACHINE, "f");
  }

  @ParameterizedTest
  @CsvSource({
      "REQUEST_NUMBER, 2500req/sec, 2500, SECONDS",
      "READ_NUMBER, 10REQ/MIN, 10, MINUTES",
      "WRITE_NUMBER, 1req/hour, 1, HOURS",
      "ATOMIC_REQUEST_NUMBER, 7req/day, 7, DAYS",
      "REQUEST_SIZE, 10M/sec, 10485760, SECONDS",
      "READ_SIZE, 100b/sec, 100, SECONDS",
      "WRITE_SIZE, 3k/min, 3072, MINUTES",
      "ATOMIC_READ_SIZE, 2G/sec, 2147483648, SECONDS",
      "ATOMIC_WRITE_SIZE, 1T/sec, 1099511627776, SECONDS",
      "READ_SIZE, 1P/sec, 1125899906842624, SECONDS",
      "REQUEST_CAPACITY_UNIT, 100CU/min, 100, MINUTES",
      "READ_CAPACITY_UNIT, 5cu/sec, 5, SECONDS",
      "WRITE_CAPACITY_UNIT, 5Cu/sec, 5, SECONDS",
      "REQUEST_HANDLER_USAGE_MS, 500ms/sec, 500, SECONDS",
  })
  void parsesTheShellSyntax(ThrottleKind kind, String text, long amount, TimeUnit unit) throws Exception {
    Limit l = parse(kind, text);
    assertThat(l.amount()).isEqualTo(amount);
    assertThat(l.timeUnit()).isEqualTo(unit);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "2500", "req/sec", "-5req/sec", "0req/sec", "10req/week", "10req/s", "10 req/sec",
      "1.5req/sec", "10X/sec", "10req", "10req/sec/min", "99999999999999999req/sec"})
  void rejectsMalformedLimits(String text) {
    assertThatThrownBy(() -> parse(ThrottleKind.REQUEST_NUMBER, text)).isInstanceOf(InvalidSpecException.class)
        .hasMessageStartingWith("f");
  }

  @Test
  void zeroIsRejectedWithAClearMessage() {
    assertThatThrownBy(() -> parse(ThrottleKind.REQUEST_NUMBER, "0req/sec")).hasMessageContaining("greater than 0");
  }

  @Test
  void unitMustFitTheThrottleType() {
    assertThatThrownBy(() -> parse(ThrottleKind.READ_SIZE, "10req/sec"))
        .hasMessageContaining("does not fit READ_SIZE").hasMessageContaining("B, K, M, G, T or P");
    assertThatThrownBy(() -> parse(ThrottleKind.REQUEST_NUMBER, "10M/sec")).hasMessageContaining("'req'".replace("'", ""));
    assertThatThrownBy(() -> parse(ThrottleKind.READ_CAPACITY_UNIT, "10req/sec")).hasMessageContaining("CU");
    assertThatThrownBy(() -> parse(ThrottleKind.REQUEST_HANDLER_USAGE_MS, "10req/sec")).hasMessageContaining("ms");
  }

  @Test
  void enormousNumbersAreRejectedNotOverflowed() {
    assertThatThrownBy(() -> parse(ThrottleKind.READ_SIZE, "9999999P/sec")).hasMessageContaining("too large");
    assertThatThrownBy(() -> parse(ThrottleKind.REQUEST_NUMBER, "9999999999999999req/sec")).hasMessageContaining("too large");
    assertThatThrownBy(() -> LimitSyntax.of(ThrottleKind.READ_SIZE, Long.MAX_VALUE, "K", TimeUnit.SECONDS,
        Limit.Scope.MACHINE, "f")).hasMessageContaining("too large");
  }

  @Test
  void structuredLimits() throws Exception {
    assertThat(LimitSyntax.of(ThrottleKind.READ_SIZE, 10, "M", TimeUnit.SECONDS, Limit.Scope.CLUSTER, "f"))
        .isEqualTo(new Limit(10L << 20, TimeUnit.SECONDS, Limit.Scope.CLUSTER));
    assertThat(LimitSyntax.of(ThrottleKind.REQUEST_NUMBER, 7, null, null, Limit.Scope.MACHINE, "f").timeUnit())
        .isEqualTo(TimeUnit.SECONDS);
    assertThatThrownBy(() -> LimitSyntax.of(ThrottleKind.REQUEST_NUMBER, 7, "M", TimeUnit.SECONDS,
        Limit.Scope.MACHINE, "f")).hasMessageContaining("f.sizeUnit");
    assertThatThrownBy(() -> LimitSyntax.of(ThrottleKind.REQUEST_NUMBER, 0, null, TimeUnit.SECONDS,
        Limit.Scope.MACHINE, "f")).hasMessageContaining("f.value");
    assertThatThrownBy(() -> LimitSyntax.of(ThrottleKind.REQUEST_NUMBER, -3, null, TimeUnit.SECONDS,
        Limit.Scope.MACHINE, "f")).hasMessageContaining("at least 1");
  }

  @ParameterizedTest
  @CsvSource({
      "REQUEST_NUMBER, 2500req/sec", "READ_SIZE, 10M/sec", "READ_SIZE, 1025B/min", "WRITE_SIZE, 3K/hour",
      "REQUEST_CAPACITY_UNIT, 100CU/min", "REQUEST_HANDLER_USAGE_MS, 500ms/day", "ATOMIC_WRITE_SIZE, 1P/sec"})
  void formatIsTheInverseOfParse(ThrottleKind kind, String text) throws Exception {
    assertThat(LimitSyntax.format(kind, parse(kind, text))).isEqualTo(text);
  }

  @Test
  void formatPicksTheLargestExactUnit() {
    assertThat(LimitSyntax.formatSize(1024)).isEqualTo("1K");
    assertThat(LimitSyntax.formatSize(1536)).isEqualTo("1536B");
    assertThat(LimitSyntax.formatSize(3L << 30)).isEqualTo("3G");
  }

  @Test
  void everyThrottleKindMapsToAnHBaseThrottleType() {
    for (ThrottleKind k : ThrottleKind.values()) {
      assertThat(org.apache.hadoop.hbase.quotas.ThrottleType.valueOf(k.name())).isNotNull();
    }
    assertThat(ThrottleKind.values()).hasSize(org.apache.hadoop.hbase.quotas.ThrottleType.values().length);
  }
}
