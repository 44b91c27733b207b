package io.hbaseqos.operator.hbase;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads a fixed set of properties from each RegionServer's info server ({@code /conf?format=json}). A server
 * is read once per start (its server name carries the start code), an unreadable one again after
 * {@link #RETRY_UNREADABLE}; at most {@link #READS_PER_CALL} servers are read per call so a large
 * cluster is covered over a few resyncs without ever holding a call for long.
 */
final class InfoServerConf {
  static final Duration TIMEOUT = Duration.ofMillis(1500);
  static final Duration RETRY_UNREADABLE = Duration.ofMinutes(10);
  static final int READS_PER_CALL = 5;

  private record Known(ServerSettings settings, Instant at) {}

  private final Set<String> keys;
  private final InfoServerHttp http;
  private final Clock clock;
  private final Map<String, Known> known = new ConcurrentHashMap<>();

  InfoServerConf(Set<String> keys, InfoServerHttp http, Clock clock) {
    this.keys = Set.copyOf(keys);
    this.http = http;
    this.clock = clock;
  }

  /**
   * @param servers live RegionServers: server name (host,port,startcode) to host and info port
   *     (a port of 0 or less means the info server is off)
   */
  Map<String, ServerSettings> read(Map<String, Map.Entry<String, Integer>> servers) {
    known.keySet().retainAll(Set.copyOf(servers.keySet()));
    int budget = READS_PER_CALL;
    Instant now = clock.instant();
    Map<String, ServerSettings> out = new LinkedHashMap<>();
    for (var e : servers.entrySet()) {
      Known k = known.get(e.getKey());
      boolean stale = k == null || (!k.settings().readable() && k.at().plus(RETRY_UNREADABLE).isBefore(now));
      if (stale && budget > 0) {
        budget--;
        k = new Known(fetch(e.getValue().getKey(), e.getValue().getValue()), now);
        known.put(e.getKey(), k);
      }
      if (k != null) {
        out.put(e.getKey(), k.settings());
      }
    }
    return out;
  }

  private ServerSettings fetch(String host, int port) {
    if (port <= 0) {
      return ServerSettings.unreadable("info server disabled");
    }
    try {
      HttpResponse<String> resp = http.get(host, port, "/conf?format=json", TIMEOUT);
      if (resp.statusCode() != 200) {
        return ServerSettings.unreadable("HTTP " + resp.statusCode() + " from /conf");
      }
      return ServerSettings.of(ServerConf.properties(resp.body(), keys));
    } catch (IOException e) {
      return ServerSettings.unreadable(InfoServerHttp.describe(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ServerSettings.unreadable("interrupted");
    }
  }
}
