package io.hbaseqos.operator.quota;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The throttle settings of one subject: desired (from a TenantQuota) or actual (read from
 * {@code hbase:quota}). Immutable.
 *
 * @param bypassStored for a user's own settings read from HBase: HBase stores {@code bypass_globals}
 *     in the cell, even as false. Such a cell is never deleted by removing throttles (HBase deletes
 *     a settings cell only when nothing, not even a false bypass, is left in it), so it can stay
 *     behind holding nothing: an <em>empty cell</em>. Always false for desired settings.
 */
public record SubjectQuota(Subject subject, Map<ThrottleKind, Limit> throttles, boolean bypassGlobals,
    boolean bypassStored) {

  public SubjectQuota {
    EnumMap<ThrottleKind, Limit> copy = new EnumMap<>(ThrottleKind.class);
    copy.putAll(throttles);
    throttles = Collections.unmodifiableMap(copy);
    bypassStored = bypassStored || bypassGlobals;
  }

  public SubjectQuota(Subject subject, Map<ThrottleKind, Limit> throttles, boolean bypassGlobals) {
    this(subject, throttles, bypassGlobals, bypassGlobals);
  }

  public static SubjectQuota empty(Subject subject) {
    return new SubjectQuota(subject, Map.of(), false, false);
  }

  /** An empty cell: HBase stores {@code bypass_globals=false} and nothing else for this user. */
  public static SubjectQuota emptyCell(Subject subject) {
    return new SubjectQuota(subject, Map.of(), false, true);
  }

  /** Nothing stored in HBase for this subject (no cell at all). */
  public boolean isEmpty() {
    return throttles.isEmpty() && !bypassStored;
  }

  /** Holds a setting that changes how HBase treats requests: a throttle or a bypass. */
  public boolean hasSettings() {
    return !throttles.isEmpty() || bypassGlobals;
  }

  /** A cell that exists but holds no setting (see {@link #bypassStored}). */
  public boolean isEmptyCell() {
    return bypassStored && !hasSettings();
  }

  /** The same settings without the storage detail (what a TenantQuota would declare). */
  public SubjectQuota settingsOnly() {
    return bypassStored == bypassGlobals ? this : new SubjectQuota(subject, throttles, bypassGlobals, false);
  }

  public SubjectQuota with(ThrottleKind kind, Limit limit) {
    EnumMap<ThrottleKind, Limit> m = new EnumMap<>(ThrottleKind.class);
    m.putAll(throttles);
    if (limit == null) {
      m.remove(kind);
    } else {
      m.put(kind, limit);
    }
    return new SubjectQuota(subject, m, bypassGlobals, bypassStored);
  }

  /** Setting the bypass, even to false, stores it in the cell (HBase never clears the field again). */
  public SubjectQuota withBypass(boolean bypass) {
    return new SubjectQuota(subject, throttles, bypass, true);
  }

  /** Shell-like rendering, e.g. {@code REQUEST_NUMBER=2500req/sec,READ_SIZE=10M/sec}. */
  public String describe() {
    String s = throttles.entrySet().stream()
        .map(e -> e.getKey() + "=" + LimitSyntax.format(e.getKey(), e.getValue())
            + (e.getValue().scope() == Limit.Scope.CLUSTER ? "(cluster)" : ""))
        .collect(Collectors.joining(","));
    if (bypassGlobals) {
      s = s.isEmpty() ? "bypassGlobals" : s + ",bypassGlobals";
    }
    return s.isEmpty() ? "none" : s;
  }
}
