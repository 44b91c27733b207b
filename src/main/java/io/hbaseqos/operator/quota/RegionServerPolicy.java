package io.hbaseqos.operator.quota;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The cluster-wide throttle policy: RegionServer throttles (HBase's {@code REGIONSERVER => 'all'}
 * row, a ceiling on each server for all traffic), the exceed-throttle switch and the RPC throttle
 * switch. As desired, a null part is left alone; as read from HBase, every part is set.
 *
 * @param throttles RegionServer throttles by type (null: not managed)
 * @param exceedThrottle whether tenants may go past their own throttles while the RegionServer
 *     ceiling has room (null: not managed)
 * @param rpcThrottle whether HBase enforces throttles at all (null: not managed)
 * @param unreadable as read: cells of the policy's rows that are not settings (written outside HBase's quota
 *     API); their part reads as unset (no RegionServer throttles, exceed off). HBase's own calls fail on them,
 *     so a declared part is written only after its cell is cleared
 */
public record RegionServerPolicy(Map<ThrottleKind, Limit> throttles, Boolean exceedThrottle, Boolean rpcThrottle,
    List<UnreadableCell> unreadable) {

  /** The row of the RegionServer throttles ({@code REGIONSERVER => 'all'}). */
  public static final String REGION_SERVER_ROW = "r.all";
  /** The row of the exceed-throttle switch. */
  public static final String EXCEED_ROW = "exceedThrottleQuota";

  public RegionServerPolicy(Map<ThrottleKind, Limit> throttles, Boolean exceedThrottle, Boolean rpcThrottle) {
    this(throttles, exceedThrottle, rpcThrottle, List.of());
  }

  /** Types that make the RegionServer quota count reads, as HBase checks before enabling exceed. */
  public static final Set<ThrottleKind> READS = EnumSet.of(ThrottleKind.REQUEST_NUMBER, ThrottleKind.REQUEST_SIZE,
      ThrottleKind.REQUEST_CAPACITY_UNIT, ThrottleKind.READ_NUMBER, ThrottleKind.READ_SIZE,
      ThrottleKind.READ_CAPACITY_UNIT);
  /** Types that make the RegionServer quota count writes. */
  public static final Set<ThrottleKind> WRITES = EnumSet.of(ThrottleKind.REQUEST_NUMBER, ThrottleKind.REQUEST_SIZE,
      ThrottleKind.REQUEST_CAPACITY_UNIT, ThrottleKind.WRITE_NUMBER, ThrottleKind.WRITE_SIZE,
      ThrottleKind.WRITE_CAPACITY_UNIT);

  public RegionServerPolicy {
    unreadable = unreadable == null ? List.of() : List.copyOf(unreadable);
    if (throttles != null) { // in type order, so that plans are the same from run to run
      Map<ThrottleKind, Limit> ordered = new EnumMap<>(ThrottleKind.class);
      ordered.putAll(throttles);
      throttles = java.util.Collections.unmodifiableMap(ordered);
    }
  }

  /**
   * Why HBase would refuse to enable exceed-throttle over {@code throttles}, in words; null when it
   * would not. HBase needs a RegionServer quota that counts reads, one that counts writes, and every
   * request, read and write throttle of it per second (ATOMIC_* and REQUEST_HANDLER_USAGE_MS do not
   * count and are not checked).
   */
  public static String exceedRefusal(Map<ThrottleKind, Limit> throttles) {
    Map<ThrottleKind, Limit> t = throttles == null ? Map.of() : throttles;
    if (t.keySet().stream().noneMatch(READS::contains)) {
      return "exceedThrottle needs a RegionServer throttle that counts reads (REQUEST_* or READ_*)";
    }
    if (t.keySet().stream().noneMatch(WRITES::contains)) {
      return "exceedThrottle needs a RegionServer throttle that counts writes (REQUEST_* or WRITE_*)";
    }
    for (var e : t.entrySet()) {
      if ((READS.contains(e.getKey()) || WRITES.contains(e.getKey())) && e.getValue().timeUnit() != TimeUnit.SECONDS) {
        return "exceedThrottle needs every request, read and write RegionServer throttle per second; "
            + e.getKey() + " is per " + e.getValue().timeUnit().name().toLowerCase(java.util.Locale.ROOT);
      }
    }
    return null;
  }

  /** One change to the cluster-wide policy. */
  public sealed interface Op {
    record SetThrottle(ThrottleKind kind, Limit limit) implements Op {}

    record RemoveThrottle(ThrottleKind kind) implements Op {}

    record SwitchExceed(boolean enable) implements Op {}

    record SwitchRpcThrottle(boolean enable) implements Op {}

    /** Deletes a cell of the policy's rows that is not settings, while it holds exactly the bytes read. */
    record ClearUnreadable(UnreadableCell cell) implements Op {}
  }

  /** Whether {@code cell} is in {@code row} of the policy. */
  public static boolean in(UnreadableCell cell, String row) {
    return java.util.Arrays.equals(cell.row(), row.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /**
   * The changes that make {@code actual} hold {@code desired}, in an order HBase accepts at every
   * step: exceed-throttle is switched off before the RegionServer throttles change and on after
   * them (HBase checks its requirement on each throttle change while it is on), and a throttle type
   * is set before another one is removed. Empty when they agree.
   */
  public static List<Op> plan(RegionServerPolicy desired, RegionServerPolicy actual) {
    List<Op> ops = new ArrayList<>();
    // a declared part whose cell is not settings: the cell goes first (HBase's own write would parse it and fail);
    // an undeclared part's cell is left
    for (UnreadableCell c : actual.unreadable()) {
      if ((in(c, REGION_SERVER_ROW) && desired.throttles() != null) || (in(c, EXCEED_ROW)
          && desired.exceedThrottle() != null)) {
        ops.add(new Op.ClearUnreadable(c));
      }
    }
    if (desired.rpcThrottle() != null && !desired.rpcThrottle().equals(actual.rpcThrottle())) {
      ops.add(new Op.SwitchRpcThrottle(desired.rpcThrottle()));
    }
    boolean exceedOn = Boolean.TRUE.equals(actual.exceedThrottle());
    List<Op> throttleOps = new ArrayList<>();
    if (desired.throttles() != null) {
      Map<ThrottleKind, Limit> now = actual.throttles() == null ? Map.of() : actual.throttles();
      desired.throttles().forEach((k, l) -> {
        if (!l.equals(now.get(k))) {
          throttleOps.add(new Op.SetThrottle(k, l));
        }
      });
      now.keySet().stream().filter(k -> !desired.throttles().containsKey(k)).sorted()
          .forEach(k -> throttleOps.add(new Op.RemoveThrottle(k)));
    }
    boolean switchOff = exceedOn && (Boolean.FALSE.equals(desired.exceedThrottle())
        || (!throttleOps.isEmpty() && Boolean.TRUE.equals(desired.exceedThrottle())
            && exceedRefusal(desired.throttles()) == null && breaksOnTheWay(actual, throttleOps)));
    if (switchOff) {
      ops.add(new Op.SwitchExceed(false));
    }
    ops.addAll(throttleOps);
    if (Boolean.TRUE.equals(desired.exceedThrottle()) && (!exceedOn || switchOff)) {
      ops.add(new Op.SwitchExceed(true));
    }
    return ops;
  }

  /** Whether some intermediate set of throttles would fail HBase's exceed requirement. */
  private static boolean breaksOnTheWay(RegionServerPolicy actual, List<Op> throttleOps) {
    RegionServerPolicy p = actual;
    for (Op op : throttleOps) {
      p = p.after(op);
      if (exceedRefusal(p.throttles()) != null) {
        return true;
      }
    }
    return false;
  }

  /** The policy HBase holds after {@code op} (of an actual policy: every part set). */
  public RegionServerPolicy after(Op op) {
    Map<ThrottleKind, Limit> t = new EnumMap<>(ThrottleKind.class);
    if (throttles != null) {
      t.putAll(throttles);
    }
    if (op instanceof Op.SetThrottle s) {
      t.put(s.kind(), s.limit());
    } else if (op instanceof Op.RemoveThrottle r) {
      t.remove(r.kind());
    }
    return new RegionServerPolicy(t, op instanceof Op.SwitchExceed e ? Boolean.valueOf(e.enable()) : exceedThrottle,
        op instanceof Op.SwitchRpcThrottle r ? Boolean.valueOf(r.enable()) : rpcThrottle,
        op instanceof Op.ClearUnreadable c ? unreadable.stream().filter(u -> !u.equals(c.cell())).toList() : unreadable);
  }

  /** Whether {@code actual} holds every part of this (desired) policy. */
  public boolean heldBy(RegionServerPolicy actual) {
    return plan(this, actual).isEmpty();
  }

  /** For events: {@code READ_NUMBER=10000req/sec, exceedThrottle on, rpcThrottle on}. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    if (throttles != null) {
      parts.add(throttles.isEmpty() ? "no RegionServer throttles" : String.join(", ", throttles.entrySet().stream()
          .sorted(Map.Entry.comparingByKey()).map(e -> e.getKey() + "=" + LimitSyntax.format(e.getKey(), e.getValue()))
          .toList()));
    }
    if (exceedThrottle != null) {
      parts.add("exceedThrottle " + (exceedThrottle ? "on" : "off"));
    }
    if (rpcThrottle != null) {
      parts.add("rpcThrottle " + (rpcThrottle ? "on" : "off"));
    }
    return parts.isEmpty() ? "nothing declared" : String.join(", ", parts);
  }
}
