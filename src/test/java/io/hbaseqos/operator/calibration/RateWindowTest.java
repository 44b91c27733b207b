package io.hbaseqos.operator.calibration;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Counter deltas into one period's observation. */
class RateWindowTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  static CounterReading at(int seconds, Map<String, ServerCounters> servers) {
    return new CounterReading(T0.plusSeconds(seconds), servers);
  }

  @Test
  void theRateIsOverTheTimeBetweenReadingsNotBetweenCalls() {
    RateWindow w = new RateWindow();
    assertThat(w.next(at(0, Map.of("rs1", new ServerCounters(1000, 0, 0), "rs2", new ServerCounters(0, 0, 0))))
        .usable()).isFalse();
    // 20 s later: rs1 did 30,000 counted gets, 5,000 of them throttled and counted twice; rs2 10,000 clean
    RateWindow.Result r = w.next(at(20, Map.of("rs1", new ServerCounters(31_000, 5_000, 10_000),
        "rs2", new ServerCounters(10_000, 0, 0))));
    assertThat(r.usable()).isTrue();
    assertThat(r.observation().ops()).isEqualTo((20_000 + 10_000) / 20.0);
    assertThat(r.observation().throttledShare()).isEqualTo(5_000 / 35_000.0);
    // a reading shared with another tenant and taken before this one's last: no time passed
    assertThat(w.next(at(20, Map.of("rs1", new ServerCounters(31_000, 5_000, 10_000),
        "rs2", new ServerCounters(10_000, 0, 0)))).problem()).contains("no time passed");
  }

  @Test
  void resetsNewAndVanishedServersMakeThePeriodMissingAndRestartTheBaseline() {
    RateWindow w = new RateWindow();
    w.next(at(0, Map.of("rs1", new ServerCounters(5000, 10, 0))));
    assertThat(w.next(at(10, Map.of("rs1", new ServerCounters(100, 0, 0)))).problem()).contains("went down");
    assertThat(w.next(at(20, Map.of("rs1", new ServerCounters(600, 0, 0)))).observation().ops()).isEqualTo(50);
    assertThat(w.next(at(30, Map.of("rs1", new ServerCounters(700, 0, 0), "rs2", new ServerCounters(5, 0, 0))))
        .problem()).contains("rs2 is new");
    assertThat(w.next(at(40, Map.of("rs2", new ServerCounters(10, 0, 0)))).problem()).contains("rs1 stopped");
    assertThat(w.next(at(50, Map.of())).problem()).contains("no RegionServer");
  }
}
