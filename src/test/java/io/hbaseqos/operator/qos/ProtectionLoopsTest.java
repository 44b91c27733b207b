package io.hbaseqos.operator.qos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The loop's lock: a member that finds a step under way takes the last plan instead of waiting. */
class ProtectionLoopsTest {
  static final Instant T0 = Instant.parse("2026-11-26T12:00:00Z");
  static final ProtectionLoops.Member DASH = new ProtectionLoops.Member("ns/dash", 1,
      List.of(new ProtectionLoops.Goal("reads p99", 20)), null, null, null, null);
  static final ProtectionLoops.Member BATCH = new ProtectionLoops.Member("ns/batch", 2, List.of(),
      new ProtectionLoops.Range(10, 1000), null, null, null);

  /** A source whose latency read blocks until released (a Prometheus that takes its time). */
  static final class SlowSource implements ProtectionLoops.Source {
    final CountDownLatch reading = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile boolean slow;

    @Override
    public Map<String, List<ProtectionLoops.Reading>> latencies(List<ProtectionLoops.Member> protecteds) {
      if (slow) {
        reading.countDown();
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return Map.of("ns/dash", List.of(new ProtectionLoops.Reading(5, null)));
    }

    @Override
    public Map<String, Double> uses(List<ProtectionLoops.Member> sheddables) {
      return Map.of("ns/batch", 100.0);
    }
  }

  /** A written limit may be enforced a refresh period late: the periods of that wait, rounded up, for the law. */
  @Test
  void theRefreshPeriodIsCountedInWholePeriods() {
    assertThat(ProtectionLoops.periodsToEnforce(Duration.ZERO, Duration.ofSeconds(30))).isZero();
    assertThat(ProtectionLoops.periodsToEnforce(Duration.ofSeconds(30), Duration.ofSeconds(30))).isEqualTo(1);
    assertThat(ProtectionLoops.periodsToEnforce(Duration.ofSeconds(31), Duration.ofSeconds(30))).isEqualTo(2);
    assertThat(ProtectionLoops.periodsToEnforce(Duration.ofMinutes(1), Duration.ofSeconds(10))).isEqualTo(6);
    assertThat(ProtectionLoops.periodsToEnforce(Duration.ofHours(12), Duration.ofSeconds(1))).as("bounded")
        .isEqualTo(100);
  }

  /**
   * A limit resumed from status, written at {@code w}: the periods a restarted loop judges from its first
   * step on start where the loop that wrote it would have judged from, a period and the periods to
   * enforce (here 2) after the write.
   */
  @Test
  void aLimitResumedFromStatusWaitsAsLongAsTheLoopThatWroteItWould() {
    Duration p = Duration.ofSeconds(30);
    Duration refresh = Duration.ofSeconds(60);
    assertThat(ProtectionLoops.resumedWait(T0, refresh, p, T0.plus(p))).as("the step after the write").isEqualTo(3);
    assertThat(ProtectionLoops.resumedWait(T0, refresh, p, T0.plusSeconds(40))).isEqualTo(3);
    assertThat(ProtectionLoops.resumedWait(T0, refresh, p, T0.plusSeconds(60))).isEqualTo(2);
    assertThat(ProtectionLoops.resumedWait(T0, refresh, p, T0.plusSeconds(90))).isEqualTo(1);
    assertThat(ProtectionLoops.resumedWait(T0, refresh, p, T0.plusSeconds(120))).as("judged as its loop would")
        .isZero();
    assertThat(ProtectionLoops.resumedWait(T0, refresh, p, T0)).as("at most a period more than after a step")
        .isEqualTo(4);
    assertThat(ProtectionLoops.resumedWait(T0, refresh, p, T0.minusSeconds(3600))).as("a clock gone back: bounded")
        .isEqualTo(4);
    assertThat(ProtectionLoops.resumedWait(T0, Duration.ZERO, p, T0.plus(p))).as("HBase reloads on a write")
        .isZero();
    assertThat(ProtectionLoops.resumedWait(null, refresh, p, T0)).as("not known").isZero();
  }

