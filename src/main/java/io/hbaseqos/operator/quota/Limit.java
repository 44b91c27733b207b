package io.hbaseqos.operator.quota;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One throttle limit as HBase stores it: an amount in the base unit of its {@link ThrottleKind}
 * (requests, bytes, capacity units or milliseconds) per time unit, and a scope.
 */
public record Limit(long amount, TimeUnit timeUnit, Scope scope) {

  public enum Scope { MACHINE, CLUSTER }

  public Limit {
    if (amount < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + amount);
    }
    Objects.requireNonNull(timeUnit, "timeUnit");
    Objects.requireNonNull(scope, "scope");
  }

  public Limit withScope(Scope s) {
    return new Limit(amount, timeUnit, s);
  }

  public Limit withAmount(long a) {
    return new Limit(a, timeUnit, scope);
  }

  /** Requests (or bytes, CU, ms) per second this limit allows, for comparisons across units. */
  public double perSecond() {
    return amount / (double) timeUnit.toSeconds(1);
  }
}
