package io.hbaseqos.operator.hbase;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.calibration.ServerCounters;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Reads per-user operation counters and the 2.6.4 per-user throttling-exception counters from
 * every live RegionServer's {@code /jmx}. One read per cluster serves every calibrated tenant for
 * {@link #REUSE} (the list of live servers is asked for only then); each server is asked for two
 * beans with a short timeout. A reading carries the time it was taken, so a shared one still
 * yields the right rate.
 */
final class RegionServerJmx {
  static final Duration TIMEOUT = Duration.ofMillis(2000);
  static final Duration REUSE = Duration.ofSeconds(5);
  static final String USERS_BEAN = "Hadoop:service=HBase,name=RegionServer,sub=Users";
  static final String SERVER_BEAN = "Hadoop:service=HBase,name=RegionServer,sub=Server";
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * Measured on HBase 2.6.4 (single Gets, READ_NUMBER throttle): a throttled Get adds 2 to
   * {@code User_<u>_metric_get_num_ops} (get_num_ops = successful + 2 x throttled). CalibrationIT
   * checks the resulting rate against the client's own count.
   */
  static final int GET_RECORDS_PER_THROTTLE = 2;

  /** One server's two beans, as read. */
  record Beans(JsonNode users, JsonNode server, String problem) {}

  private final InfoServerHttp http;
  private final Clock clock;
  private final Executor pool;
  private Map<String, Beans> last = Map.of();
  private Instant lastAt = Instant.EPOCH;

  RegionServerJmx(InfoServerHttp http, Clock clock, Executor pool) {
    this.http = http;
    this.clock = clock;
    this.pool = pool;
  }

  /**
   * @param servers server name to host and info port
   * @return per server the tenant's counters
   * @throws MetricsUnavailableException naming the first server that could not be read or has no per-user metrics
   */
  synchronized CounterReading userCounters(Map<String, Map.Entry<String, Integer>> servers, String user,
      Set<String> ops) throws IOException {
    Instant now = clock.instant();
    if (lastAt.plus(REUSE).isBefore(now) || !last.keySet().equals(servers.keySet())) {
      // all servers at once, each within its own timeout (two beans, so at most twice TIMEOUT)
      Map<String, CompletableFuture<Beans>> reads = new LinkedHashMap<>();
      servers.forEach((name, hostPort) -> reads.put(name,
          CompletableFuture.supplyAsync(() -> fetch(hostPort.getKey(), hostPort.getValue()), pool)));
      Map<String, Beans> read = new LinkedHashMap<>();
      for (var e : reads.entrySet()) {
        read.put(e.getKey(), e.getValue().join());
      }
      last = read;
      lastAt = now;
    }
    Map<String, ServerCounters> out = new LinkedHashMap<>();
    for (var e : last.entrySet()) {
      Beans b = e.getValue();
      if (b.problem() != null) {
        throw new MetricsUnavailableException("RegionServer " + e.getKey() + ": " + b.problem());
      }
      out.put(e.getKey(), counters(b.users(), b.server(), user, ops));
    }
    return new CounterReading(lastAt, out);
  }

  private Beans fetch(String host, int port) {
    if (port <= 0) {
      return new Beans(null, null, "its info server is disabled (hbase.regionserver.info.port=-1)");
    }
    try {
      JsonNode users = bean(host, port, USERS_BEAN);
      if (users == null) {
        return new Beans(null, null, "no per-user metrics: set hbase.regionserver.user.metrics.enabled=true");
      }
      return new Beans(users, bean(host, port, SERVER_BEAN), null);
    } catch (IOException e) {
      return new Beans(null, null, "/jmx unreadable (" + InfoServerHttp.describe(e) + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Beans(null, null, "interrupted");
    }
  }

  private JsonNode bean(String host, int port, String name) throws IOException, InterruptedException {
    HttpResponse<String> resp = http.get(host, port, "/jmx?qry=" + name.replace(",", "%2C").replace("=", "%3D")
        .replace(":", "%3A"), TIMEOUT);
    if (resp.statusCode() != 200) {
      throw new IOException("HTTP " + resp.statusCode());
    }
    JsonNode beans = JSON.readTree(resp.body()).path("beans");
    return beans.isArray() && !beans.isEmpty() ? beans.get(0) : null;
  }

  /**
   * The tenant's counters from one server's beans: operations from {@code User_<u>_metric_<op>_num_ops}
   * and throttled requests from {@code RpcThrottlingException_Type_*_User_<u>_Table_*} (2.6.4+;
   * absent before, which reads as none). Throttled Gets are also recorded as Gets, so the
   * read-type throttles are reported as counted in ops. Pure.
   */
  static ServerCounters counters(JsonNode users, JsonNode server, String user, Set<String> ops) {
    String u = sanitize(user);
    long n = 0;
    for (String op : ops) {
      n += users.path("User_" + u + "_metric_" + op + "_num_ops").asLong(0);
    }
    long throttled = 0;
    long readThrottled = 0;
    if (server != null) {
      String marker = "_User_" + u + "_Table_";
      for (Iterator<Map.Entry<String, JsonNode>> it = server.fields(); it.hasNext(); ) {
        var f = it.next();
        String k = f.getKey();
        if (k.startsWith("RpcThrottlingException_Type_") && k.contains(marker)) {
          long v = f.getValue().asLong(0);
          throttled += v;
          String type = k.substring("RpcThrottlingException_Type_".length(), k.indexOf(marker));
          if (ops.contains("get") && !type.startsWith("Write") && !type.startsWith("NumWrite")
              && !type.startsWith("Atomic")) {
            readThrottled += v;
          }
        }
      }
    }
    return new ServerCounters(n, throttled, GET_RECORDS_PER_THROTTLE * readThrottled);
  }

  /** HBase's metric names replace these characters of a user name with '_'. */
  static String sanitize(String user) {
    return user.replaceAll("[,=:*?\"\\n]", "_");
  }
}
