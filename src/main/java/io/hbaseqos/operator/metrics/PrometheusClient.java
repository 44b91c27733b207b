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

/**
 * Runs an instant PromQL query through the Prometheus HTTP API ({@code /api/v1/query}) and returns one number.
 * A Prometheus that does not answer (no connection, or no answer within the timeout) is not asked
 * again for {@link #QUIET}: every query to it fails at once with the first failure's words, so twenty
 * tenants pointing at a black-holed address cost one timeout, not twenty per period.
 */
public final class PrometheusClient {
  static final Duration TIMEOUT = Duration.ofSeconds(5);
  /** How long a Prometheus that did not answer is not asked again. */
  static final Duration QUIET = Duration.ofSeconds(30);
  /** The largest answer read: an instant query for one number answers in a few hundred bytes. */
  static final int MAX_ANSWER = 4 * 1024 * 1024;
  /** The most characters of Prometheus's own error text that reach a status message. */
  static final int MAX_ERROR_TEXT = 300;
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Duration timeout;
  private final HttpClient http;
  private final java.util.function.LongSupplier nanos;

  /** A base URL that did not answer: until when (monotonic) it is not asked again, and why. */
  private record Silent(long untilNanos, String why) {}

  private final java.util.Map<String, Silent> silent = new java.util.concurrent.ConcurrentHashMap<>();

  public PrometheusClient() {
    this(TIMEOUT, System::nanoTime);
  }

  PrometheusClient(Duration timeout, java.util.function.LongSupplier nanos) {
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    this.nanos = nanos;
  }

  /** Fails at once while {@code base} is in its quiet time after not answering. */
  void checkAnswering(String base) throws IOException {
    Silent s = silent.get(base);
    if (s != null && nanos.getAsLong() - s.untilNanos() < 0) {
      throw new IOException(s.why() + "; not asked again for up to " + QUIET.toSeconds() + " s");
    }
  }

  /** Remembers that {@code base} did not answer; the failure, in the words later queries get too. */
  IOException notAnswering(String base, IOException e) {
    String why = "Prometheus at " + base + " did not answer (" + e.getClass().getSimpleName()
        + (e.getMessage() == null ? "" : ": " + shown(e.getMessage())) + ")";
    silent.put(base, new Silent(nanos.getAsLong() + QUIET.toNanos(), why));
    return new IOException(why, e);
  }

  /**
   * @return the query's value; NaN when it returns no sample (nothing measured yet)
   * @throws IOException when Prometheus cannot be reached, refuses the query, or returns several series
   */
  public double query(String baseUrl, String promql) throws IOException {
    String base = baseUrl.replaceAll("/+$", "");
    checkAnswering(base);
    String url = base + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8);
    try {
      HttpResponse<java.io.InputStream> resp;
      try {
        resp = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build(),
            HttpResponse.BodyHandlers.ofInputStream());
      } catch (java.net.ConnectException | java.net.http.HttpTimeoutException e) {
        throw notAnswering(base, e);
      }
      silent.remove(base);
      String body;
      try (java.io.InputStream in = resp.body()) {
        byte[] bytes = in.readNBytes(MAX_ANSWER + 1);
        if (bytes.length > MAX_ANSWER) {
          throw new IOException("Prometheus answered HTTP " + resp.statusCode() + " with more than "
              + MAX_ANSWER / (1024 * 1024) + " MiB; a query for one number answers in a few hundred bytes");
        }
        body = new String(bytes, StandardCharsets.UTF_8);
      }
      return value(resp.statusCode(), body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** Text from the server as a status message may show it: printable, and at most {@link #MAX_ERROR_TEXT} characters. */
  static String shown(String text) {
    String printable = text.codePoints().map(c -> Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
        ? ' ' : c).collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
    return printable.length() <= MAX_ERROR_TEXT ? printable : printable.substring(0, MAX_ERROR_TEXT) + "...";
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
      throw new IOException("Prometheus refused the query: " + shown(root.path("errorType").asText("HTTP " + status))
          + ": " + shown(root.path("error").asText("")));
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