  /** A restarted loop holds a limit written lately while a protected tenant misses, then judges it. */
  @Test
  void aRestartedLoopJudgesNoPeriodBeforeALimitResumedFromStatusIsInForce() {
    ProtectionLoops.Member dash = new ProtectionLoops.Member("ns/dash", 100,
        List.of(new ProtectionLoops.Goal("reads p99", 20)), null, null, null, null);
    ProtectionLoops.Member t = new ProtectionLoops.Member("ns/batch", 2, List.of(), new ProtectionLoops.Range(10, 1000),
        500L, null, null, T0.minusSeconds(30));
    ProtectionLoops.Source missing = new ProtectionLoops.Source() {
      @Override
      public Map<String, List<ProtectionLoops.Reading>> latencies(List<ProtectionLoops.Member> protecteds) {
        return Map.of("ns/dash", List.of(new ProtectionLoops.Reading(80, null)));
      }

      @Override
      public Map<String, Double> uses(List<ProtectionLoops.Member> sheddables) {
        return Map.of("ns/batch", 500.0);
      }
    };
    Duration p = Duration.ofSeconds(30);
    Duration refresh = Duration.ofSeconds(60);
    ProtectionLoops loops = new ProtectionLoops();
    for (int i = 0; i < 3; i++) {
      ProtectionLaw.Cap c = loops.plan("ns/hb", List.of(dash, t), p, refresh, missing, T0.plus(p.multipliedBy(i)))
          .decision().caps().get("ns/batch");
      assertThat(c.limit()).as("step %d", i).isEqualTo(500L);
      assertThat(c.reason()).contains("quota refresh");
    }
    assertThat(loops.plan("ns/hb", List.of(dash, t), p, refresh, missing, T0.plus(p.multipliedBy(3))).decision().caps()
        .get("ns/batch").limit()).as("in force: the miss cuts").isLessThan(500L);
    // written long before the restart: the first period is judged
    ProtectionLoops.Member old = new ProtectionLoops.Member("ns/batch", 2, List.of(),
        new ProtectionLoops.Range(10, 1000), 500L, null, null, T0.minusSeconds(3600));
    assertThat(new ProtectionLoops().plan("ns/hb", List.of(dash, old), p, refresh, missing, T0).decision().caps()
        .get("ns/batch").limit()).isLessThan(500L);
  }

  @Test
  void aMemberThatFindsAStepUnderWayTakesTheLastPlanAndLooksAgainSoon() throws Exception {
    ProtectionLoops loops = new ProtectionLoops();
    SlowSource source = new SlowSource();
    Duration period = Duration.ofSeconds(30);
    ProtectionLoops.Plan first = loops.plan("ns/hb", List.of(DASH, BATCH), period, source, T0);
    source.slow = true;
    Instant due = T0.plus(period);
    CompletableFuture<ProtectionLoops.Plan> stepping = CompletableFuture.supplyAsync(
        () -> loops.plan("ns/hb", List.of(DASH, BATCH), period, source, due));
    assertThat(source.reading.await(30, TimeUnit.SECONDS)).as("the step is reading").isTrue();
    // another member's reconcile, meanwhile: it does not wait for the reads
    ProtectionLoops.Plan meanwhile = loops.plan("ns/hb", List.of(DASH, BATCH), period, source, due);
    assertThat(meanwhile.decision()).isSameAs(first.decision());
    assertThat(meanwhile.changed()).isFalse();
    assertThat(meanwhile.until(due)).as("looks again a second later, not at once").isEqualTo(Duration.ofSeconds(1));
    assertThat(stepping).isNotDone();
    source.release.countDown();
    ProtectionLoops.Plan stepped = stepping.get(30, TimeUnit.SECONDS);
    assertThat(stepped.next()).isEqualTo(due.plus(period));
    assertThat(loops.plan("ns/hb", List.of(DASH, BATCH), period, source, due).decision())
        .isSameAs(stepped.decision());
  }

  /**
   * The loop's first step never waits either: while its readings are taken it has no plan (its
   * members keep what their status says), and once they are there it steps, on readings taken
   * after the moment it first asked, however many reconciles asked meanwhile.
   */
  @Test
  void aFirstStepWhoseReadingsAreBeingTakenHasNoPlanYetAndStepsOnceTheyAreThere() {
    ProtectionLoops loops = new ProtectionLoops();
    PendingSource source = new PendingSource();
    source.there = false;
    Duration period = Duration.ofSeconds(30);
    ProtectionLoops.Plan waiting = loops.plan("ns/hb", List.of(DASH, BATCH), period, source, T0);
    assertThat(waiting.isPending()).isTrue();
    assertThat(waiting.next()).isEqualTo(T0.plus(ProtectionLoops.PENDING_RECHECK));
    assertThat(loops.plan("ns/hb", List.of(DASH, BATCH), period, source, T0.plusSeconds(2)).isPending()).isTrue();
    assertThat(source.latencyReads).isZero();
    source.there = true;
    ProtectionLoops.Plan first = loops.plan("ns/hb", List.of(DASH, BATCH), period, source, T0.plusSeconds(3));
    assertThat(first.isPending()).isFalse();
    assertThat(first.decision().caps()).containsKey("ns/batch");
    assertThat(first.next()).isEqualTo(T0.plusSeconds(3).plus(period));
    assertThat(source.since).as("the moment of the first ask, each time").containsExactly(T0, T0, T0);
    assertThat(source.latencyReads).isEqualTo(1);

    // a first ask never older than a period: readings that long in coming are asked for again, from then
    ProtectionLoops other = new ProtectionLoops();
    PendingSource slow = new PendingSource();
    slow.there = false;
    other.plan("ns/hb", List.of(DASH, BATCH), period, slow, T0);
    other.plan("ns/hb", List.of(DASH, BATCH), period, slow, T0.plus(period));
    Instant late = T0.plus(period).plusSeconds(1);
    other.plan("ns/hb", List.of(DASH, BATCH), period, slow, late);
    assertThat(slow.since).containsExactly(T0, T0, late);
  }

