package io.hbaseqos.operator.limit;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.api.CalibrationSpec;
import io.hbaseqos.operator.api.CalibrationStatus;
import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.api.QosSpec;
import io.hbaseqos.operator.api.QosStatus;
import io.hbaseqos.operator.api.QuotaSubject;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.TenantQuotaStatus;
import io.hbaseqos.operator.api.ThrottleSpec;
import io.hbaseqos.operator.calibration.CalibrationLoops;
import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.calibration.ServerCounters;
import io.hbaseqos.operator.gateway.ClusterMetrics;
import io.hbaseqos.operator.hbase.UsersMetrics;
import io.hbaseqos.operator.qos.ProtectionLoops;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The tenant's limit decision without Kubernetes or HBase: tenants are plain data, the cluster's
 * metrics a port served from memory, the time a parameter.
 */
class TenantLimitsTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** Metrics that are never there: both loops must hold what is in force (fail-static). */
  static final ClusterMetrics NO_METRICS = new Unused("info port closed") {
    @Override
    public double prometheus(String url, String query, Instant notBefore) throws IOException {
      throw new IOException("no Prometheus");
    }
  };

  /** Metrics none of whose sources a test uses; a test's fake overrides the one it serves. */
  abstract static class Unused implements ClusterMetrics {
    private final String why;

    Unused() {
      this("not used");
    }

    Unused(String why) {
      this.why = why;
    }

    @Override
    public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) throws IOException {
      throw new IOException(why);
    }

    @Override
    public UsersMetrics allUserMetrics(Instant notBefore) throws IOException {
      throw new IOException(why);
    }

    @Override
    public double prometheus(String url, String query, Instant notBefore) throws IOException {
      throw new IOException(why);
    }
  }

  /**
   * Metrics whose only source is every user's metrics, served by {@code read}: each ask for the latencies
   * takes a new reading, and a user's counters come from the last one taken for the same moment, as the
   * gateway serves both from one sample (a new reading when there is none).
   */
  static ClusterMetrics servedBy(java.util.function.Supplier<UsersMetrics> read) {
    return new Unused() {
      private UsersMetrics last;
      private Instant lastFor;

      @Override
      public UsersMetrics allUserMetrics(Instant notBefore) {
        last = read.get();
        lastFor = notBefore;
        return last;
      }

      @Override
      public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) {
        if (last == null || !java.util.Objects.equals(notBefore, lastFor)) {
          allUserMetrics(notBefore);
        }
        return io.hbaseqos.operator.hbase.SampledCounters.of(last, user, ops);
      }
    };
  }

  final List<Tenant> peers = new ArrayList<>();
  final TenantLimits limits = new TenantLimits(new CalibrationLoops(), new ProtectionLoops(), key -> peers);

  static TenantQuotaSpec spec(String user, ThrottleSpec... throttles) {
    TenantQuotaSpec s = new TenantQuotaSpec();
    s.setSubject(new QuotaSubject(user, null, null));
    s.setThrottles(new ArrayList<>(List.of(throttles)));
    return s;
  }

  /** A tenant calibrated to {@code target} reads a second, with a 10 s period. */
  static TenantQuotaSpec calibratedReads(String user, long target) {
    TenantQuotaSpec s = spec(user);
    CalibrationSpec c = new CalibrationSpec();
    c.setTargetOpsPerSecond(target);
    c.setOperations(CalibrationSpec.Operations.reads);
    c.setPeriod("10s");
    s.setCalibration(c);
    return s;
  }

  static SubjectQuota declared(String user, ThrottleKind kind, long perSecond) {
    return SubjectQuota.empty(Subject.user(user)).with(kind, new Limit(perSecond, TimeUnit.SECONDS, Limit.Scope.MACHINE));
  }

  static QosSpec protectedReads(int priority, double boundMillis) {
    QosSpec.LatencyObjectiveSpec o = new QosSpec.LatencyObjectiveSpec();
    o.setOperations(QosSpec.LatencyObjectiveSpec.Operations.reads);
    o.setStatistic(QosSpec.LatencyObjectiveSpec.Statistic.Percentile);
    o.setPercentile(99.0);
    o.setBoundMillis(boundMillis);
    o.setWindow("30s");
    QosSpec q = new QosSpec();
    q.setPriority(priority);
    q.setLatencyObjectives(new ArrayList<>(List.of(o)));
    return q;
  }

  static QosSpec sheddable(int priority, long floor, long ceiling) {
    QosSpec.SheddableSpec s = new QosSpec.SheddableSpec();
    s.setOperations(CalibrationSpec.Operations.all);
    s.setFloor(floor);
    s.setCeiling(ceiling);
    QosSpec q = new QosSpec();
    q.setPriority(priority);
    q.setSheddable(s);
    return q;
  }

  /** A status in which protection holds the tenant's REQUEST_NUMBER at {@code limit}, in {@code state}. */
  static TenantQuotaStatus shedAt(long limit, String state) {
    QosStatus q = new QosStatus();
    q.setThrottle(ThrottleKind.REQUEST_NUMBER.name());
    q.setLimit(limit);
    q.setState(state);
    TenantQuotaStatus st = new TenantQuotaStatus();
    st.setQos(q);
    return st;
  }

  /** dash, protected (reads p99 within 50 ms, priority 100), and batch, sheddable below it within 100-5000 req/sec. */
  List<Tenant> dashAndBatch() {
    TenantQuotaSpec us = spec("dash");
    us.setQos(protectedReads(100, 50));
    TenantQuotaSpec ts = spec("batch");
    ts.setQos(sheddable(10, 100, 5000));
    List<Tenant> both = List.of(new Tenant("ns/dash", "uid-dash", "ns/hb", us, null),
        new Tenant("ns/batch", "uid-batch", "ns/hb", ts, null));
    peers.addAll(both);
    return both;
  }

  static Decision.Report condition(Decision d, String type) {
    return d.conditions().stream().filter(c -> c.type().equals(type)).reduce((a, b) -> b).orElse(null);
  }

  @Test
  void aTenantWithNeitherLoopGetsItsSpecAndNothingElse() {
    SubjectQuota desired = declared("plain", ThrottleKind.READ_NUMBER, 100);
    Decision d = limits.decide(new Tenant("ns/plain", "uid-plain", "ns/hb", spec("plain"), null), desired, NO_METRICS, T0);
    assertThat(d.quota()).isEqualTo(desired);
    assertThat(d.qos()).isNull();
    assertThat(d.calibration()).isNull();
    assertThat(d.conditions()).isEmpty();
    assertThat(d.notes()).isEmpty();
    assertThat(d.moved()).isEmpty();
    assertThat(d.lookAgain()).isNull();
  }

  @Test
  void protectionHoldingATenantDownWinsOverItsCalibrationAndHBaseGetsTheLowerLimit() {
    // a tenant both calibrated (in force: 1000 req/s) and sheddable, last held at 300 by protection
    TenantQuotaSpec s = spec("batch");
    s.setQos(sheddable(10, 100, 5000));
    CalibrationSpec c = new CalibrationSpec();
    c.setTargetOpsPerSecond(2000L);
    c.setOperations(CalibrationSpec.Operations.all);
    c.setPeriod("10s");
    s.setCalibration(c);
    TenantQuotaStatus st = new TenantQuotaStatus();
    QosStatus qos = new QosStatus();
    qos.setThrottle(ThrottleKind.REQUEST_NUMBER.name());
    qos.setLimit(300L);
    qos.setState("Squeezed");
    st.setQos(qos);
    CalibrationStatus cs = new CalibrationStatus();
    cs.setState("Converging");
    cs.setLimit(1000L);
    st.setCalibration(cs);
    Tenant batch = new Tenant("ns/batch", "uid-batch", "ns/hb", s, st);
    // the protected tenant above it, whose latency cannot be read
    TenantQuotaSpec us = spec("dash");
    us.setQos(protectedReads(100, 50));
    peers.add(new Tenant("ns/dash", "uid-dash", "ns/hb", us, null));
    peers.add(batch);

    Decision d = limits.decide(batch, declared("batch", ThrottleKind.REQUEST_NUMBER, 1000), NO_METRICS, T0);

    assertThat(d.qos().getLimit()).as("fail-static: the limit in force is held").isEqualTo(300L);
    assertThat(d.quota().throttles().get(ThrottleKind.REQUEST_NUMBER).perSecond())
        .as("HBase holds the lower of the two limits, and status names that one").isEqualTo(300.0);
    assertThat(condition(d, Conditions.CALIBRATED)).satisfies(r -> {
      assertThat(r.status()).isEqualTo("False");
      assertThat(r.reason()).isEqualTo("HeldByProtection");
      assertThat(r.message()).contains("holds the limit at 300 req/sec");
    });
    assertThat(d.calibration()).as("calibration waits with its status as it was").isSameAs(cs);
    assertThat(d.calibrationGauge()).isNull();
    assertThat(d.protection().shed()).isTrue();
    assertThat(d.lookAgain()).isNotNull();
  }

  /** Metrics whose every reading is being taken elsewhere (the sampler's thread); counts the asks. */
  static final class Pending implements ClusterMetrics {
    int asks;

    @Override
    public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) throws IOException {
      asks++;
      throw new io.hbaseqos.operator.gateway.MetricsPendingException("being read");
    }

    @Override
    public UsersMetrics allUserMetrics(Instant notBefore) throws IOException {
      asks++;
      throw new io.hbaseqos.operator.gateway.MetricsPendingException("being read");
    }

    @Override
    public double prometheus(String url, String query, Instant notBefore) throws IOException {
      asks++;
      throw new io.hbaseqos.operator.gateway.MetricsPendingException("being read");
    }
  }

  /**
   * After a start, the protection loop's first readings are being taken: the reconcile does not wait
   * for them. The squeezed tenant keeps the limit its status names (HBase is asked for nothing new),
   * its status and conditions stay as they are, and it looks again when woken.
   */
  @Test
  void beforeTheFirstPlanASqueezedTenantKeepsItsLimitAndStatusAndNothingWaits() {
    TenantQuotaSpec s = spec("batch");
    s.setQos(sheddable(10, 100, 5000));
    TenantQuotaStatus st = shedAt(300, "Squeezed");
    QosStatus qos = st.getQos();
    qos.setMessage("squeezed from 600 to 300 req/sec");
    Tenant batch = new Tenant("ns/batch", "uid-batch", "ns/hb", s, st);
    TenantQuotaSpec us = spec("dash");
    us.setQos(protectedReads(100, 50));
    peers.add(new Tenant("ns/dash", "uid-dash", "ns/hb", us, null));
    peers.add(batch);
    Pending pending = new Pending();

    Decision d = limits.decide(batch, SubjectQuota.empty(Subject.user("batch")), pending, T0);

    assertThat(pending.asks).as("asked, not waited for").isEqualTo(1);
    assertThat(d.quota().throttles().get(ThrottleKind.REQUEST_NUMBER).perSecond()).isEqualTo(300.0);
    assertThat(d.qos()).isSameAs(qos);
    assertThat(d.conditions()).as("conditions left as they are").isEmpty();
    assertThat(d.notes()).isEmpty();
    assertThat(d.lookAgain()).isEqualTo(ProtectionLoops.PENDING_RECHECK.plusMillis(50));

    // its floor raised above that limit while no plan was made: HBase and status get the floor, all else stays
    s.getQos().getSheddable().setFloor(500L);
    Decision raised = limits.decide(batch, SubjectQuota.empty(Subject.user("batch")), pending, T0);
    assertThat(raised.quota().throttles().get(ThrottleKind.REQUEST_NUMBER).perSecond()).isEqualTo(500.0);
    assertThat(raised.qos().getLimit()).isEqualTo(500L);
    assertThat(raised.qos().getState()).isEqualTo("Squeezed");
    assertThat(raised.qos().getMessage()).isEqualTo(qos.getMessage());
    assertThat(qos.getLimit()).as("the status read is not changed in place").isEqualTo(300L);
    s.getQos().getSheddable().setFloor(100L);

    // free at its ceiling: kept as well
    qos.setState("Free");
    qos.setLimit(5000L);
    Decision free = limits.decide(batch, SubjectQuota.empty(Subject.user("batch")), pending, T0);
    assertThat(free.quota().throttles().get(ThrottleKind.REQUEST_NUMBER).perSecond()).isEqualTo(5000.0);
    assertThat(free.qos()).isSameAs(qos);
    assertThat(free.conditions()).isEmpty();
    assertThat(free.protection().shed()).isFalse();

    // a new sheddable tenant, no status yet: at its ceiling, where every plan starts it, and status says so
    Tenant fresh = new Tenant("ns/fresh", "uid-fresh", "ns/hb", s, null);
    Decision f = limits.decide(fresh, SubjectQuota.empty(Subject.user("batch")), pending, T0);
    assertThat(f.quota().throttles().get(ThrottleKind.REQUEST_NUMBER).perSecond()).isEqualTo(5000.0);
    assertThat(f.qos().getLimit()).isEqualTo(5000L);
    assertThat(f.qos().getState()).isEqualTo("Free");
    assertThat(f.protection().shed()).isFalse();
  }

  @Test
  void aProtectedTenantWhoseLatencyCannotBeReadIsUnknownWithAnEventOnlyWhenTheReasonChanges() {
    TenantQuotaSpec us = spec("dash");
    us.setQos(protectedReads(100, 50));
    Tenant dash = new Tenant("ns/dash", "uid-dash", "ns/hb", us, null);
    peers.add(dash);
    Decision d = limits.decide(dash, SubjectQuota.empty(Subject.user("dash")), NO_METRICS, T0);
    Decision.Report latency = condition(d, Conditions.LATENCY_MET);
    assertThat(latency.status()).isEqualTo("Unknown");
    assertThat(latency.reason()).isEqualTo("MetricsUnavailable");
    assertThat(latency.message()).contains("info port closed");
    assertThat(latency.onChange()).isEqualTo(Decision.Note.warning("MetricsUnavailable", latency.message()));
    assertThat(latency.stableMessage()).as("an Unknown reading is rewritten every period").isFalse();
    assertThat(condition(d, Conditions.SHED).status()).as("not sheddable: no Shed condition").isNull();
    assertThat(d.quota()).isEqualTo(SubjectQuota.empty(Subject.user("dash")));
    assertThat(d.protection().limit()).isNaN();
  }

  @Test
  void takingTheLoopsOutRemovesTheirConditionsAndStatus() {
    TenantQuotaStatus st = new TenantQuotaStatus();
    st.setQos(new QosStatus());
    st.setCalibration(new CalibrationStatus());
    Tenant t = new Tenant("ns/was", "uid-was", "ns/hb", spec("was"), st);
    Decision d = limits.decide(t, declared("was", ThrottleKind.READ_NUMBER, 100), NO_METRICS, T0);
    assertThat(d.qos()).isNull();
    assertThat(d.calibration()).isNull();
    assertThat(d.conditions()).extracting(Decision.Report::type).containsExactly(Conditions.LATENCY_MET,
        Conditions.SHED, Conditions.CALIBRATED);
    assertThat(d.conditions()).allSatisfy(r -> assertThat(r.status()).isNull());
    assertThat(d.quota().throttles().get(ThrottleKind.READ_NUMBER).perSecond()).isEqualTo(100.0);
  }

  @Test
  void aCalibratedTenantWithoutMetricsKeepsItsLimitAndIsAskedAgainAtItsPeriod() {
    TenantQuotaSpec s = calibratedReads("cal", 2000);
    Tenant t = new Tenant("ns/cal", "uid-cal", "ns/hb", s, null);
    SubjectQuota desired = declared("cal", ThrottleKind.READ_NUMBER, 700);
    Decision first = limits.decide(t, desired, NO_METRICS, T0);
    assertThat(first.quota()).isEqualTo(desired);
    assertThat(first.calibration()).isNotNull();
    assertThat(first.calibrationGauge().target()).isEqualTo(2000.0);
    assertThat(first.lookAgain()).isPositive().isLessThanOrEqualTo(java.time.Duration.ofSeconds(11));
    assertThat(condition(first, Conditions.CALIBRATED).status()).isEqualTo("False");

    Decision later = limits.decide(new Tenant("ns/cal", "uid-cal", "ns/hb", s, statusWith(first)), desired, NO_METRICS,
        T0.plusSeconds(10));
    assertThat(later.quota()).as("no measurement, no move").isEqualTo(desired);
    assertThat(later.calibration().getState()).isEqualTo("MetricsUnavailable");
    assertThat(later.notes()).extracting(Decision.Note::reason).contains("CalibrationMetricsUnavailable");
  }

  static TenantQuotaStatus statusWith(Decision d) {
    TenantQuotaStatus st = new TenantQuotaStatus();
    st.setQos(d.qos());
    st.setCalibration(d.calibration());
    return st;
  }

  @Test
  void aDeletedTenantIsForgottenByBothLoops() {
    TenantQuotaSpec s = spec("gone");
    s.setQos(sheddable(10, 100, 5000));
    Tenant t = new Tenant("ns/gone", "uid-gone", "ns/hb", s, null);
    peers.add(t);
    TenantQuotaSpec us = spec("dash");
    us.setQos(protectedReads(100, 50));
    peers.add(new Tenant("ns/dash", "uid-dash", "ns/hb", us, null));
    assertThat(limits.decide(t, SubjectQuota.empty(Subject.user("gone")), NO_METRICS, T0).qos().getLimit())
        .as("a new sheddable tenant starts at its ceiling").isEqualTo(5000L);
    limits.forget("ns/gone", "uid-gone");
    // re-created under the same name with a last status of 300: the loop resumes from status, not from memory
    TenantQuotaStatus st = new TenantQuotaStatus();
    QosStatus q = new QosStatus();
    q.setThrottle(ThrottleKind.REQUEST_NUMBER.name());
    q.setLimit(300L);
    st.setQos(q);
    Tenant again = new Tenant("ns/gone", "uid-gone-2", "ns/hb", s, st);
    peers.set(0, again);
    assertThat(limits.decide(again, SubjectQuota.empty(Subject.user("gone")), NO_METRICS, T0.plusSeconds(1)).qos()
        .getLimit()).isEqualTo(300L);
  }

  @Test
  void aCallQueueObjectiveNeedsNoPerUserMetricsAndSqueezesTheLevelBelowOnAMiss() {
    // a table tenant protected by the call queues' mean wait; per-user metrics are off on the cluster
    Tenant app = queueProtected();
    Tenant batch = peers.get(1);
    // 100 calls/s taken from each server's queues; how many wait at each reading is set per period
    long[] taken = {0};
    long[] waiting = {0};
    Instant[] at = {T0};
    ClusterMetrics cluster = queuesBy(() -> {
      taken[0] += 3000;
      return new io.hbaseqos.operator.hbase.CallQueues(at[0], Map.of("rs1", rs(0, taken[0]),
          "rs2", rs(waiting[0], taken[0])));
    });
    SubjectQuota none = SubjectQuota.empty(Subject.table("ns1:app"));
    Decision first = limits.decide(app, none, cluster, at[0]);
    assertThat(condition(first, Conditions.LATENCY_MET).status()).as("the first reading only starts the period")
        .isEqualTo("Unknown");
    assertThat(condition(first, Conditions.LATENCY_MET).message()).contains("call queues' first reading");
    // 5 calls waiting at 100 calls/s on rs2: 50 ms, over 20 ms (a gross miss): the level below is cut
    waiting[0] = 5;
    at[0] = T0.plusSeconds(30);
    Decision missed = limits.decide(app, none, cluster, at[0]);
    QosStatus.Objective objective = missed.qos().getObjectives().get(0);
    assertThat(objective.getObjective()).isEqualTo("call queue wait mean <= 20ms");
    assertThat(objective.getVerdict()).isEqualTo("Missed");
    assertThat(objective.getObservedMillis()).isEqualTo(50.0);
    long cut = limits.decide(batch, SubjectQuota.empty(Subject.user("batch")), cluster, at[0]).qos().getLimit();
    assertThat(cut).as("squeezed below its ceiling, not below its floor").isLessThan(5000L).isGreaterThanOrEqualTo(100L);
    // nothing waits: the objective is met
    waiting[0] = 0;
    at[0] = T0.plusSeconds(60);
    Decision met = limits.decide(app, none, cluster, at[0]);
    assertThat(met.qos().getObjectives().get(0).getVerdict()).isEqualTo("MetWithMargin");
    assertThat(met.qos().getObjectives().get(0).getObservedMillis()).isEqualTo(0.0);
  }

  /** A protected table tenant on the call queues (bound 20 ms) and a sheddable user below it. */
  Tenant queueProtected() {
    QosSpec.LatencyObjectiveSpec o = new QosSpec.LatencyObjectiveSpec();
    o.setSource(QosSpec.LatencyObjectiveSpec.Source.CallQueue);
    o.setOperations(QosSpec.LatencyObjectiveSpec.Operations.all);
    o.setStatistic(QosSpec.LatencyObjectiveSpec.Statistic.Mean);
    o.setBoundMillis(20.0);
    o.setWindow("30s");
    QosSpec q = new QosSpec();
    q.setPriority(100);
    q.setLatencyObjectives(new ArrayList<>(List.of(o)));
    TenantQuotaSpec as = new TenantQuotaSpec();
    as.setSubject(new QuotaSubject(null, "ns1:app", null));
    as.setThrottles(new ArrayList<>());
    as.setQos(q);
    Tenant app = new Tenant("ns/app", "uid-app", "ns/hb", as, null);
    TenantQuotaSpec ts = spec("batch");
    ts.setQos(sheddable(10, 100, 5000));
    peers.addAll(List.of(app, new Tenant("ns/batch", "uid-batch", "ns/hb", ts, null)));
    return app;
  }

  /** Metrics whose only source is the call queues, served by {@code read} (per-user metrics off). */
  static ClusterMetrics queuesBy(java.util.function.Supplier<io.hbaseqos.operator.hbase.CallQueues> read) {
    return new Unused() {
      @Override
      public UsersMetrics allUserMetrics(Instant notBefore) throws IOException {
        throw new IOException("no per-user metrics");
      }

      @Override
      public io.hbaseqos.operator.hbase.CallQueues callQueues(Instant notBefore) {
        return read.get();
      }
    };
  }

  static io.hbaseqos.operator.hbase.CallQueues.Server rs(long queued, long taken) {
    return new io.hbaseqos.operator.hbase.CallQueues.Server(queued, taken, null);
  }

  @Test
  void aCallQueueReadingWithAServerUnreadRestartedOrNoneIsUnknownAndAMissOnTheOthersIsStillOne() {
    Tenant app = queueProtected();
    SubjectQuota none = SubjectQuota.empty(Subject.table("ns1:app"));
    Map<String, io.hbaseqos.operator.hbase.CallQueues.Server>[] next = new Map[1];
    Instant[] at = {T0};
    ClusterMetrics cluster = queuesBy(() -> new io.hbaseqos.operator.hbase.CallQueues(at[0], next[0]));
    java.util.function.BiFunction<Integer, Map<String, io.hbaseqos.operator.hbase.CallQueues.Server>, Decision> step =
        (seconds, servers) -> {
          next[0] = servers;
          at[0] = T0.plusSeconds(seconds);
          return limits.decide(app, none, cluster, at[0]);
        };
    step.apply(0, Map.of("rs1", rs(0, 0), "rs2", rs(0, 0)));
    // rs2 unread: not judged, and not kept
    Decision unread = step.apply(30, Map.of("rs1", rs(0, 3000), "rs2",
        new io.hbaseqos.operator.hbase.CallQueues.Server(0, 0, "metrics unreadable (timed out)")));
    assertThat(condition(unread, Conditions.LATENCY_MET).status()).isEqualTo("Unknown");
    assertThat(condition(unread, Conditions.LATENCY_MET).message()).contains("RegionServer rs2: metrics unreadable");
    // the next whole reading is judged over the 60 s since the last whole one: 6000 calls, 100/s; 1 waits: 10 ms
    Decision met = step.apply(60, Map.of("rs1", rs(1, 6000), "rs2", rs(1, 6000)));
    assertThat(met.qos().getObjectives().get(0).getVerdict()).isEqualTo("MetWithMargin");
    assertThat(met.qos().getObjectives().get(0).getObservedMillis()).isEqualTo(10.0);
    // rs2 restarted (its count went back): not judged, named
    Decision restarted = step.apply(90, Map.of("rs1", rs(0, 9000), "rs2", rs(0, 50)));
    assertThat(condition(restarted, Conditions.LATENCY_MET).status()).isEqualTo("Unknown");
    assertThat(condition(restarted, Conditions.LATENCY_MET).message()).contains("RegionServer rs2 started again");
    // rs2 restarted again, and rs1 misses: a miss is a miss (5 waiting at 100 calls/s: 50 ms)
    Decision missed = step.apply(120, Map.of("rs1", rs(5, 12000), "rs2", rs(0, 10)));
    assertThat(missed.qos().getObjectives().get(0).getVerdict()).isEqualTo("Missed");
    assertThat(missed.qos().getObjectives().get(0).getObservedMillis()).isEqualTo(50.0);
    // rs2 unread, rs1 misses: a miss (and the reading is not kept: the next is judged from the one at 120 s)
    Decision missedUnread = step.apply(150, Map.of("rs1", rs(5, 15000), "rs2",
        new io.hbaseqos.operator.hbase.CallQueues.Server(0, 0, "metrics unreadable (timed out)")));
    assertThat(missedUnread.qos().getObjectives().get(0).getVerdict()).isEqualTo("Missed");
    Decision overSixty = step.apply(180, Map.of("rs1", rs(0, 18000), "rs2", rs(0, 20)));
    assertThat(overSixty.qos().getObjectives().get(0).getVerdict()).isIn("Met", "MetWithMargin");
    // no live server: nothing to judge, never idle
    Decision noServer = step.apply(210, Map.of());
    assertThat(noServer.qos().getObjectives().get(0).getVerdict()).isEqualTo("Unknown");
    assertThat(condition(noServer, Conditions.LATENCY_MET).message()).contains("no live RegionServer");
  }

  @Test
  void aLatencyWindowAnotherReaderEmptiedIsUnknownAndGivesNothingBack() {
    TenantQuotaSpec us = spec("dash");
    us.setQos(protectedReads(100, 50));
    Tenant dash = new Tenant("ns/dash", "uid-dash", "ns/hb", us, null);
    TenantQuotaSpec ts = spec("batch");
    ts.setQos(sheddable(10, 100, 5000));
    TenantQuotaStatus squeezed = shedAt(1000, "Held");
    Tenant batch = new Tenant("ns/batch", "uid-batch", "ns/hb", ts, squeezed);
    peers.addAll(List.of(dash, batch));
    // dash's gets: 100 more every period; what the window holds is set per period
    long[] count = {0};
    double[] inWindow = {0};
    ClusterMetrics servers = servedBy(() -> {
      count[0] += 100;
      Map<String, Double> rs = new java.util.HashMap<>();
      rs.put("users_user_dash_metric_get_num_ops", (double) count[0]);
      if (inWindow[0] > 0) {
        rs.put("users_user_dash_metric_get_time_range_count_0_1", inWindow[0]);
      }
      return new UsersMetrics(Map.of("rs1", rs));
    });
    inWindow[0] = 100;
    Instant t = T0;
    limits.decide(dash, SubjectQuota.empty(Subject.user("dash")), servers, t);
    // every period under a millisecond with the whole window: margin, and capacity comes back in time
    Decision whole = null;
    for (int i = 1; i <= 4; i++) {
      t = t.plusSeconds(30);
      whole = limits.decide(dash, SubjectQuota.empty(Subject.user("dash")), servers, t);
    }
    assertThat(whole.qos().getObjectives().get(0).getVerdict()).isEqualTo("MetWithMargin");
    long before = limits.decide(batch, SubjectQuota.empty(Subject.user("batch")), servers, t).qos().getLimit();
    assertThat(before).as("given back part of the way").isGreaterThan(1000L).isLessThan(5000L);
    // another reader empties the window before every read: 100 gets counted, none left to judge
    inWindow[0] = 0;
    Decision emptied = limits.decide(dash, SubjectQuota.empty(Subject.user("dash")), servers, t.plusSeconds(30));
    assertThat(limits.decide(batch, SubjectQuota.empty(Subject.user("batch")), servers, t.plusSeconds(30)).qos()
        .getLimit()).as("nothing given back on an empty window").isEqualTo(before);
    assertThat(emptied.qos().getObjectives().get(0).getVerdict()).isEqualTo("Unknown");
    assertThat(condition(emptied, Conditions.LATENCY_MET).message()).contains("another reader")
        .contains("empty though 100 operations");
    // most of it taken: still not a reading that vouches for the period
    inWindow[0] = 10;
    Decision partial = limits.decide(dash, SubjectQuota.empty(Subject.user("dash")), servers, t.plusSeconds(60));
    assertThat(condition(partial, Conditions.LATENCY_MET).status()).isEqualTo("Unknown");
    assertThat(condition(partial, Conditions.LATENCY_MET).message()).contains("took 90 of the period's 100");
    assertThat(limits.decide(batch, SubjectQuota.empty(Subject.user("batch")), servers, t.plusSeconds(60)).qos()
        .getLimit()).isEqualTo(before);
  }

  /**
   * On HBase before 2.6.3 (the HBaseCluster's status says it, with a quota refresh period of 60 s) a cut
   * is enforced only at the RegionServers' next refresh: with 30 s windows the loop judges none of the
   * next three periods, whose readings still show the old limit, and the tenant's message says so; the
   * fourth is judged.
   */
  @Test
  void aCutIsJudgedOnlyOnceTheRefreshPeriodHasEnforcedIt() {
    RefreshCluster hb = new RefreshCluster();
    TenantLimits slow = hb.operator();
    List<Tenant> both = dashAndBatch();
    List<Long> limits = new ArrayList<>();
    List<String> messages = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      if (i == 3) {
        hb.enforced = limits.get(0);
      }
      Decision d = hb.step(slow, both, i);
      limits.add(d.qos().getLimit());
      messages.add(d.qos().getMessage());
    }
    assertThat(limits.get(0)).isLessThan(5000L);
    assertThat(limits.subList(1, 4)).as("held while the cut is not in force").containsOnly(limits.get(0));
    assertThat(messages.get(1))
        .contains("up to two refresh periods after the write; 2 more periods pass before one measures them");
    assertThat(messages.get(3)).contains("the next one measures them");
    assertThat(limits.get(4)).as("judged once in force").isLessThan(limits.get(0));
  }

  /**
   * A cluster before HBase 2.6.3 with a 60 s quota refresh, stepped every 30 s: dash's 100 gets a period
   * all take 100-300 ms (p99 200 ms, four times its 50 ms bound), while batch does 4000 gets a second, or
   * what the limit HBase enforces ({@link #enforced}, moved by the test) lets it.
   */
  final class RefreshCluster {
    long enforced = 5000;
    private long count;
    private double batchOps;
    final ClusterMetrics servers = servedBy(() -> {
      count += 100;
      batchOps += 30.0 * Math.min(4000, enforced);
      return new UsersMetrics(Map.of("rs1", Map.of("users_user_dash_metric_get_num_ops", (double) count,
          "users_user_dash_metric_get_time_range_count_100_300", 100.0,
          "users_user_dash_metric_get_99th_percentile", 200.0,
          "users_user_batch_metric_get_num_ops", batchOps)));
    });

    /** An operator process (its loops start empty) told the refresh. */
    TenantLimits operator() {
      return new TenantLimits(new CalibrationLoops(), new ProtectionLoops(), new TenantLimits.Peers() {
        @Override
        public List<Tenant> qosTenants(String clusterKey) {
          return peers;
        }

        @Override
        public java.time.Duration quotaInForce(String clusterKey) {
          return java.time.Duration.ofSeconds(60);
        }
      });
    }

    /** Step {@code i} (at T0 + 30 s × i): dash, then batch, as their reconciles would; batch's decision. */
    Decision step(TenantLimits operator, List<Tenant> dashAndBatch, int i) {
      Instant t = T0.plusSeconds(30L * i);
      operator.decide(dashAndBatch.get(0), SubjectQuota.empty(Subject.user("dash")), servers, t);
      return operator.decide(dashAndBatch.get(1), SubjectQuota.empty(Subject.user("batch")), servers, t);
    }
  }

  /**
   * On HBase before 2.6 the RegionServers serve no {@code /prometheus}, and their {@code /jmx} histograms
   * cannot be judged per period: a protected tenant whose latency Prometheus reads is still protected, and
   * the cut of the tenant below is sized from what it used, read from the same sample's counters (1000 gets
   * a second, under a ceiling of 5000), and status says so. With the counters unreadable as well, the cut is
   * from the limit, and status says that instead.
   */
  @Test
  void withoutPrometheusOnTheRegionServersAUseIsReadFromTheirCountersAndSizesTheCut() {
    assertThat(cutOnAServerWithoutPrometheus(true)).satisfies(q -> {
      assertThat(q.getLimit()).as("cut from the use, not the ceiling").isLessThan(1000L);
      assertThat(q.getMessage()).contains("(it used 1000)");
    });
    assertThat(cutOnAServerWithoutPrometheus(false)).satisfies(q -> {
      assertThat(q.getLimit()).as("cut from the limit").isBetween(2500L, 4999L);
      assertThat(q.getMessage()).contains("(its use not known: cut from its limit)");
    });
  }

  /** Batch's status after dash's Prometheus p99 goes from 10 to 200 ms (bound 50) over servers read from /jmx. */
  QosStatus cutOnAServerWithoutPrometheus(boolean countersReadable) {
    peers.clear();
    TenantLimits operator = new TenantLimits(new CalibrationLoops(), new ProtectionLoops(), key -> peers);
    TenantQuotaSpec us = spec("dash");
    QosSpec q = protectedReads(100, 50);
    QosSpec.LatencyObjectiveSpec o = q.getLatencyObjectives().get(0);
    o.setSource(QosSpec.LatencyObjectiveSpec.Source.Prometheus);
    io.hbaseqos.operator.api.PrometheusQuery query = new io.hbaseqos.operator.api.PrometheusQuery();
    query.setUrl("http://prometheus:9090");
    query.setQuery("dash_p99_ms");
    o.setPrometheus(query);
    us.setQos(q);
    TenantQuotaSpec ts = spec("batch");
    ts.setQos(sheddable(10, 100, 5000));
    Tenant dash = new Tenant("ns/dash", "uid-dash", "ns/hb", us, null);
    Tenant batch = new Tenant("ns/batch", "uid-batch", "ns/hb", ts, null);
    peers.addAll(List.of(dash, batch));
    double[] p99 = {10};
    long[] gets = {0};
    Instant[] at = {T0};
    ClusterMetrics jmx = new Unused() {
      @Override
      public UsersMetrics allUserMetrics(Instant notBefore) throws IOException {
        throw new io.hbaseqos.operator.hbase.MetricsUnavailableException("RegionServer rs1 does not serve /prometheus: "
            + "its /jmx histograms are reset by whoever reads them and cannot be judged per period");
      }

      @Override
      public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) throws IOException {
        if (!countersReadable) {
          throw new IOException("RegionServer rs1: metrics unreadable");
        }
        assertThat(user).isEqualTo("batch");
        return new CounterReading(at[0], Map.of("rs1", new ServerCounters(gets[0], 0, 0, gets[0])), false);
      }

      @Override
      public double prometheus(String url, String query, Instant notBefore) {
        return p99[0];
      }
    };
    QosStatus last = null;
    for (int i = 0; i < 4 && (last == null || last.getLimit() == null || last.getLimit() >= 5000); i++) {
      at[0] = T0.plusSeconds(30L * i);
      gets[0] = 30_000L * i;
      p99[0] = i == 0 ? 10 : 200;
      operator.decide(dash, SubjectQuota.empty(Subject.user("dash")), jmx, at[0]);
      last = operator.decide(batch, SubjectQuota.empty(Subject.user("batch")), jmx, at[0]).qos();
    }
    return last;
  }

  /**
   * A tenant's use comes from the counters port on every release, not from the metrics the latencies are
   * judged on: here the two disagree (the latencies' sample counts batch at 4000 gets a second, its
   * counters at 1000), and dash's miss on HBase's own histograms cuts batch from what its counters say.
   */
  @Test
  void aUseIsReadFromTheCountersPortWhateverTheLatenciesAreReadFrom() {
    List<Tenant> both = dashAndBatch();
    long[] dashOps = {0};
    double[] p99 = {1};
    double[] judgedBatch = {0};
    long[] counted = {0};
    Instant[] at = {T0};
    ClusterMetrics servers = new Unused() {
      @Override
      public UsersMetrics allUserMetrics(Instant notBefore) {
        dashOps[0] += 100;
        judgedBatch[0] += 30.0 * 4000;
        String bucket = p99[0] > 50 ? "100_300" : "0_1";
        return new UsersMetrics(Map.of("rs1", Map.of("users_user_dash_metric_get_num_ops", (double) dashOps[0],
            "users_user_dash_metric_get_time_range_count_" + bucket, 100.0,
            "users_user_dash_metric_get_99th_percentile", p99[0],
            "users_user_batch_metric_get_num_ops", judgedBatch[0])), Map.of(), at[0]);
      }

      @Override
      public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) {
        assertThat(user).isEqualTo("batch");
        return new CounterReading(at[0], Map.of("rs1", new ServerCounters(counted[0], 0, 0, counted[0])), true);
      }
    };
    QosStatus last = null;
    for (int i = 0; i < 4 && (last == null || last.getLimit() == null || last.getLimit() >= 5000); i++) {
      at[0] = T0.plusSeconds(30L * i);
      counted[0] = 30_000L * i;
      p99[0] = i == 0 ? 1 : 200;
      limits.decide(both.get(0), SubjectQuota.empty(Subject.user("dash")), servers, at[0]);
      last = limits.decide(both.get(1), SubjectQuota.empty(Subject.user("batch")), servers, at[0]).qos();
    }
    assertThat(last.getLimit()).as("cut from the use its counters show").isBetween(100L, 500L);
    assertThat(last.getMessage()).contains("(it used 1000)");
  }

  /**
   * A held tenant's status says why it is held when the reason changes, not at every count of it: while
   * the cut waits for the refresh, the periods left fall (status keeps the first wording), and once it is
   * in force the message says the next period measures it.
   */
  @Test
  void aHeldTenantsMessageFollowsItsReasonNotItsCounts() {
    RefreshCluster hb = new RefreshCluster();
    TenantLimits slow = hb.operator();
    List<Tenant> both = new ArrayList<>(dashAndBatch());
    List<String> messages = new ArrayList<>();
    List<Decision.Report> shed = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Decision d = hb.step(slow, both, i);
      messages.add(d.qos().getMessage());
      shed.add(condition(d, Conditions.SHED));
      // status as the reconcile writes it, read back at the next step
      both.set(1, new Tenant("ns/batch", "uid-batch", "ns/hb", both.get(1).spec(), statusWith(d)));
      peers.set(1, both.get(1));
    }
    assertThat(messages.get(1)).contains("2 more periods pass before one measures them");
    assertThat(messages.get(2)).as("a count fell (1 more period): status keeps the words").isEqualTo(messages.get(1));
    assertThat(messages.get(3)).as("the reason changed").contains("the next one measures them");
    assertThat(shed.get(3).message()).isEqualTo(messages.get(3));
  }

  /**
   * The operator restarts in the period after a cut, on a cluster that enforces a write only at its
   * refresh (60 s, two 30 s periods): the restarted loop knows from status when the limit was written,
   * and judges no period measured before it is in force, as the loop that wrote it would not (same
   * periods, cut again at the same step). Without the time in status, it cuts again on the first period
   * it reads, under the limit before the cut.
   */
  @Test
  void anOperatorRestartedWhileACutWaitsForTheRefreshWaitsOutTheRestOfTheWait() {
    List<Long> with = afterARestart(true);
    assertThat(with.subList(0, 4)).as("held until the cut is in force").containsOnly(with.get(0));
    assertThat(with.get(4)).as("then cut again").isLessThan(with.get(0));
    List<Long> without = afterARestart(false);
    assertThat(without.get(2)).as("without the time, the first period read is judged: cut again under the old limit")
        .isLessThan(without.get(0));
  }

  /** Batch's limit at each 30 s step: cut by one operator at the first, then by one started at the second. */
  private List<Long> afterARestart(boolean timeInStatus) {
    peers.clear();
    RefreshCluster hb = new RefreshCluster();
    List<Tenant> both = new ArrayList<>(dashAndBatch());
    Decision cut = hb.step(hb.operator(), both, 0);
    List<Long> limits = new ArrayList<>(List.of(cut.qos().getLimit()));
    assertThat(cut.qos().getLimitSince()).isEqualTo(T0.toString());
    // the restarted operator reads batch's status as the first one wrote it
    TenantQuotaStatus st = statusWith(cut);
    if (!timeInStatus) {
      st.getQos().setLimitSince(null);
    }
    both.set(1, new Tenant("ns/batch", "uid-batch", "ns/hb", both.get(1).spec(), st));
    peers.set(1, both.get(1));
    TenantLimits restarted = hb.operator();
    for (int i = 1; i < 5; i++) {
      if (i == 3) {
        hb.enforced = limits.get(0); // the refresh enforces the cut from the fourth step on
      }
      Decision d = hb.step(restarted, both, i);
      limits.add(d.qos().getLimit());
      if (d.qos().getLimit().equals(limits.get(0))) {
        assertThat(d.qos().getLimitSince()).as("kept while the limit is").isEqualTo(T0.toString());
      }
    }
    return limits;
  }

  /**
   * A cluster like HBase 2.6.2: it counts no refused requests per user, and enforces a written quota
   * only up to 20 s after the write (at its refresh). A calibrated tenant held at its limit (it does
   * 95% of it, far below its target) is never said to ask for less: its refused share is unknown, not
   * none, so the loop raises the limit; and after each raise it measures only once those 20 s passed.
   */
  @Test
  void onAClusterThatCountsNoRefusalsAHeldTenantIsRaisedNotSaidToAskForLess() {
    java.time.Duration refresh = java.time.Duration.ofSeconds(20);
    TenantLimits old = new TenantLimits(new CalibrationLoops(), new ProtectionLoops(), new TenantLimits.Peers() {
      @Override
      public List<Tenant> qosTenants(String clusterKey) {
        return List.of();
      }

      @Override
      public java.time.Duration quotaInForce(String clusterKey) {
        return refresh;
      }

      @Override
      public boolean countsRefusals(String clusterKey) {
        return false;
      }
    });
    TenantQuotaSpec s = calibratedReads("cal", 3000);
    SubjectQuota desired = declared("cal", ThrottleKind.READ_NUMBER, 1000);
    // the tenant does 95% of the limit in force; HBase records no refusal (it has no such counter)
    double[] counted = {0};
    double[] limit = {1000};
    Instant[] last = {T0};
    Instant[] clock = {T0};
    ClusterMetrics servers = new Unused() {
      @Override
      public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) {
        Instant at = clock[0];
        counted[0] += 0.95 * limit[0] * java.time.Duration.between(last[0], at).toMillis() / 1000.0;
        last[0] = at;
        return new CounterReading(at, Map.of("rs1", new ServerCounters(Math.round(counted[0]), 0, 0,
            Math.round(counted[0]))), true);
      }
    };
    TenantQuotaStatus status = null;
    Instant t = T0;
    List<String> states = new ArrayList<>();
    Instant raisedAt = null;
    Instant nextAfterRaise = null;
    for (int i = 0; i < 12; i++) {
      clock[0] = t;
      Decision d = old.decide(new Tenant("ns/cal", "uid-cal", "ns/hb", s, status), desired, servers, t);
      status = statusWith(d);
      states.add(d.calibration().getState());
      double now = d.quota().throttles().get(ThrottleKind.READ_NUMBER).perSecond();
      if (now > limit[0] && raisedAt == null) {
        raisedAt = t;
        nextAfterRaise = t.plus(d.lookAgain());
      }
      limit[0] = now;
      t = t.plus(d.lookAgain());
    }
    assertThat(states).as("its refused share is unknown: never DemandLimited").doesNotContain("DemandLimited");
    assertThat(limit[0]).as("the limit was raised toward the target").isGreaterThan(1500);
    assertThat(raisedAt).isNotNull();
    assertThat(java.time.Duration.between(raisedAt, nextAfterRaise)).as("the next baseline waits the refresh out")
        .isGreaterThanOrEqualTo(refresh.plus(CalibrationLoops.IN_FORCE));
  }

  @Test
  void readingsOfOnePeriodAreSharedByEveryTenantOfTheCluster() {
    List<Tenant> both = dashAndBatch();
    Tenant dash = both.get(0);
    Tenant batch = both.get(1);
    int[] reads = new int[1];
    ClusterMetrics counting = servedBy(() -> {
      reads[0]++;
      return new UsersMetrics(Map.of("rs1", Map.of()));
    });
    limits.decide(dash, SubjectQuota.empty(Subject.user("dash")), counting, T0);
    limits.decide(batch, SubjectQuota.empty(Subject.user("batch")), counting, T0.plusSeconds(1));
    assertThat(reads[0]).as("one read of the RegionServers per period, whichever tenant asks").isEqualTo(1);
    limits.decide(batch, SubjectQuota.empty(Subject.user("batch")), counting, T0.plusSeconds(31));
    assertThat(reads[0]).isEqualTo(2);
  }
}
