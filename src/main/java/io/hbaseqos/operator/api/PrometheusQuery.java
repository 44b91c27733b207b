package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** A Prometheus server and the PromQL that yields one number (what it measures is said where it is used). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PrometheusQuery {
  @Required
  @ValidationRule(value = "self.matches('^https?://[^ ]+$')",
      message = "prometheus.url must be an http:// or https:// URL, such as http://prometheus:9090")
  @JsonPropertyDescription("Base URL of the Prometheus HTTP API, e.g. http://prometheus.monitoring:9090.")
  private String url;

  @Required
  @Size(min = 1, max = 4096)
  @JsonPropertyDescription("PromQL returning one number, as a scalar or a one-sample vector.")
  private String query;

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
  }

  public String getQuery() {
    return query;
  }

  public void setQuery(String query) {
    this.query = query;
  }
}
