package io.hbaseqos.operator.quota;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The settings of one subject: desired (from a TenantQuota) or actual (read from
 * {@code hbase:quota}): throttles, the user's bypass, and a space limit (tables and namespaces
 * only). Immutable.
 *
 * @param bypassStored for a user's own settings read from HBase: HBase stores {@code bypass_globals}
 *     in the cell, even as false. Such a cell is never deleted by removing throttles (HBase deletes
 *     a settings cell only when nothing, not even a false bypass, is left in it), so it can stay
 *     behind holding nothing: an <em>empty cell</em>. Always false for desired settings.
 * @param space the space limit, or null (HBase stores it in the same cell as the throttles)
 * @param unreadable for settings read from HBase: the subject's cell holds bytes that are not quota
 *     settings (then nothing else is known of it); null otherwise, always null for desired settings
 */
public record SubjectQuota(Subject subject, Map<ThrottleKind, Limit> throttles, boolean bypassGlobals,
    boolean bypassStored, SpaceLimit space, UnreadableCell unreadable) {

  public SubjectQuota {
    EnumMap<ThrottleKind, Limit> copy = new EnumMap<>(ThrottleKind.class);
    copy.putAll(throttles);
    throttles = Collections.unmodifiableMap(copy);
    bypassStored = bypassStored || bypassGlobals;
  }

  public SubjectQuota(Subject subject, Map<ThrottleKind, Limit> throttles, boolean bypassGlobals,
      boolean bypassStored, SpaceLimit space) {
    this(subject, throttles, bypassGlobals, bypassStored, space, null);
  }

  public SubjectQuota(Subject subject, Map<ThrottleKind, Limit> throttles, boolean bypassGlobals,
      boolean bypassStored) {
    this(subject, throttles, bypassGlobals, bypassStored, null);
  }

  public SubjectQuota(Subject subject, Map<ThrottleKind, Limit> throttles, boolean bypassGlobals) {
    this(subject, throttles, bypassGlobals, bypassGlobals, null);
  }

  public static SubjectQuota empty(Subject subject) {
    return new SubjectQuota(subject, Map.of(), false, false, null);
  }

  /** An empty cell: HBase stores {@code bypass_globals=false} and nothing else for this user. */
  public static SubjectQuota emptyCell(Subject subject) {
    return new SubjectQuota(subject, Map.of(), false, true);
  }

  /** The subject's cell holds bytes that are not quota settings. */
  public static SubjectQuota unreadable(Subject subject, UnreadableCell cell) {
    return new SubjectQuota(subject, Map.of(), false, false, null, cell);
  }

  /** Nothing stored in HBase for this subject (no cell at all). */
  public boolean isEmpty() {
    return throttles.isEmpty() && !bypassStored && space == null && unreadable == null;
  }

  /**
   * Holds a setting that changes how HBase treats requests: a throttle, a bypass or a space limit;
   * or an unreadable cell, which changes it too (HBase cannot read the user's quotas past it).
   */
  public boolean hasSettings() {
    return !throttles.isEmpty() || bypassGlobals || space != null || unreadable != null;
  }

  /** A cell that exists but holds no setting (see {@link #bypassStored}). */
  public boolean isEmptyCell() {
    return bypassStored && !hasSettings();
  }

  /** The same settings without the storage detail (what a TenantQuota would declare). */
  public SubjectQuota settingsOnly() {
    return bypassStored == bypassGlobals ? this
        : new SubjectQuota(subject, throttles, bypassGlobals, false, space, unreadable);
  }

  public SubjectQuota with(ThrottleKind kind, Limit limit) {
    EnumMap<ThrottleKind, Limit> m = new EnumMap<>(ThrottleKind.class);
    m.putAll(throttles);
    if (limit == null) {
      m.remove(kind);
    } else {
      m.put(kind, limit);
    }
    return new SubjectQuota(subject, m, bypassGlobals, bypassStored, space);
  }

  /** Setting the bypass, even to false, stores it in the cell (HBase never clears the field again). */
  public SubjectQuota withBypass(boolean bypass) {
    return new SubjectQuota(subject, throttles, bypass, true, space);
  }

  /** The same settings with this space limit (null: none). */
  public SubjectQuota withSpace(SpaceLimit limit) {
    return new SubjectQuota(subject, throttles, bypassGlobals, bypassStored, limit);
  }

  /** Shell-like rendering, e.g. {@code REQUEST_NUMBER=2500req/sec,READ_SIZE=10M/sec,SPACE=10G NO_INSERTS}. */
  public String describe() {
    if (unreadable != null) {
      return "an unreadable cell " + unreadable.describe();
    }
    String s = throttles.entrySet().stream()
        .map(e -> e.getKey() + "=" + LimitSyntax.format(e.getKey(), e.getValue())
            + (e.getValue().scope() == Limit.Scope.CLUSTER ? "(cluster)" : ""))
        .collect(Collectors.joining(","));
    if (bypassGlobals) {
      s = s.isEmpty() ? "bypassGlobals" : s + ",bypassGlobals";
    }
    if (space != null) {
      s = (s.isEmpty() ? "" : s + ",") + "SPACE=" + space.describe();
    }
    return s.isEmpty() ? "none" : s;
  }
}
