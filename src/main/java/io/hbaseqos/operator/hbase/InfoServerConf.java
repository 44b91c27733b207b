package io.hbaseqos.operator.hbase;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads one property from each RegionServer's info server ({@code /conf?format=json}). A server
 * is read once per start (its server name carries the start code), an unreadable one again after
 * {@link #RETRY_UNREADABLE}; at most {@link #READS_PER_CALL} servers are read per call so a large
 * cluster is covered over a few resyncs without ever holding a call for long.
 */
final class InfoServerConf {
  static final Duration TIMEOUT = Duration.ofMillis(1500);
  static final Duration RETRY_UNREADABLE = Duration.ofMinutes(10);
  static final int READS_PER_CALL = 5;

  private record Known(ServerSetting setting, Instant at) {}

  private final String key;
  private final String scheme;
  private final Clock clock;
  private final Map<String, Known> known = new ConcurrentHashMap<>();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

  InfoServerConf(String key, boolean https, Clock clock) {
    this.key = key;
    this.scheme = https ? "https" : "http";
    this.clock = clock;
  }

  /**
   * @param servers live RegionServers: server name (host,port,startcode) to host and info port
   *     (a port of 0 or less means the info server is off)
   */
  Map<String, ServerSetting> read(Map<String, Map.Entry<String, Integer>> servers) {
    known.keySet().retainAll(Set.copyOf(servers.keySet()));
    int budget = READS_PER_CALL;
    Instant now = clock.instant();
    Map<String, ServerSetting> out = new LinkedHashMap<>();
    for (var e : servers.entrySet()) {
      Known k = known.get(e.getKey());
      boolean stale = k == null || (!k.setting().readable() && k.at().plus(RETRY_UNREADABLE).isBefore(now));
      if (stale && budget > 0) {
        budget--;
        k = new Known(fetch(e.getValue().getKey(), e.getValue().getValue()), now);
        known.put(e.getKey(), k);
      }
      if (k != null) {
        out.put(e.getKey(), k.setting());
      }
    }
    return out;
  }

  private ServerSetting fetch(String host, int port) {
    if (port <= 0) {
      return ServerSetting.unreadable("info server disabled");
    }
    try {
      HttpRequest req = HttpRequest.newBuilder(URI.create(scheme + "://" + host + ":" + port + "/conf?format=json"))
          .timeout(TIMEOUT).header("Accept", "application/json").GET().build();
      HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
      if (resp.statusCode() != 200) {
        return ServerSetting.unreadable("HTTP " + resp.statusCode() + " from /conf");
      }
      return ServerSetting.of(ServerConf.property(resp.body(), key).orElse(null));
    } catch (IOException e) {
      return ServerSetting.unreadable(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ServerSetting.unreadable("interrupted");
    }
  }
}
