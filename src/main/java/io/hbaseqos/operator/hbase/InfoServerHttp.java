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
public final class InfoServerHttp {
  private final String scheme;
  private final HttpClient http;
  private final Negotiator negotiator;
  private final InfoServerRequests requests;

  InfoServerHttp(boolean https, Duration connectTimeout, Negotiator negotiator) {
    this(https, connectTimeout, negotiator, new InfoServerRequests());
  }

  InfoServerHttp(boolean https, Duration connectTimeout, Negotiator negotiator, InfoServerRequests requests) {
    this(https, null, connectTimeout, negotiator, requests);
  }

  /** @param trust the certificates HTTPS info servers are checked against (null: the JVM's default) */
  InfoServerHttp(boolean https, javax.net.ssl.SSLContext trust, Duration connectTimeout, Negotiator negotiator,
      InfoServerRequests requests) {
    this.scheme = https ? "https" : "http";
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(connectTimeout);
    if (https && trust != null) {
      b.sslContext(trust);
    }
    this.http = b.build();
    this.negotiator = negotiator;
    this.requests = requests;
  }

  /**
   * A GET; an info server that answers 401 with {@code WWW-Authenticate: Negotiate} (SPNEGO, a
   * Kerberos-secured HBase) is asked again with a token of the operator's Kerberos login.
   *
   * @param pathAndQuery e.g. {@code /conf?format=json}, already encoded
   */
  HttpResponse<String> get(String host, int port, String pathAndQuery, Duration timeout)
      throws IOException, InterruptedException {
    URI uri = URI.create(scheme + "://" + host + ":" + port + pathAndQuery);
    requests.count(uri.getPath());
    HttpResponse<String> resp = http.send(request(uri, timeout).build(), HttpResponse.BodyHandlers.ofString());
    if (resp.statusCode() == 401 && resp.headers().allValues("WWW-Authenticate").stream()
        .anyMatch(v -> v.regionMatches(true, 0, "Negotiate", 0, "Negotiate".length()))) {
      String token = negotiator.token(host);
      if (token != null) {
        requests.count(uri.getPath());
        resp = http.send(request(uri, timeout).header("Authorization", "Negotiate " + token).build(),
            HttpResponse.BodyHandlers.ofString());
      }
    }
    return resp;
  }

  private static HttpRequest.Builder request(URI uri, Duration timeout) {
    return HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json").GET();
  }

  /** An I/O failure as a short text: the exception's class and message. */
  static String describe(IOException e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }
}
