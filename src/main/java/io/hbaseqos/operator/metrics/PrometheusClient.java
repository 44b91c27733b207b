package io.hbaseqos.operator.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Runs an instant PromQL query through the Prometheus HTTP API ({@code /api/v1/query}) and returns one number. */
public final class PrometheusClient {
  static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

  /**
   * @return the query's value; NaN when it returns no sample (nothing measured yet)
   * @throws IOException when Prometheus cannot be reached, refuses the query, or returns several series
   */
  public double query(String baseUrl, String promql) throws IOException {
    String url = baseUrl.replaceAll("/+$", "") + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8);
    try {
      HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      return value(resp.statusCode(), resp.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** Reads a {@code /api/v1/query} answer. Pure. */
  static double value(int status, String body) throws IOException {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      throw new IOException("Prometheus answered HTTP " + status + " without JSON");
    }
    if (!"success".equals(root.path("status").asText())) {
      throw new IOException("Prometheus refused the query: " + root.path("errorType").asText("HTTP " + status) + ": "
          + root.path("error").asText(""));
    }
    JsonNode data = root.path("data");
    JsonNode result = data.path("result");
    switch (data.path("resultType").asText()) {
      case "scalar":
        return Double.parseDouble(result.get(1).asText());
      case "vector":
        if (result.isEmpty()) {
          return Double.NaN;
        }
        if (result.size() > 1) {
          throw new IOException("the query returns " + result.size() + " series; wrap it in sum(...)");
        }
        return Double.parseDouble(result.get(0).path("value").get(1).asText());
      default:
        throw new IOException("the query returns a " + data.path("resultType").asText()
            + "; an instant vector or scalar is needed");
    }
  }
}
