package io.hbaseqos.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.api.DryRunStatus;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DryRunPredictionTest {
  static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
  static final Subject ALICE = Subject.user("alice");

  static SubjectQuota plan(Object... kindsAndLimits) {
    SubjectQuota q = SubjectQuota.empty(ALICE);
    for (int i = 0; i < kindsAndLimits.length; i += 2) {
      q = q.with((ThrottleKind) kindsAndLimits[i], (Limit) kindsAndLimits[i + 1]);
    }
    return q;
  }

  static Limit perSecond(long n, Limit.Scope scope) {
    return new Limit(n, TimeUnit.SECONDS, scope);
  }

  /** Reads, writes and refused requests per second on each server, in the order given. */
  static Usage usage(double[]... servers) {
    Map<String, Usage.Server> m = new LinkedHashMap<>();
    double r = 0;
    double w = 0;
    for (int i = 0; i < servers.length; i++) {
      m.put("rs" + (i + 1), new Usage.Server(servers[i][0], servers[i][1], servers[i][2]));
      r += servers[i][0];
      w += servers[i][1];
    }
    return new Usage(r, w, 0, 1, servers.length, 10, null, null, m);
  }

  @Test
  void eachServerKeepsAMachineLimitOfWhatItIsSentAndRefusesTheRest() {
    // 90/10 over two servers: only the busy one is over a 500/s limit
    DryRunStatus s = DryRunPrediction.of(plan(ThrottleKind.READ_NUMBER, perSecond(500, Limit.Scope.MACHINE)),
        usage(new double[] {900, 0, 0}, new double[] {100, 0, 0}), true);
    assertThat(s.getMeasuredOpsPerSecond()).isEqualTo(1000);
    // its threads wait on rs1, which keeps 500 of 900: slowed down to 5/9 everywhere; up to 600 if rs2's go on
    assertThat(s.getPredictedOpsPerSecond()).isEqualTo(560);
    assertThat(s.getUpToOpsPerSecond()).isEqualTo(600);
    assertThat(s.getRejectedPercent()).isEqualTo(44.4);
    assertThat(s.getServers()).extracting(DryRunStatus.Server::getName).containsExactly("rs1", "rs2");
    assertThat(s.getServers().get(0).getRejectedPercent()).isCloseTo(44.4, org.assertj.core.data.Offset.offset(0.1));
    assertThat(s.getServers().get(1).getRejectedPercent()).isZero();
    assertThat(s.getMessage()).isEqualTo("under READ_NUMBER=500req/sec it would get about 560 ops/s of the 1k it did "
        + "in the last 10 s (up to 600 if its requests to each RegionServer do not wait on one another): HBase would "
        + "refuse about 44% of its requests (44% on rs1), or slow it down by as much where its client waits and "
        + "retries as HBase's does; nothing is written to HBase");
  }

  @Test
  void aClusterLimitIsSharedAmongTheServersAndWritesMeetOnlyWriteAndRequestLimits() {
    // CLUSTER 1000/s over two servers: 500 each; writes are not held by READ_NUMBER
    DryRunStatus s = DryRunPrediction.of(plan(ThrottleKind.REQUEST_NUMBER, perSecond(1000, Limit.Scope.CLUSTER)),
        usage(new double[] {300, 300, 0}, new double[] {100, 0, 0}), true);
    // rs1 keeps 500 of 600, rs2 all of its 100: a waiting client gets 5/6 of 700, an independent one 600
    assertThat(s.getPredictedOpsPerSecond()).isEqualTo(580);
    assertThat(s.getUpToOpsPerSecond()).isNull();
    assertThat(s.getServers().get(0).getLimitPerSecond()).isEqualTo(500);
    DryRunStatus reads = DryRunPrediction.of(plan(ThrottleKind.READ_NUMBER, perSecond(100, Limit.Scope.MACHINE)),
        usage(new double[] {300, 300, 0}), true);
    assertThat(reads.getPredictedOpsPerSecond()).isEqualTo(400);
    assertThat(reads.getRejectedPercent()).isCloseTo(33.3, org.assertj.core.data.Offset.offset(0.1));
  }

  @Test
  void underTheLimitNothingIsRefusedAndTheBusiestServerIsQuoted() {
    DryRunStatus s = DryRunPrediction.of(plan(ThrottleKind.REQUEST_NUMBER, perSecond(500, Limit.Scope.MACHINE)),
        usage(new double[] {180, 0, 0}), true);
    assertThat(s.getRejectedPercent()).isZero();
    assertThat(s.getPredictedOpsPerSecond()).isEqualTo(180);
    assertThat(s.getMessage()).contains("refuse none of its requests: its busiest RegionServer saw 180 req/s of the "
        + "500/s it would allow");
  }

  @Test
  void refusedRequestsCountAsDemandAndTheMessageSaysMoreIsNotSeen() {
    // served 100 reads/s, 100 refused/s: demand 200, a limit of 150 keeps 150
    DryRunStatus s = DryRunPrediction.of(plan(ThrottleKind.READ_NUMBER, perSecond(150, Limit.Scope.MACHINE)),
        usage(new double[] {100, 0, 100}), true);
    assertThat(s.getPredictedOpsPerSecond()).isEqualTo(150);
    assertThat(s.getRejectedPercent()).isEqualTo(25.0);
    assertThat(s.getMessage()).contains("HBase refuses 50% of its requests now").contains("not seen");
  }

  @Test
  void whatItCannotMeasureItSaysAndWithoutUsageItWaits() {
    DryRunStatus sizes = DryRunPrediction.of(plan(ThrottleKind.READ_SIZE, new Limit(1 << 20, TimeUnit.SECONDS,
        Limit.Scope.MACHINE)), usage(new double[] {100, 0, 0}), true);
    assertThat(sizes.getMessage()).startsWith("nothing to predict").contains("not predicted: READ_SIZE");
    assertThat(sizes.getPredictedOpsPerSecond()).isEqualTo(100);
    DryRunStatus none = DryRunPrediction.of(plan(ThrottleKind.READ_NUMBER, perSecond(1, Limit.Scope.MACHINE)), null,
        true);
    assertThat(none.getMessage()).startsWith("no prediction yet");
    assertThat(none.getPredictedOpsPerSecond()).isNull();
    assertThat(none.getPlan()).isEqualTo("READ_NUMBER=1req/sec");
    assertThat(DryRunPrediction.of(plan(ThrottleKind.READ_NUMBER, perSecond(1, Limit.Scope.MACHINE)), null, false)
        .getMessage()).startsWith("no prediction: HBase does not count");
  }

  @Test
  void aRegionServerCeilingIsHeldAgainstAllUsersTogether() {
    Usage all = usage(new double[] {900, 100, 0}, new double[] {300, 0, 0});
    DryRunStatus s = DryRunPrediction.nextForAllUsers(java.util.Map.of(ThrottleKind.READ_NUMBER, perSecond(600,
        Limit.Scope.MACHINE)), "READ_NUMBER=600req/sec, exceedThrottle off", all, null, NOW);
    assertThat(s.getPlan()).isEqualTo("READ_NUMBER=600req/sec, exceedThrottle off");
    assertThat(s.getMessage()).startsWith("all users together: under READ_NUMBER=600req/sec");
    // rs1 keeps 600 of 900 reads and all 100 writes: 700 of 1000
    assertThat(s.getServers().get(0).getPredictedOpsPerSecond()).isEqualTo(700);
    assertThat(DryRunPrediction.nextForAllUsers(java.util.Map.of(ThrottleKind.READ_NUMBER, perSecond(600,
        Limit.Scope.MACHINE)), "READ_NUMBER=600req/sec, exceedThrottle off", all, s, NOW.plusSeconds(10)))
        .as("the same reading").isSameAs(s);
  }

  @Test
  void aPredictionThatReadsTheSameKeepsTheStatusAsItIs() {
    SubjectQuota p = plan(ThrottleKind.READ_NUMBER, perSecond(500, Limit.Scope.MACHINE));
    DryRunStatus first = DryRunPrediction.next(p, usage(new double[] {900, 0, 0}), true, null, NOW);
    assertThat(first.getObservedTime()).isEqualTo(NOW.toString());
    assertThat(DryRunPrediction.next(p, usage(new double[] {930, 0, 0}), true, first, NOW.plusSeconds(10)))
        .as("3% more requests: the same reading").isSameAs(first);
    DryRunStatus moved = DryRunPrediction.next(p, usage(new double[] {2000, 0, 0}), true, first, NOW.plusSeconds(20));
    assertThat(moved).isNotSameAs(first);
    assertThat(moved.getRejectedPercent()).isEqualTo(75.0);
    assertThat(DryRunPrediction.next(plan(ThrottleKind.READ_NUMBER, perSecond(400, Limit.Scope.MACHINE)),
        usage(new double[] {900, 0, 0}), true, first, NOW).getPlan()).as("another plan").isEqualTo(
            "READ_NUMBER=400req/sec");
  }

  static io.hbaseqos.operator.api.CalibrationStatus calibrated(long limit, double ops, double elasticity) {
    io.hbaseqos.operator.api.CalibrationStatus c = new io.hbaseqos.operator.api.CalibrationStatus();
    c.setThrottle("READ_NUMBER");
    c.setLimit(limit);
    c.setObservedOpsPerSecond(ops);
    c.setElasticity(elasticity);
    c.setState("Converged");
    return c;
  }

  @Test
  void whatCalibrationLearntScalesTheOpsItSawByTheLimitToThePowerOfItsElasticity() {
    DryRunStatus.Learnt l = DryRunPrediction.learnt(calibrated(1000, 2270, 0.9), Limit.Scope.MACHINE);
    DryRunStatus s = DryRunPrediction.next(plan(ThrottleKind.READ_NUMBER, perSecond(700, Limit.Scope.MACHINE)),
        usage(new double[] {1000, 0, 0}), true, null, l, NOW);
    assertThat(s.getLearnt()).isEqualTo(l);
    // 2270 x 0.7^0.9 = 1648, to two digits as status gives rates
    assertThat(s.getLearntOpsPerSecond()).isEqualTo(1600);
    assertThat(s.getMessage()).contains("; calibration learnt that under READ_NUMBER=1000req/sec it did 2.3k ops/s, "
        + "with an elasticity of 0.9: at the plan's 700/s that gives about 1.6k ops/s; nothing is written to HBase");
    // and it is kept with the dry run: the next reading carries it without being told again
    DryRunStatus later = DryRunPrediction.next(plan(ThrottleKind.READ_NUMBER, perSecond(700, Limit.Scope.MACHINE)),
        usage(new double[] {500, 0, 0}), true, s, NOW.plusSeconds(10));
    assertThat(later).isNotSameAs(s);
    assertThat(later.getLearnt()).isEqualTo(l);
    assertThat(later.getLearntOpsPerSecond()).isEqualTo(s.getLearntOpsPerSecond());
  }

  @Test
  void aTenantItsDemandHeldBackKeepsItsOpsAndALimitFarFromWhereItWasLearntIsNotGuessed() {
    DryRunStatus.Learnt demand = DryRunPrediction.learnt(calibrated(1000, 400, 0.0), Limit.Scope.MACHINE);
    DryRunStatus s = DryRunPrediction.next(plan(ThrottleKind.READ_NUMBER, perSecond(600, Limit.Scope.MACHINE)),
        null, true, null, demand, NOW);
    assertThat(s.getLearntOpsPerSecond()).as("elasticity 0: its demand, not its limit, set its ops").isEqualTo(400);
    assertThat(s.getMessage()).startsWith("no prediction yet").contains("that gives about 400 ops/s");

    DryRunStatus.Learnt l = DryRunPrediction.learnt(calibrated(1000, 2270, 1.0), Limit.Scope.MACHINE);
    DryRunStatus far = DryRunPrediction.next(plan(ThrottleKind.READ_NUMBER, perSecond(3000, Limit.Scope.MACHINE)),
        null, true, null, l, NOW);
    assertThat(far.getLearntOpsPerSecond()).isNull();
    assertThat(far.getMessage()).contains("the plan's 3k/s is too far from it to say");
    DryRunStatus cluster = DryRunPrediction.next(plan(ThrottleKind.READ_NUMBER, perSecond(1000, Limit.Scope.CLUSTER)),
        null, true, null, l, NOW);
    assertThat(cluster.getLearntOpsPerSecond()).isNull();
    assertThat(cluster.getMessage()).contains("the plan's READ_NUMBER limit is CLUSTER, not comparable");
    DryRunStatus other = DryRunPrediction.next(plan(ThrottleKind.WRITE_NUMBER, perSecond(1000, Limit.Scope.MACHINE)),
        null, true, null, l, NOW);
    assertThat(other.getMessage()).contains("the plan holds no READ_NUMBER limit to apply it to");
  }

  @Test
  void nothingLearntUntilTheLoopHasAnElasticityAndAStatusNotOfThisOperatorIsIgnored() {
    io.hbaseqos.operator.api.CalibrationStatus young = calibrated(1000, 2270, 1.0);
    young.setElasticity(null);
    assertThat(DryRunPrediction.learnt(young, Limit.Scope.MACHINE)).isNull();
    assertThat(DryRunPrediction.learnt(null, Limit.Scope.MACHINE)).isNull();
    io.hbaseqos.operator.api.CalibrationStatus moving = calibrated(1000, 2270, 1.0);
    moving.setState("Converging");
    assertThat(DryRunPrediction.learnt(moving, Limit.Scope.MACHINE)).as("its last step moved the limit: the ops "
        + "were measured under the one before").isNull();
    DryRunStatus.Learnt odd = new DryRunStatus.Learnt("NOT_A_THROTTLE", 1000L, "MACHINE", 10.0, 1.0);
    DryRunStatus s = DryRunPrediction.next(plan(ThrottleKind.READ_NUMBER, perSecond(700, Limit.Scope.MACHINE)),
        null, true, null, odd, NOW);
    assertThat(s.getLearnt()).isNull();
    assertThat(s.getLearntOpsPerSecond()).isNull();
  }
}
