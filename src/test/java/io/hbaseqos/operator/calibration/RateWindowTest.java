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

  /**
   * HBase records a refused Get as two Gets and a refused scan as one Get, never as a scan: of a scan
   * tenant's reads only those Gets come out (2,000 scans and 1,500 refusals recorded as 1,500 Gets:
   * twice the refusals would leave none), and one that does both loses at most its Gets.
   */
  @Test
  void refusalsComeOutOfTheGetsHBaseRecordedNeverOutOfScans() {
    RateWindow scans = new RateWindow();
    scans.next(at(0, Map.of("rs1", new ServerCounters(0, 0, 0, 0))));
    RateWindow.Result r = scans.next(at(10, Map.of("rs1", new ServerCounters(3_500, 1_500, 3_000, 1_500))));
    assertThat(r.observation().ops()).isEqualTo(200.0);
    assertThat(r.observation().throttledShare()).isEqualTo(1_500 / 3_500.0);

    RateWindow both = new RateWindow();
    both.next(at(0, Map.of("rs1", new ServerCounters(100, 0, 0, 100))));
    // 1,000 more Gets and 2,000 more scans recorded, 800 refusals (1,600 records if all were Gets)
    RateWindow.Result m = both.next(at(10, Map.of("rs1", new ServerCounters(3_100, 800, 1_600, 1_100))));
    assertThat(m.observation().ops()).as("at most the 1,000 Gets come out").isEqualTo((3_000 - 1_000) / 10.0);
    assertThat(new ServerCounters(3_000, 800, 1_600, 1_000).succeeded()).isEqualTo(2_000);
    assertThat(new ServerCounters(3_000, 800, 1_600).succeeded()).as("every operation may be a Get").isEqualTo(1_400);
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
