package io.hbaseqos.operator.hbase;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * GETs from RegionServer info servers ({@code /conf}, {@code /jmx}) over one HTTP client, with
 * http or https as the cluster's info servers use.
 */
final class InfoServerHttp {
  private final String scheme;
  private final HttpClient http;

  InfoServerHttp(boolean https, Duration connectTimeout) {
    this.scheme = https ? "https" : "http";
    this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).build();
  }

  /** @param pathAndQuery e.g. {@code /conf?format=json}, already encoded */
  HttpResponse<String> get(String host, int port, String pathAndQuery, Duration timeout)
      throws IOException, InterruptedException {
    HttpRequest req = HttpRequest.newBuilder(URI.create(scheme + "://" + host + ":" + port + pathAndQuery))
        .timeout(timeout).header("Accept", "application/json").GET().build();
    return http.send(req, HttpResponse.BodyHandlers.ofString());
  }

  /** An I/O failure as a short text: the exception's class and message. */
  static String describe(IOException e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }
}
