package io.hbaseqos.operator.quota;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The throttle settings of one subject: desired (from a TenantQuota) or actual (read from
 * {@code hbase:quota}). Immutable.
 */
public record SubjectQuota(Subject subject, Map<ThrottleKind, Limit> throttles, boolean bypassGlobals) {

  public SubjectQuota {
    EnumMap<ThrottleKind, Limit> copy = new EnumMap<>(ThrottleKind.class);
    copy.putAll(throttles);
    throttles = Collections.unmodifiableMap(copy);
  }

  public static SubjectQuota empty(Subject subject) {
    return new SubjectQuota(subject, Map.of(), false);
  }

  public boolean isEmpty() {
    return throttles.isEmpty() && !bypassGlobals;
  }

  public SubjectQuota with(ThrottleKind kind, Limit limit) {
    EnumMap<ThrottleKind, Limit> m = new EnumMap<>(ThrottleKind.class);
    m.putAll(throttles);
    if (limit == null) {
      m.remove(kind);
    } else {
      m.put(kind, limit);
    }
    return new SubjectQuota(subject, m, bypassGlobals);
  }

  public SubjectQuota withBypass(boolean bypass) {
    return new SubjectQuota(subject, throttles, bypass);
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
