package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The platform's Prometheus, which the cluster's tenants query for calibration and latency objectives. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PrometheusEndpointSpec {
  @Required
  @Size(max = 2048)
  @ValidationRule(value = "self.matches('" + PrometheusQuery.URL + "')", message = PrometheusQuery.URL_MESSAGE)
  @JsonPropertyDescription("Base URL of the Prometheus HTTP API, e.g. http://prometheus.monitoring:9090.")
  private String url;

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
  }
}
