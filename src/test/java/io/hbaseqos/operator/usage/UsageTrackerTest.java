package io.hbaseqos.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hbaseqos.operator.quota.Subject;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageTrackerTest {
  static final Instant T0 = Instant.parse("2026-11-26T12:00:00Z");
  static final Subject ALICE = Subject.user("alice");
  static final Subject BOB = Subject.user("bob");

  static Map<String, Counts> servers(long r1, long w1, long t1, long r2, long w2, long t2) {
    Map<String, Counts> m = new LinkedHashMap<>();
    m.put("rs1", new Counts(r1, w1, t1));
    m.put("rs2", new Counts(r2, w2, t2));
    return m;
  }

  @Test
  void ratesSharesAndSpreadComeFromTwoSamplesOfEveryTenantAtOnce() {
    UsageTracker t = new UsageTracker();
    assertThat(t.next(T0, Map.of(ALICE, servers(0, 0, 0, 0, 0, 0), BOB, servers(5, 5, 0, 5, 5, 0)), true))
        .as("a first sample has nothing to compare with").isEmpty();
    // 30 s: alice 2700 reads and 300 writes on rs1, 300 reads on rs2, 330 refused; bob idle
    Map<Subject, Usage> u = t.next(T0.plusSeconds(30), Map.of(ALICE, servers(2700, 300, 300, 300, 0, 30),
        BOB, servers(5, 5, 0, 5, 5, 0)), true);
    Usage a = u.get(ALICE);
    assertThat(a.readsPerSecond()).isCloseTo(100, within(1e-9));
    assertThat(a.writesPerSecond()).isCloseTo(10, within(1e-9));
    assertThat(a.throttledShare()).isCloseTo(330 / 3630.0, within(1e-9));
    assertThat(a.busiestServerShare()).isCloseTo(3000 / 3300.0, within(1e-9));
    assertThat(a.servers()).isEqualTo(2);
    assertThat(a.window().periods()).isEqualTo(1);
    assertThat(a.byServer()).containsOnlyKeys("rs1", "rs2");
    assertThat(a.byServer().get("rs1").readsPerSecond()).isCloseTo(90, within(1e-9));
    assertThat(a.byServer().get("rs1").writesPerSecond()).isCloseTo(10, within(1e-9));
    assertThat(a.byServer().get("rs1").throttledPerSecond()).isCloseTo(10, within(1e-9));
    assertThat(a.byServer().get("rs2").readsPerSecond()).isCloseTo(10, within(1e-9));
    assertThat(a.byServer().get("rs2").throttledPerSecond()).isCloseTo(1, within(1e-9));
    Usage b = u.get(BOB);
    assertThat(b.opsPerSecond()).isZero();
    assertThat(b.busiestServerShare()).as("idle: no spread").isNaN();
    assertThat(b.throttledShare()).isZero();
  }

  @Test
  void aRestartedServerOrAChangedSetOfServersCostsAPeriodAndAnOlderHBaseCountsNoThrottling() {
    UsageTracker t = new UsageTracker();
    t.next(T0, Map.of(ALICE, servers(1000, 0, 0, 1000, 0, 0)), false);
    assertThat(t.next(T0.plusSeconds(30), Map.of(ALICE, servers(10, 0, 0, 1300, 0, 0)), false))
        .as("rs1's counters went back: it restarted").isEmpty();
    Usage u = t.next(T0.plusSeconds(60), Map.of(ALICE, servers(310, 0, 0, 1600, 0, 0)), false).get(ALICE);
    assertThat(u.opsPerSecond()).isCloseTo(20, within(1e-9));
    assertThat(u.throttledShare()).as("before 2.6.4 HBase does not count them").isNaN();
    assertThat(t.next(T0.plusSeconds(90), Map.of(ALICE, Map.of("rs1", new Counts(400, 0, 0L))), false))
        .as("a server left").isEmpty();
    assertThat(t.next(T0.plusSeconds(120), Map.of(), false)).isEmpty();
    assertThat(t.next(T0.plusSeconds(150), Map.of(ALICE, Map.of("rs1", new Counts(400, 0, 0L))), false))
        .as("a tenant gone and back starts again").isEmpty();
  }

  @Test
  void theWindowKeepsTheLastPeriodsPeaksAndThrottledShare() {
    UsageTracker t = new UsageTracker();
    long reads = 0;
    long throttled = 0;
    Map<Subject, Usage> last = Map.of();
    for (int i = 0; i <= UsageTracker.WINDOW + 5; i++) {
      // a burst of 600/s in period 3 (forgotten past the window), else 60/s; a quarter of requests refused
      long r = i == 3 ? 600 * 30 : 60 * 30;
      reads += i == 0 ? 0 : r;
      throttled += i == 0 ? 0 : r / 3;
      last = t.next(T0.plusSeconds(30L * i), Map.of(ALICE, Map.of("rs1", new Counts(reads, 0, throttled))), true);
    }
    Usage.Window w = last.get(ALICE).window();
    assertThat(w.periods()).isEqualTo(UsageTracker.WINDOW);
    assertThat(w.seconds()).isEqualTo(30.0 * UsageTracker.WINDOW);
    assertThat(w.peakOpsPerSecond()).as("the burst is out of the window").isCloseTo(60, within(1e-6));
    assertThat(w.peakBusiestServerOpsPerSecond()).isCloseTo(60, within(1e-6));
    assertThat(w.throttledShare()).isCloseTo(0.25, within(1e-3));
  }
}