  /** A source whose readings are taken elsewhere: ready only once told, and asked after which step. */
  static final class PendingSource implements ProtectionLoops.Source {
    boolean there = true;
    final List<Instant> since = new java.util.ArrayList<>();
    int latencyReads;

    @Override
    public boolean ready(List<ProtectionLoops.Member> protecteds, List<ProtectionLoops.Member> sheddables,
        Instant after) {
      since.add(after);
      return there;
    }

    @Override
    public Map<String, List<ProtectionLoops.Reading>> latencies(List<ProtectionLoops.Member> protecteds) {
      latencyReads++;
      return Map.of("ns/dash", List.of(new ProtectionLoops.Reading(50, null)));
    }

    @Override
    public Map<String, Double> uses(List<ProtectionLoops.Member> sheddables) {
      return Map.of("ns/batch", 100.0);
    }
  }

  /**
   * Readings not there yet never hold a reconcile: the last plan stands (looked at again when woken,
   * or after {@link ProtectionLoops#PENDING_RECHECK}), and the step runs, once, when they are there,
   * on readings taken after the last step. A member change waits for its readings the same way.
   */
  @Test
  void aStepWhoseReadingsAreBeingTakenKeepsTheLastPlanUntilTheyAreThere() {
    ProtectionLoops loops = new ProtectionLoops();
    PendingSource source = new PendingSource();
    Duration period = Duration.ofSeconds(30);
    ProtectionLoops.Plan first = loops.plan("ns/hb", List.of(DASH, BATCH), period, source, T0);
    assertThat(source.since).as("the first step asks for readings from its own moment").containsExactly(T0);
    source.there = false;
    Instant due = T0.plus(period);
    ProtectionLoops.Plan pending = loops.plan("ns/hb", List.of(DASH, BATCH), period, source, due);
    assertThat(pending.decision()).isSameAs(first.decision());
    assertThat(pending.changed()).isFalse();
    assertThat(pending.next()).isEqualTo(due.plus(ProtectionLoops.PENDING_RECHECK));
    assertThat(source.latencyReads).isEqualTo(1);
    source.there = true;
    ProtectionLoops.Plan stepped = loops.plan("ns/hb", List.of(DASH, BATCH), period, source, due.plusSeconds(1));
    assertThat(stepped.decision()).isNotSameAs(first.decision());
    assertThat(stepped.next()).isEqualTo(due.plusSeconds(1).plus(period));
    assertThat(source.latencyReads).isEqualTo(2);
    assertThat(source.since.subList(1, 3)).as("readings taken at or after the period's end, the same moment each time")
        .containsExactly(due, due);

    // a member leaves: the loop steps at once, when its readings are there
    source.there = false;
    Instant later = due.plusSeconds(5);
    assertThat(loops.plan("ns/hb", List.of(DASH), period, source, later).decision()).isSameAs(stepped.decision());
    source.there = true;
    ProtectionLoops.Plan without = loops.plan("ns/hb", List.of(DASH), period, source, later.plusSeconds(1));
    assertThat(without.decision().caps()).doesNotContainKey("ns/batch");
    assertThat(source.since.subList(3, 5)).as("a step before its period's end: readings after the last step")
        .containsExactly(due.plusSeconds(1), due.plusSeconds(1));
    assertThat(without.next()).as("a step before its period's end keeps the period's schedule")
        .isEqualTo(stepped.next());
  }

