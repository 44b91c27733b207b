package io.hbaseqos.operator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbaseqos.operator.quota.Durations;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.quota.InvalidSpecException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DesiredQuotasTest {

  static TenantQuotaSpec spec(QuotaSubject s, ThrottleSpec... t) {
    TenantQuotaSpec spec = new TenantQuotaSpec();
    spec.setClusterRef(new ClusterRef("prod"));
    spec.setSubject(s);
    spec.setThrottles(new ArrayList<>(List.of(t)));
    return spec;
  }

  @Test
  void mapsShellAndStructuredThrottles() throws Exception {
    ThrottleSpec structured = new ThrottleSpec();
    structured.setType(ThrottleKind.READ_SIZE);
    structured.setValue(10L);
    structured.setSizeUnit(ThrottleSpec.SizeUnit.M);
    structured.setTimeUnit(ThrottleSpec.TimeUnitName.min);
    structured.setScope(TenantQuotaSpec.Scope.CLUSTER);
    SubjectQuota q = DesiredQuotas.from(spec(new QuotaSubject("alice", null, "t1"),
        ThrottleSpec.shell(ThrottleKind.REQUEST_NUMBER, "2500req/sec"), structured));
    assertThat(q.subject()).isEqualTo(new Subject("alice", null, "default:t1"));
    assertThat(q.throttles().get(ThrottleKind.REQUEST_NUMBER))
        .isEqualTo(new Limit(2500, TimeUnit.SECONDS, Limit.Scope.MACHINE));
    assertThat(q.throttles().get(ThrottleKind.READ_SIZE))
        .isEqualTo(new Limit(10L << 20, TimeUnit.MINUTES, Limit.Scope.CLUSTER));
    assertThat(q.bypassGlobals()).isFalse();
  }

  @Test
  void specScopeIsTheDefaultForEveryThrottle() throws Exception {
    TenantQuotaSpec s = spec(new QuotaSubject(null, "ns", null), ThrottleSpec.shell(ThrottleKind.WRITE_NUMBER, "5req/sec"));
    s.setScope(TenantQuotaSpec.Scope.CLUSTER);
    assertThat(DesiredQuotas.from(s).throttles().get(ThrottleKind.WRITE_NUMBER).scope()).isEqualTo(Limit.Scope.CLUSTER);
  }

  @Test
  void reportsEveryProblemWithItsField() {
    ThrottleSpec both = ThrottleSpec.shell(ThrottleKind.READ_NUMBER, "5req/sec");
    both.setValue(5L);
    ThrottleSpec none = new ThrottleSpec();
    none.setType(ThrottleKind.WRITE_NUMBER);
    ThrottleSpec noType = new ThrottleSpec();
    noType.setLimit("1req/sec");
    TenantQuotaSpec s = spec(new QuotaSubject(null, "bad-ns", null),
        ThrottleSpec.shell(ThrottleKind.REQUEST_NUMBER, "-1req/sec"),
        ThrottleSpec.shell(ThrottleKind.REQUEST_SIZE, "10req/sec"),
        both, none, noType,
        ThrottleSpec.shell(ThrottleKind.REQUEST_NUMBER, "5req/sec"));
    assertThatThrownBy(() -> DesiredQuotas.from(s)).isInstanceOfSatisfying(DesiredQuotas.Invalid.class, e ->
        assertThat(e.errors()).extracting(InvalidSpecException::field).containsExactlyInAnyOrder(
            "spec.subject.namespace", "spec.throttles[0].limit", "spec.throttles[1].limit", "spec.throttles[2]",
            "spec.throttles[3]", "spec.throttles[4].type", "spec.throttles[5].type"));
  }

  @Test
  void aDryRunOfALoopIsRefusedNamingTheField() {
    TenantQuotaSpec s = spec(new QuotaSubject("u", null, null), ThrottleSpec.shell(ThrottleKind.READ_NUMBER, "5req/sec"));
    s.setEnforcement(TenantQuotaSpec.Enforcement.DryRun);
    assertThat(s.dryRun()).isTrue();
    s.setCalibration(new CalibrationSpec());
    s.getCalibration().setTargetOpsPerSecond(10L);
    assertThatThrownBy(() -> DesiredQuotas.from(s)).hasMessageContaining("spec.enforcement: DryRun cannot be combined "
        + "with calibration: their loops act by writing limits to HBase");
  }

  @Test
  void duplicateTypesAreRejected() {
    TenantQuotaSpec s = spec(new QuotaSubject("u", null, null),
        ThrottleSpec.shell(ThrottleKind.REQUEST_NUMBER, "5req/sec"),
        ThrottleSpec.shell(ThrottleKind.REQUEST_NUMBER, "6req/sec"));
    assertThatThrownBy(() -> DesiredQuotas.from(s)).hasMessageContaining("appears more than once");
  }

  @Test
  void bypassGlobalsOnlyForUsers() throws Exception {
    TenantQuotaSpec s = spec(new QuotaSubject("u", null, "t"));
    s.setBypassGlobals(true);
    assertThatThrownBy(() -> DesiredQuotas.from(s)).hasMessageContaining("spec.bypassGlobals");
    TenantQuotaSpec ok = spec(new QuotaSubject("u", null, null));
    ok.setBypassGlobals(true);
    assertThat(DesiredQuotas.from(ok).bypassGlobals()).isTrue();
  }

  @Test
  void namespaceLimitsAreANamespaceSubjectsAndAtLeastOne() throws Exception {
    TenantQuotaSpec onTable = spec(new QuotaSubject(null, null, "ns:t"));
    onTable.setNamespaceLimits(new NamespaceLimitsSpec(5L, null));
    assertThatThrownBy(() -> DesiredQuotas.from(onTable)).hasMessageContaining("spec.namespaceLimits")
        .hasMessageContaining("namespace subject");
    TenantQuotaSpec zero = spec(new QuotaSubject(null, "ns", null));
    zero.setNamespaceLimits(new NamespaceLimitsSpec(0L, -2L));
    assertThatThrownBy(() -> DesiredQuotas.from(zero)).hasMessageContaining("spec.namespaceLimits.maxTables: must be at least 1")
        .hasMessageContaining("spec.namespaceLimits.maxRegions: must be at least 1");
    TenantQuotaSpec empty = spec(new QuotaSubject(null, "ns", null));
    empty.setNamespaceLimits(new NamespaceLimitsSpec(null, null));
    // {} would otherwise take back limits an admin set: refused, not read as "no limits"
    assertThatThrownBy(() -> DesiredQuotas.from(empty))
        .hasMessageContaining("spec.namespaceLimits: must set maxTables, maxRegions or both");
    TenantQuotaSpec ok = spec(new QuotaSubject(null, "ns", null));
    ok.setNamespaceLimits(new NamespaceLimitsSpec(5L, null));
    assertThat(DesiredQuotas.from(ok).throttles()).isEmpty(); // namespace limits alone are a whole declaration
    assertThat(DesiredQuotas.namespaceLimits(ok)).isEqualTo(new io.hbaseqos.operator.quota.NamespaceLimits(5L, null));
    assertThat(DesiredQuotas.namespaceLimits(spec(new QuotaSubject(null, "ns", null)))).isNull();
  }

  @Test
  void emptyAndMissingPartsAreRejected() {
    assertThatThrownBy(() -> DesiredQuotas.from(spec(new QuotaSubject("u", null, null))))
        .hasMessageContaining("at least one throttle");
    assertThatThrownBy(() -> DesiredQuotas.from(spec(new QuotaSubject(null, null, null),
        ThrottleSpec.shell(ThrottleKind.REQUEST_NUMBER, "5req/sec")))).hasMessageContaining("names no user");
    TenantQuotaSpec noCluster = spec(new QuotaSubject("u", null, null), ThrottleSpec.shell(ThrottleKind.REQUEST_NUMBER, "5req/sec"));
    noCluster.setClusterRef(null);
    assertThatThrownBy(() -> DesiredQuotas.from(noCluster)).hasMessageContaining("spec.clusterRef.name");
    assertThatThrownBy(() -> DesiredQuotas.from(null)).hasMessageContaining("spec");
  }

  @Test
  void meanObjectivesAreCheckedLikePercentilesAndHBaseBoundsAreWholeMilliseconds() {
    TenantQuotaSpec t = spec(new QuotaSubject("u", null, null));
    QosSpec q = new QosSpec();
    q.setPriority(5);
    QosSpec.LatencyObjectiveSpec mean = objective(QosSpec.LatencyObjectiveSpec.Statistic.Mean, 99.0, 5.0);
    QosSpec.LatencyObjectiveSpec mean50 = objective(QosSpec.LatencyObjectiveSpec.Statistic.Mean, 50.0, 7.0);
    QosSpec.LatencyObjectiveSpec outOfRange = objective(QosSpec.LatencyObjectiveSpec.Statistic.Mean, -1.0, 9.0);
    outOfRange.setOperations(QosSpec.LatencyObjectiveSpec.Operations.writes);
    QosSpec.LatencyObjectiveSpec tiny = objective(QosSpec.LatencyObjectiveSpec.Statistic.Percentile, 99.9, 0.5);
    q.setLatencyObjectives(List.of(mean, mean50, outOfRange, tiny));
    t.setQos(q);
    assertThat(DesiredQuotas.qosErrors(t, Subject.user("u")).stream().map(Throwable::getMessage))
        .containsExactly(
            "spec.qos.latencyObjectives[1]: repeats latencyObjectives[0] (reads mean <= 7ms): each objective may appear only once",
            "spec.qos.latencyObjectives[2].percentile: must be above 0 and at most 100",
            "spec.qos.latencyObjectives[3].boundMillis: must be at least 1 ms for source HBase: its latency histograms count whole milliseconds");
    tiny.setSource(QosSpec.LatencyObjectiveSpec.Source.Prometheus);
    tiny.setPrometheus(new PrometheusQuery());
    q.setLatencyObjectives(List.of(mean, tiny, objective(QosSpec.LatencyObjectiveSpec.Statistic.Percentile, 99.0, 3.0)));
    assertThat(DesiredQuotas.qosErrors(t, Subject.user("u"))).isEmpty();
  }

  @Test
  void callQueueObjectivesJudgeEveryCallsMeanWaitOnAnySubject() {
    TenantQuotaSpec t = spec(new QuotaSubject(null, "ns1:t", null));
    QosSpec q = new QosSpec();
    q.setPriority(5);
    QosSpec.LatencyObjectiveSpec queue = objective(QosSpec.LatencyObjectiveSpec.Statistic.Mean, 99.0, 0.5);
    queue.setSource(QosSpec.LatencyObjectiveSpec.Source.CallQueue);
    queue.setOperations(QosSpec.LatencyObjectiveSpec.Operations.all);
    q.setLatencyObjectives(List.of(queue));
    t.setQos(q);
    assertThat(DesiredQuotas.qosErrors(t, Subject.table("ns1:t"))).as("a table, under a millisecond").isEmpty();
    assertThat(queue.describe()).isEqualTo("call queue wait mean <= 0.5ms");
    queue.setOperations(QosSpec.LatencyObjectiveSpec.Operations.reads);
    queue.setStatistic(QosSpec.LatencyObjectiveSpec.Statistic.Percentile);
    QosSpec.LatencyObjectiveSpec all = objective(QosSpec.LatencyObjectiveSpec.Statistic.Mean, 99.0, 5.0);
    all.setOperations(QosSpec.LatencyObjectiveSpec.Operations.all);
    all.setSource(QosSpec.LatencyObjectiveSpec.Source.Prometheus);
    all.setPrometheus(new PrometheusQuery());
    q.setLatencyObjectives(List.of(queue, all));
    assertThat(DesiredQuotas.qosErrors(t, Subject.table("ns1:t")).stream().map(Throwable::getMessage))
        .containsExactly("spec.qos.latencyObjectives[0].source: CallQueue judges the mean wait of every call in the "
            + "RegionServers' call queues: it needs operations all and statistic Mean",
            "spec.qos.latencyObjectives[1].operations: all is for source CallQueue only: HBase and Prometheus "
                + "objectives judge reads or writes");
  }

  private static QosSpec.LatencyObjectiveSpec objective(QosSpec.LatencyObjectiveSpec.Statistic statistic,
      double percentile, double bound) {
    QosSpec.LatencyObjectiveSpec o = new QosSpec.LatencyObjectiveSpec();
    o.setStatistic(statistic);
    o.setPercentile(percentile);
    o.setBoundMillis(bound);
    return o;
  }

  @Test
  void durations() {
    assertThat(Durations.parse("30s", null).toSeconds()).isEqualTo(30);
    assertThat(Durations.parse("1m30s", null).toSeconds()).isEqualTo(90);
    assertThat(Durations.parse("500ms", null).toMillis()).isEqualTo(500);
    assertThat(Durations.parse("2h", null).toMinutes()).isEqualTo(120);
    assertThat(Durations.parse(null, java.time.Duration.ofSeconds(7)).toSeconds()).isEqualTo(7);
    assertThatThrownBy(() -> Durations.parse("30", null)).hasMessageContaining("not a duration");
    assertThatThrownBy(() -> Durations.parse("1d", null)).hasMessageContaining("not a duration");
  }

  /**
   * A calibration the schema would refuse (a resource stored before the schema had these rules):
   * the operator names every bad field and nothing is derived from it.
   */
  @Test
  void badCalibrationsNameTheirFields() {
    io.hbaseqos.operator.api.CalibrationSpec c = new io.hbaseqos.operator.api.CalibrationSpec();
    c.setTargetOpsPerSecond(0L);
    c.setMinLimit(500L);
    c.setMaxLimit(100L);
    c.setMaxStep(1.0);
    c.setTolerancePercent(60.0);
    c.setPeriod("5s");
    TenantQuotaSpec s = spec(new QuotaSubject(null, null, "t1"));
    s.setCalibration(c);
    assertThatThrownBy(() -> DesiredQuotas.from(s)).isInstanceOf(DesiredQuotas.Invalid.class)
        .hasMessageContaining("spec.calibration.targetOpsPerSecond: must be between 1 and 1000000000")
        .hasMessageContaining("spec.calibration.minLimit: must be at least 1 and not above maxLimit")
        .hasMessageContaining("spec.calibration.maxStep: must be between 1.05 and 100")
        .hasMessageContaining("spec.calibration.tolerancePercent: must be between 0.5 and 25")
        .hasMessageContaining("spec.calibration.period: must be at least 10s")
        .hasMessageContaining("spec.calibration.source: HBase metrics count operations per user");

    c.setTargetOpsPerSecond(100L);
    c.setMinLimit(1L);
    c.setMaxLimit(1000L);
    c.setMaxStep(4.0);
    c.setTolerancePercent(3.0);
    c.setPeriod("30");
    c.setSource(io.hbaseqos.operator.api.CalibrationSpec.Source.Prometheus);
    assertThatThrownBy(() -> DesiredQuotas.from(s)).isInstanceOf(DesiredQuotas.Invalid.class)
        .hasMessageContaining("spec.calibration.period: must look like 30s or 1m")
        .hasMessageContaining("spec.calibration.prometheus: source Prometheus needs a query");
  }

  @Test
  void aValidCalibrationNeedsNoThrottleOfItsOwn() throws Exception {
    io.hbaseqos.operator.api.CalibrationSpec c = new io.hbaseqos.operator.api.CalibrationSpec();
    c.setTargetOpsPerSecond(2000L);
    TenantQuotaSpec s = spec(new QuotaSubject("alice", null, null));
    s.setCalibration(c);
    assertThat(DesiredQuotas.from(s).throttles()).isEmpty();
  }

  @Test
  void aSpaceQuotaOnATableOrNamespaceIsPartOfTheDesiredSettings() throws Exception {
    TenantQuotaSpec onTable = spec(new QuotaSubject(null, null, "ns:t"));
    onTable.setSpace(new SpaceSpec("10G", io.hbaseqos.operator.quota.SpaceLimit.Policy.NO_INSERTS));
    SubjectQuota q = DesiredQuotas.from(onTable);
    assertThat(q.space()).isEqualTo(new io.hbaseqos.operator.quota.SpaceLimit(10L << 30,
        io.hbaseqos.operator.quota.SpaceLimit.Policy.NO_INSERTS));
    assertThat(q.throttles()).isEmpty();
    TenantQuotaSpec onNamespace = spec(new QuotaSubject(null, "ns", null),
        ThrottleSpec.shell(ThrottleKind.REQUEST_NUMBER, "5req/sec"));
    onNamespace.setSpace(new SpaceSpec("1M", io.hbaseqos.operator.quota.SpaceLimit.Policy.DISABLE));
    assertThat(DesiredQuotas.from(onNamespace).describe()).isEqualTo("REQUEST_NUMBER=5req/sec,SPACE=1M DISABLE");
  }

  @Test
  void aSpaceQuotaOnAUserOrWithoutAPolicyOrWithABadSizeIsRefusedWithEveryReason() {
    TenantQuotaSpec onUser = spec(new QuotaSubject("alice", null, null));
    onUser.setSpace(new SpaceSpec("10Gi", null));
    assertThatThrownBy(() -> DesiredQuotas.from(onUser)).isInstanceOf(DesiredQuotas.Invalid.class)
        .hasMessageContaining("spec.space: applies to a table or a namespace")
        .hasMessageContaining("spec.space.policy: is required")
        .hasMessageContaining("spec.space.limit: '10Gi' has an unknown unit");
  }

  @Test
  void quotaSettingsBecomeHBaseKeysInKeyOrder() throws Exception {
    QuotaSettingsSpec q = new QuotaSettingsSpec();
    assertThat(DesiredQuotas.runtimeSettings(q)).isEmpty();
    RateLimiterSpec rl = new RateLimiterSpec();
    rl.setType(RateLimiterSpec.Type.FixedInterval);
    rl.setRefillInterval("100ms");
    q.setRateLimiter(rl);
    ThrottleSpec bytes = new ThrottleSpec();
    bytes.setType(ThrottleKind.WRITE_SIZE);
    bytes.setValue(2L);
    bytes.setSizeUnit(ThrottleSpec.SizeUnit.M);
    q.setDefaultUserQuotas(List.of(ThrottleSpec.shell(ThrottleKind.READ_NUMBER, "50req/sec"), bytes));
    q.setUserOverrideKey("quota.user");
    q.setReadAccounting(QuotaSettingsSpec.ReadAccounting.ResultSize);
    CapacityUnitSizeSpec cu = new CapacityUnitSizeSpec();
    cu.setRead(4096L);
    q.setCapacityUnitSize(cu);
    java.util.Map<String, String> byKey = new java.util.LinkedHashMap<>();
    DesiredQuotas.runtimeSettings(q).forEach(r -> byKey.put(r.key().key(), r.value()));
    java.util.Map<String, String> expected = new java.util.LinkedHashMap<>();
    expected.put("hbase.quota.default.user.machine.atomic.read.size", null);
    expected.put("hbase.quota.default.user.machine.atomic.request.num", null);
    expected.put("hbase.quota.default.user.machine.atomic.write.size", null);
    expected.put("hbase.quota.default.user.machine.read.num", "50");
    expected.put("hbase.quota.default.user.machine.read.size", null);
    expected.put("hbase.quota.default.user.machine.request.handler.usage.ms", null);
    expected.put("hbase.quota.default.user.machine.request.num", null);
    expected.put("hbase.quota.default.user.machine.request.size", null);
    expected.put("hbase.quota.default.user.machine.write.num", null);
    expected.put("hbase.quota.default.user.machine.write.size", "2097152");
    expected.put("hbase.quota.rate.limiter", "org.apache.hadoop.hbase.quotas.FixedIntervalRateLimiter");
    expected.put("hbase.quota.rate.limiter.refill.interval.ms", "100");
    expected.put("hbase.quota.read.capacity.unit", "4096");
    expected.put("hbase.quota.use.result.size.bytes", "true");
    expected.put("hbase.quota.user.override.key", "quota.user");
    assertThat(byKey).containsExactlyEntriesOf(expected);

    q.setDefaultUserQuotas(null);
    q.setReadAccounting(QuotaSettingsSpec.ReadAccounting.BlockBytesScanned);
    rl.setType(RateLimiterSpec.Type.AverageInterval);
    rl.setRefillInterval(null);
    assertThat(DesiredQuotas.runtimeSettings(q)).extracting(r -> r.key().key() + "=" + r.value()).containsExactly(
        "hbase.quota.rate.limiter=org.apache.hadoop.hbase.quotas.AverageIntervalRateLimiter",
        "hbase.quota.read.capacity.unit=4096", "hbase.quota.use.result.size.bytes=false",
        "hbase.quota.user.override.key=quota.user");
  }

  @Test
  void quotaSettingsTheSchemaRefusesAreRefusedHereToo() {
    QuotaSettingsSpec q = new QuotaSettingsSpec();
    RateLimiterSpec rl = new RateLimiterSpec();
    rl.setType(RateLimiterSpec.Type.AverageInterval);
    rl.setRefillInterval("100ms");
    q.setRateLimiter(rl);
    ThrottleSpec perMinute = ThrottleSpec.shell(ThrottleKind.WRITE_NUMBER, "10req/min");
    q.setDefaultUserQuotas(List.of(ThrottleSpec.shell(ThrottleKind.READ_CAPACITY_UNIT, "10CU/sec"), perMinute,
        ThrottleSpec.shell(ThrottleKind.READ_SIZE, "2G/sec")));
    q.setUserOverrideKey(" ");
    CapacityUnitSizeSpec cu = new CapacityUnitSizeSpec();
    cu.setWrite(0L);
    q.setCapacityUnitSize(cu);
    assertThatThrownBy(() -> DesiredQuotas.runtimeSettings(q)).isInstanceOf(DesiredQuotas.Invalid.class)
        .hasMessageContaining("spec.quotas.rateLimiter.refillInterval: applies to the FixedInterval limiter only")
        .hasMessageContaining("HBase has no default user quota for READ_CAPACITY_UNIT")
        .hasMessageContaining("WRITE_NUMBER: default user quotas are per second")
        .hasMessageContaining("READ_SIZE: a default user quota is read by HBase as an int")
        .hasMessageContaining("spec.quotas.userOverrideKey: must not be empty")
        .hasMessageContaining("spec.quotas.capacityUnitSize.write: must be at least 1 byte");
    rl.setType(RateLimiterSpec.Type.FixedInterval);
    rl.setRefillInterval("2s");
    q.setDefaultUserQuotas(null);
    q.setUserOverrideKey(null);
    q.setCapacityUnitSize(null);
    assertThatThrownBy(() -> DesiredQuotas.runtimeSettings(q))
        .hasMessageContaining("spec.quotas.rateLimiter.refillInterval: must be between 1ms and 1000ms");
  }

  @Test
  void spaceAndNamespaceLimitsAreNotSetOnSystemNamespaces() throws Exception {
    TenantQuotaSpec space = spec(new QuotaSubject(null, null, "backup:system"));
    SpaceSpec sp = new SpaceSpec();
    sp.setLimit("1Gi");
    sp.setPolicy(io.hbaseqos.operator.quota.SpaceLimit.Policy.NO_INSERTS);
    space.setSpace(sp);
    assertThatThrownBy(() -> DesiredQuotas.from(space))
        .hasMessageContaining("spec.space: is not set on HBase's system namespaces ('hbase', 'backup')");
    TenantQuotaSpec limits = spec(new QuotaSubject(null, "hbase", null));
    limits.setNamespaceLimits(new NamespaceLimitsSpec());
    assertThatThrownBy(() -> DesiredQuotas.from(limits)).hasMessageContaining("spec.namespaceLimits: is not set on");
    // throttles there are valid specs: whether HBase enforces them is a question of its version
    assertThat(DesiredQuotas.from(spec(new QuotaSubject(null, "hbase", null),
        ThrottleSpec.shell(ThrottleKind.REQUEST_NUMBER, "5req/sec"))).subject()).isEqualTo(Subject.namespace("hbase"));
  }
}
