package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/** A throttle as it is in HBase now. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AppliedThrottle {
  private String type;
  private String limit;
  private String scope;

  public AppliedThrottle() {}

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
