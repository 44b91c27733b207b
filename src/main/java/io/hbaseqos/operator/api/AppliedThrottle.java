package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.LimitSyntax;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** A throttle as it is in HBase now. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AppliedThrottle {
  private String type;
  private String limit;
  private String scope;

  public AppliedThrottle() {}

  /** Throttles as status lists them, in type order. */
  public static List<AppliedThrottle> listOf(Map<ThrottleKind, Limit> throttles) {
    List<AppliedThrottle> out = new ArrayList<>();
    new TreeMap<>(throttles).forEach((k, l) ->
        out.add(new AppliedThrottle(k.name(), LimitSyntax.format(k, l), l.scope().name())));
    return out;
  }

  public AppliedThrottle(String type, String limit, String scope) {
    this.type = type;
    this.limit = limit;
    this.scope = scope;
  }

  public String getType() {
    return type;
  }

  public void setType(String type) {
    this.type = type;
  }

  public String getLimit() {
    return limit;
  }

  public void setLimit(String limit) {
    this.limit = limit;
  }

  public String getScope() {
    return scope;
  }

  public void setScope(String scope) {
    this.scope = scope;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AppliedThrottle a && Objects.equals(type, a.type) && Objects.equals(limit, a.limit)
        && Objects.equals(scope, a.scope);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, limit, scope);
  }
}
