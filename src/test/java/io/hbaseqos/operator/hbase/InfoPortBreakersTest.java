package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class InfoPortBreakersTest {
  final io.hbaseqos.operator.support.SettableClock clock = new io.hbaseqos.operator.support.SettableClock(
      Instant.parse("2026-11-27T03:00:00Z"));
  final InfoPortBreakers b = new InfoPortBreakers(clock);

  void after(long seconds) {
    clock.now = clock.now.plusSeconds(seconds);
  }

  @Test
  void aSilentPortIsSkippedAndProbedOneAtATimeLessOftenEachTimeItStaysSilent() {
    assertThat(b.refusal("rs1")).isNull();
    b.silent("rs1", "no whole answer within 6500 ms");
    assertThat(b.refusal("rs1")).isEqualTo("no whole answer within 6500 ms; not asked again until its info port "
        + "answers (circuit open)");
    assertThat(b.refusal("rs2")).as("another server is asked").isNull();
    assertThat(b.probeDue("rs1")).as("not before 5 s").isFalse();
    after(5);
    assertThat(b.probeDue("rs1")).isTrue();
    assertThat(b.probeDue("rs1")).as("one probe at a time").isFalse();
    b.silent("rs1", null); // the probe timed out
    after(9);
    assertThat(b.probeDue("rs1")).as("10 s after the second silence").isFalse();
    after(1);
    assertThat(b.probeDue("rs1")).isTrue();
    b.silent("rs1", "another problem");
    assertThat(b.refusal("rs1")).as("the words that opened it stay").startsWith("no whole answer within 6500 ms;");
    after(20);
    assertThat(b.probeDue("rs1")).isTrue();
    b.silent("rs1", null);
    after(30);
    assertThat(b.probeDue("rs1")).as("at most 30 s apart").isTrue();
    b.answered("rs1");
    assertThat(b.refusal("rs1")).isNull();
    assertThat(b.probeDue("rs1")).isFalse();
  }

  @Test
  void aServerNoLongerLiveIsForgottenAndALateProbeDoesNotReopenIt() {
    b.silent("rs1", "timed out");
    b.retain(java.util.Set.of("rs2"));
    assertThat(b.isOpen("rs1")).isFalse();
    b.silent("rs1", null);
    assertThat(b.isOpen("rs1")).isFalse();
  }

  @Test
  void aPortSilentAgainSoonAfterClosingWaitsLongerAndAfterTwoMinutesStartsOver() {
    b.silent("rs1", "timed out");
    after(5);
    assertThat(b.probeDue("rs1")).isTrue();
    b.silent("rs1", null); // 10 s now
    after(10);
    assertThat(b.probeDue("rs1")).isTrue();
    b.answered("rs1"); // the probe answered; its metrics do not
    after(7);
    b.silent("rs1", "timed out");
    after(19);
    assertThat(b.probeDue("rs1")).as("twice the last wait: 20 s, not 5").isFalse();
    after(1);
    assertThat(b.probeDue("rs1")).isTrue();
    b.answered("rs1");
    after(121);
    b.silent("rs1", "timed out");
    after(5);
    assertThat(b.probeDue("rs1")).as("two minutes later it starts over").isTrue();
  }

  @Test
  void aProbeThatEndsWithoutTellingIsTriedAgainAfterTheSameWait() {
    b.silent("rs1", "timed out");
    after(5);
    assertThat(b.probeDue("rs1")).isTrue();
    b.probeEnded("rs1");
    assertThat(b.isOpen("rs1")).isTrue();
    after(4);
    assertThat(b.probeDue("rs1")).isFalse();
    after(1);
    assertThat(b.probeDue("rs1")).isTrue();
  }
}
