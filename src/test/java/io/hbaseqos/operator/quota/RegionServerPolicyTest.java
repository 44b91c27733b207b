package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.quota.RegionServerPolicy.Op;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RegionServerPolicyTest {
  static final Limit R = new Limit(1000, TimeUnit.SECONDS, Limit.Scope.MACHINE);
  static final Limit W = new Limit(500, TimeUnit.SECONDS, Limit.Scope.MACHINE);

  static RegionServerPolicy actual(Map<ThrottleKind, Limit> t, boolean exceed, boolean rpc) {
    return new RegionServerPolicy(t, exceed, rpc);
  }

  @Test
  void exceedNeedsReadsAndWritesAllPerSecond() {
    assertThat(RegionServerPolicy.exceedRefusal(Map.of())).contains("counts reads");
    assertThat(RegionServerPolicy.exceedRefusal(null)).contains("counts reads");
    assertThat(RegionServerPolicy.exceedRefusal(Map.of(ThrottleKind.READ_NUMBER, R))).contains("counts writes");
    assertThat(RegionServerPolicy.exceedRefusal(Map.of(ThrottleKind.WRITE_SIZE, W))).contains("counts reads");
    assertThat(RegionServerPolicy.exceedRefusal(Map.of(ThrottleKind.REQUEST_HANDLER_USAGE_MS, R,
        ThrottleKind.ATOMIC_REQUEST_NUMBER, R))).contains("counts reads");
    assertThat(RegionServerPolicy.exceedRefusal(Map.of(ThrottleKind.REQUEST_NUMBER, R))).isNull();
    assertThat(RegionServerPolicy.exceedRefusal(Map.of(ThrottleKind.READ_NUMBER, R, ThrottleKind.WRITE_NUMBER,
        new Limit(5, TimeUnit.MINUTES, Limit.Scope.MACHINE)))).contains("WRITE_NUMBER is per minutes");
    // types HBase does not check may be per minute
    assertThat(RegionServerPolicy.exceedRefusal(Map.of(ThrottleKind.REQUEST_NUMBER, R,
        ThrottleKind.REQUEST_HANDLER_USAGE_MS, new Limit(5, TimeUnit.MINUTES, Limit.Scope.MACHINE)))).isNull();
  }

  static UnreadableCell junk(String row) {
    byte[] v = "not a quota at all!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    return new UnreadableCell(row.getBytes(java.nio.charset.StandardCharsets.UTF_8), new byte[] {'s'}, "19 bytes", v);
  }

  @Test
  void aDeclaredPartWhoseCellIsNotSettingsIsClearedFirstAndAnUndeclaredOneIsLeft() {
    RegionServerPolicy read = new RegionServerPolicy(Map.of(), false, true, java.util.List.of(
        junk(RegionServerPolicy.REGION_SERVER_ROW), junk(RegionServerPolicy.EXCEED_ROW)));
    RegionServerPolicy throttlesOnly = new RegionServerPolicy(Map.of(ThrottleKind.READ_NUMBER, R), null, null);
    assertThat(RegionServerPolicy.plan(throttlesOnly, read)).containsExactly(
        new Op.ClearUnreadable(junk(RegionServerPolicy.REGION_SERVER_ROW)), new Op.SetThrottle(ThrottleKind.READ_NUMBER, R));
    RegionServerPolicy both = new RegionServerPolicy(Map.of(ThrottleKind.REQUEST_NUMBER, R), true, null);
    assertThat(RegionServerPolicy.plan(both, read)).containsExactly(
        new Op.ClearUnreadable(junk(RegionServerPolicy.REGION_SERVER_ROW)),
        new Op.ClearUnreadable(junk(RegionServerPolicy.EXCEED_ROW)),
        new Op.SetThrottle(ThrottleKind.REQUEST_NUMBER, R), new Op.SwitchExceed(true));
    RegionServerPolicy now = read;
    for (Op op : RegionServerPolicy.plan(throttlesOnly, read)) {
      now = now.after(op);
    }
    assertThat(throttlesOnly.heldBy(now)).isTrue();
    assertThat(now.unreadable()).as("the undeclared switch's cell is left").containsExactly(
        junk(RegionServerPolicy.EXCEED_ROW));
    // only the RPC switch declared: both cells are left, and nothing is to do
    assertThat(RegionServerPolicy.plan(new RegionServerPolicy(null, null, true), read)).as("neither part declared")
        .isEmpty();
  }

  @Test
  void nothingDeclaredOrEverythingHeldIsNoChange() {
    assertThat(RegionServerPolicy.plan(new RegionServerPolicy(null, null, null),
        actual(Map.of(ThrottleKind.READ_NUMBER, R), true, false))).isEmpty();
    RegionServerPolicy desired = new RegionServerPolicy(Map.of(ThrottleKind.READ_NUMBER, R, ThrottleKind.WRITE_NUMBER, W),
        true, true);
    assertThat(desired.heldBy(actual(Map.of(ThrottleKind.READ_NUMBER, R, ThrottleKind.WRITE_NUMBER, W), true, true)))
        .isTrue();
  }

  @Test
  void exceedIsSwitchedOnAfterTheThrottlesAndOffBeforeThem() {
    RegionServerPolicy on = new RegionServerPolicy(Map.of(ThrottleKind.READ_NUMBER, R, ThrottleKind.WRITE_NUMBER, W),
        true, null);
    List<Op> ops = RegionServerPolicy.plan(on, actual(Map.of(), false, true));
    assertThat(ops.subList(0, 2)).containsExactlyInAnyOrder(new Op.SetThrottle(ThrottleKind.READ_NUMBER, R),
        new Op.SetThrottle(ThrottleKind.WRITE_NUMBER, W));
    assertThat(ops).hasSize(3).last().isEqualTo(new Op.SwitchExceed(true));
    assertThat(RegionServerPolicy.plan(on, actual(Map.of(), false, true))).as("the same plan every time").isEqualTo(ops);
    RegionServerPolicy offAndNone = new RegionServerPolicy(Map.of(), false, null);
    assertThat(RegionServerPolicy.plan(offAndNone, actual(Map.of(ThrottleKind.READ_NUMBER, R,
        ThrottleKind.WRITE_NUMBER, W), true, true))).containsExactly(new Op.SwitchExceed(false),
        new Op.RemoveThrottle(ThrottleKind.WRITE_NUMBER), new Op.RemoveThrottle(ThrottleKind.READ_NUMBER));
  }

  @Test
  void aTypeChangeUnderExceedSetsBeforeItRemovesAndKeepsExceedOnWhenThatIsEnough() {
    RegionServerPolicy desired = new RegionServerPolicy(Map.of(ThrottleKind.READ_SIZE, R, ThrottleKind.WRITE_NUMBER, W),
        true, null);
    List<Op> ops = RegionServerPolicy.plan(desired, actual(Map.of(ThrottleKind.READ_NUMBER, R,
        ThrottleKind.WRITE_NUMBER, W), true, true));
    assertThat(ops).containsExactly(new Op.SetThrottle(ThrottleKind.READ_SIZE, R),
        new Op.RemoveThrottle(ThrottleKind.READ_NUMBER));
  }

  @Test
  void exceedGoesOffAndOnAroundChangesHBaseWouldRefuseWhileItIsOn() {
    // a per-minute REQUEST_SIZE was added outside: while exceed is on, HBase refuses any RegionServer
    // throttle change until it is gone, so exceed is switched off first and on again at the end
    Limit perMinute = new Limit(3, TimeUnit.MINUTES, Limit.Scope.MACHINE);
    Limit w2 = new Limit(700, TimeUnit.SECONDS, Limit.Scope.MACHINE);
    RegionServerPolicy desired = new RegionServerPolicy(Map.of(ThrottleKind.READ_NUMBER, R, ThrottleKind.WRITE_NUMBER,
        w2), true, null);
    List<Op> ops = RegionServerPolicy.plan(desired, actual(Map.of(ThrottleKind.READ_NUMBER, R, ThrottleKind.WRITE_NUMBER,
        W, ThrottleKind.REQUEST_SIZE, perMinute), true, true));
    assertThat(ops).containsExactly(new Op.SwitchExceed(false), new Op.SetThrottle(ThrottleKind.WRITE_NUMBER, w2),
        new Op.RemoveThrottle(ThrottleKind.REQUEST_SIZE), new Op.SwitchExceed(true));
    // only removing it is no such change: the requirement holds after the one step
    assertThat(RegionServerPolicy.plan(new RegionServerPolicy(Map.of(ThrottleKind.READ_NUMBER, R,
        ThrottleKind.WRITE_NUMBER, W), true, null), actual(Map.of(ThrottleKind.READ_NUMBER, R, ThrottleKind.WRITE_NUMBER,
        W, ThrottleKind.REQUEST_SIZE, perMinute), true, true)))
        .containsExactly(new Op.RemoveThrottle(ThrottleKind.REQUEST_SIZE));
  }

  @Test
  void theRpcSwitchIsDeclaredOrLeftAlone() {
    assertThat(RegionServerPolicy.plan(new RegionServerPolicy(null, null, false), actual(Map.of(), false, true)))
        .containsExactly(new Op.SwitchRpcThrottle(false));
    assertThat(RegionServerPolicy.plan(new RegionServerPolicy(null, null, true), actual(Map.of(), false, true))).isEmpty();
    assertThat(new RegionServerPolicy(Map.of(ThrottleKind.READ_NUMBER, R), true, false).describe())
        .isEqualTo("READ_NUMBER=1000req/sec, exceedThrottle on, rpcThrottle off");
    assertThat(new RegionServerPolicy(Map.of(), null, null).describe()).isEqualTo("no RegionServer throttles");
  }
}