  /**
   * Before HBase 2.6.3 a written limit is in force only after the RegionServers' refresh (here two
   * periods): a step before a period's end, when the members change, is no period of that wait.
   */
  @Test
  void aStepBeforeItsPeriodsEndInsideARefreshWaitNeitherEndsTheWaitNorMovesTheSchedule() {
    ProtectionLoops loops = new ProtectionLoops();
    ProtectionLoops.Member u = new ProtectionLoops.Member("ns/u", 100,
        List.of(new ProtectionLoops.Goal("reads p99", 20)), null, null, null, null);
    ProtectionLoops.Member t = new ProtectionLoops.Member("ns/t", 10, List.of(),
        new ProtectionLoops.Range(10, 1000), null, null, null);
    // a sheddable tenant above u joins: the members' shape changes, u's tenants below do not
    ProtectionLoops.Member late = new ProtectionLoops.Member("ns/late", 200, List.of(),
        new ProtectionLoops.Range(10, 1000), null, null, null);
    // what t uses: all its limit, whichever is in force
    java.util.concurrent.atomic.AtomicReference<Double> tUses = new java.util.concurrent.atomic.AtomicReference<>(1000.0);
    ProtectionLoops.Source source = new ProtectionLoops.Source() {
      @Override
      public Map<String, List<ProtectionLoops.Reading>> latencies(List<ProtectionLoops.Member> protecteds) {
        return Map.of("ns/u", List.of(new ProtectionLoops.Reading(50, null))); // a gross miss every period
      }

      @Override
      public Map<String, Double> uses(List<ProtectionLoops.Member> sheddables) {
        return Map.of("ns/t", tUses.get(), "ns/late", 100.0);
      }
    };
    Duration period = Duration.ofSeconds(30);
    Duration refresh = Duration.ofSeconds(60);
    long cut = loops.plan("ns/hb", List.of(u, t), period, refresh, source, T0).decision().caps().get("ns/t").limit();
    assertThat(cut).isLessThan(1000L);
    tUses.set((double) cut);
    // the period under the write, then the member joins (a step at once), then the refresh's two periods
    loops.plan("ns/hb", List.of(u, t), period, refresh, source, T0.plusSeconds(30));
    ProtectionLoops.Plan early = loops.plan("ns/hb", List.of(u, t, late), period, refresh, source,
        T0.plusSeconds(35));
    assertThat(early.next()).as("the period's schedule kept").isEqualTo(T0.plusSeconds(60));
    assertThat(loops.plan("ns/hb", List.of(u, t, late), period, refresh, source, T0.plusSeconds(60)).decision()
        .caps().get("ns/t").limit()).isEqualTo(cut);
    assertThat(loops.plan("ns/hb", List.of(u, t, late), period, refresh, source, T0.plusSeconds(90)).decision()
        .caps().get("ns/t").limit()).as("the refresh's second period: still waiting").isEqualTo(cut);
    assertThat(loops.plan("ns/hb", List.of(u, t, late), period, refresh, source, T0.plusSeconds(120)).decision()
        .caps().get("ns/t").limit()).as("measured at last: cut again").isLessThan(cut);
  }

  /** A source that reads a miss on one server and each tenant's work per server. */
  static final class PlacingSource implements ProtectionLoops.Source {
    @Override
    public Map<String, List<ProtectionLoops.Reading>> latencies(List<ProtectionLoops.Member> protecteds) {
      return Map.of("ns/dash", List.of(new ProtectionLoops.Reading(80, null, false, java.util.Set.of("rs-b"))));
    }

    @Override
    public Map<String, Double> uses(List<ProtectionLoops.Member> sheddables) {
      return Map.of("ns/batch", 600.0, "ns/other", 600.0);
    }

    @Override
    public Map<String, Map<String, Double>> serverUses(List<ProtectionLoops.Member> sheddables) {
      return Map.of("ns/batch", Map.of("rs-a", 600.0), "ns/other", Map.of("rs-b", 600.0));
    }
  }

  @Test
  void theServersOfAMissAndTheWorkPerServerReachTheLaw() {
    ProtectionLoops.Member dash = new ProtectionLoops.Member("ns/dash", 10,
        List.of(new ProtectionLoops.Goal("reads p99", 20)), null, null, null, null);
    ProtectionLoops.Member batch = new ProtectionLoops.Member("ns/batch", 1, List.of(),
        new ProtectionLoops.Range(10, 1000), null, null, null);
    ProtectionLoops.Member other = new ProtectionLoops.Member("ns/other", 1, List.of(),
        new ProtectionLoops.Range(10, 1000), null, null, null);
    ProtectionLoops.Plan plan = new ProtectionLoops().plan("ns/hb", List.of(dash, batch, other), Duration.ofSeconds(30),
        new PlacingSource(), T0);
    assertThat(plan.decision().caps().get("ns/other").limit()).as("a gross miss: half its use").isEqualTo(300);
    assertThat(plan.decision().caps().get("ns/other").reason()).contains("missed on rs-b");
    assertThat(plan.decision().caps().get("ns/batch").limit()).as("no work on rs-b").isEqualTo(1000);
  }
}
