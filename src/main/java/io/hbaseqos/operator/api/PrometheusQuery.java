package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** A Prometheus server and the PromQL that yields one number (what it measures is said where it is used). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PrometheusQuery {
  /** An http(s) URL without whitespace, control or format characters, as an RE2 pattern inside a CEL string. */
  static final String URL = "^https?://[^\\\\s\\\\p{Cc}\\\\p{Cf}]+$";
  static final String URL_MESSAGE = "prometheus.url must be an http:// or https:// URL without spaces or control "
      + "characters, such as http://prometheus:9090";

  @Size(max = 2048)
  @ValidationRule(value = "self.matches('" + URL + "')", message = URL_MESSAGE)
  @JsonPropertyDescription("Base URL of the Prometheus HTTP API, e.g. http://prometheus.monitoring:9090. Absent: the "
      + "HBaseCluster's spec.prometheus.url. Only TenantQuotas in the HBaseCluster's namespace may name one: a "
      + "TenantQuota from another namespace queries the platform's Prometheus.")
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
