package io.hbaseqos.operator.hbase;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.calibration.ServerCounters;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;

/**
 * Reads a user's per-user operation counters and the 2.6.4 per-user throttling-exception counters
 * from every live RegionServer.
 *
 * <p>From {@code /prometheus}, which samples every metrics source when asked, so a reading is the
 * counters at the moment it is taken. {@code /jmx} answers from a cache that the metrics system
 * refreshes every period (10 s), so its counters lag by up to that long (measured on HBase 2.6.4
 * under load: 50,000 Gets, about 5 s, behind {@code /prometheus} read just before): a loop reading
 * it attributes one limit's operations to the next. {@code /jmx} is read only where
 * {@code /prometheus} is not served (404).
 *
 * <p>Every read is of all users' metrics: a sample resets every histogram of the server, whoever
 * it was for, so one read per cluster serves every tenant for {@link #REUSE}, unless the caller
 * needs a reading taken after a given moment (the first after a quota write); each server is read
 * with a short timeout, all in parallel. A reading carries the time it was taken, so a shared one
 * still yields the right rate. The histogram windows a counters read takes are kept and handed to
 * the next read of all users ({@link UsersMetrics#taken()}), which judges latencies: it then tells
 * the operator's own reads from another reader's.
 */
final class RegionServerMetrics {
  static final Duration TIMEOUT = Duration.ofMillis(2000);
  static final Duration REUSE = Duration.ofSeconds(5);
  static final String USERS_BEAN = "Hadoop:service=HBase,name=RegionServer,sub=Users";
  static final String SERVER_BEAN = "Hadoop:service=HBase,name=RegionServer,sub=Server";
  static final String THROTTLE_PREFIX = "server_rpc_throttling_exception_type_";
  static final String TABLES_BEAN = "Hadoop:service=HBase,name=RegionServer,sub=Tables";
  /** What every user's metrics (and the per-user throttling counters) have in their {@code /prometheus} names. */
  static final String USERS_QUERY = "_user_";
  /** What every table's aggregate metrics have in theirs (the per-region ones start with {@code regions_}). */
  static final String TABLES_QUERY = "tables_namespace_";
  /** What the server's block cache metrics have in theirs. */
  static final String CACHE_QUERY = "server_block_cache";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** How HBase's Prometheus servlet splits a record and metric name into words (then joined by '_', lower case). */
  private static final Pattern WORDS = Pattern.compile("(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=([A-Z][a-z]))|\\W|(_)+");
  /**
   * Measured on HBase 2.6.4 (single Gets, READ_NUMBER throttle): a throttled Get adds 2 to
   * {@code User_<u>_metric_get_num_ops} (get_num_ops = successful + 2 x throttled). CalibrationIT
   * checks the resulting rate against the client's own count.
   */
  static final int GET_RECORDS_PER_THROTTLE = 2;

  /**
   * One server's metrics as Prometheus names and values, or why they could not be read.
   *
   * @param sampled read from {@code /prometheus} (as they are now), not from the {@code /jmx} cache
   */
  record Sample(Map<String, Double> values, String problem, boolean sampled, boolean unanswered) {
    Sample(Map<String, Double> values, String problem, boolean sampled) {
      this(values, problem, sampled, false);
    }

    static Sample failed(String problem) {
      return new Sample(null, problem, false);
    }

    /** The server did not answer in time: its breaker opens. */
    static Sample silent(String problem) {
      return new Sample(null, problem, false, true);
    }
  }

  private final InfoServerHttp http;
  private final Clock clock;
  private final Executor pool;
  private final InfoPortBreakers breakers;
  /** The last reading of all users (null: none within its reuse). */
  private Reading last;
  /** How long after a read of all users (latency protection's) other reads keep their windows for the next one. */
  static final Duration LATENCY_READER = Duration.ofMinutes(10);
  /** When all users were last read for their latencies (null: never). */
  private Instant lastLatencyRead;
  /** The time between the last two reads of all users (null: fewer than two). */
  private Duration latencyEvery;
  /** Per server: the histogram windows the counters reads took since the last read of all users. */
  private final Map<String, Map<String, Double>> taken = new HashMap<>();

  private record Reading(Instant at, Map<String, Sample> servers) {}

  RegionServerMetrics(InfoServerHttp http, Clock clock, Executor pool) {
    this.http = http;
    this.clock = clock;
    this.pool = pool;
    this.breakers = new InfoPortBreakers(clock);
  }

  /**
   * @param servers server name to host and info port
   * @param notBefore the reading must have been taken at or after this moment (null: any within {@link #REUSE})
   * @return per server the user's counters
   * @throws MetricsUnavailableException naming the first server that could not be read or has no per-user metrics
   */
  synchronized CounterReading userCounters(Map<String, Map.Entry<String, Integer>> servers, String user,
      Set<String> ops, Instant notBefore) throws IOException {
    Instant now = clock.instant();
    Reading r = last;
    if (r == null || r.at().plus(REUSE).isBefore(now) || (notBefore != null && r.at().isBefore(notBefore))
        || !r.servers().keySet().equals(servers.keySet())) {
      r = new Reading(now, readAll(servers, USERS_QUERY));
      keep(r);
    }
    Map<String, ServerCounters> out = new LinkedHashMap<>();
    boolean sampled = true;
    for (var e : r.servers().entrySet()) {
      Sample s = e.getValue();
      if (s.problem() != null) {
        throw new MetricsUnavailableException("RegionServer " + e.getKey() + ": " + s.problem());
      }
      out.put(e.getKey(), counters(s.values(), user, ops));
      sampled &= s.sampled();
    }
    return new CounterReading(r.at(), out, sampled);
  }

  /**
   * A reading other reads of this cluster may share, whose histogram windows go to the next read of
   * all users: kept only while latencies are read (a read of all users within three of its own
   * intervals, and at least {@link #LATENCY_READER}), and only for the servers read now.
   */
  private void keep(Reading r) {
    last = r;
    Duration patience = latencyEvery == null || latencyEvery.multipliedBy(3).compareTo(LATENCY_READER) < 0
        ? LATENCY_READER : latencyEvery.multipliedBy(3);
    if (lastLatencyRead == null || lastLatencyRead.plus(patience).isBefore(r.at())) {
      taken.clear(); // nobody judges latencies: nothing to hand over
      return;
    }
    taken.keySet().retainAll(r.servers().keySet());
    r.servers().forEach((server, sample) -> {
      if (sample.values() != null) {
        takeWindows(server, sample.values());
      }
    });
  }

  /** Adds a server's histogram windows, read by someone other than the next read of all users, to {@link #taken}. */
  private void takeWindows(String server, Map<String, Double> values) {
    Map<String, Double> into = taken.computeIfAbsent(server, x -> new HashMap<>());
    values.forEach((k, v) -> {
      if (k.contains(UsersMetrics.WINDOW_BUCKETS)) {
        into.merge(k, v, Double::sum); // the windows' operations add up
      } else if (k.startsWith("users_") && !k.endsWith("_num_ops")) {
        // a quantile of a union of windows is at most the highest of theirs
        into.merge(k, v, Math::max);
      }
    });
  }

  /**
   * Every user's counters on every server now, its block cache, and with {@code tables} every
   * table's, for the usage of all tenants: two reads per server (three with tables), whatever the
   * number of tenants. Shared with calibration's counters reads for {@link #REUSE}; its histogram
   * windows go to the next read of all users like theirs.
   *
   * @throws MetricsUnavailableException naming the first server that could not be read
   */
  synchronized ServersSample sample(Map<String, Map.Entry<String, Integer>> servers, boolean tables)
      throws IOException {
    Reading r = new Reading(clock.instant(), readAll(servers, USERS_QUERY));
    keep(r);
    Map<String, Sample> byTable = tables ? readAll(servers, TABLES_QUERY) : Map.of();
    Map<String, Sample> cache = readAll(servers, CACHE_QUERY);
    Map<String, Map<String, Double>> out = new LinkedHashMap<>();
    for (var e : r.servers().entrySet()) {
      Sample s = e.getValue();
      Sample t = byTable.get(e.getKey());
      String problem = s.problem() != null ? s.problem() : t != null && t.problem() != null ? t.problem() : null;
      if (problem != null) {
        throw new MetricsUnavailableException("RegionServer " + e.getKey() + ": " + problem);
      }
      Map<String, Double> values = new HashMap<>(s.values());
      if (t != null) {
        values.putAll(t.values());
      }
      Sample c = cache.get(e.getKey());
      if (c != null && c.values() != null) {
        values.putAll(c.values()); // a server whose cache could not be read has none in this sample
      }
      out.put(e.getKey(), values);
    }
    return new ServersSample(r.at(), out);
  }

  /**
   * Every user's metrics on every server, read now, in one request per server: a read of
   * {@code /prometheus} resets every latency histogram of the server (HBase snapshots and resets
   * them on each sample), so a period's latencies and counters come from the same read.
   *
   * @return per server its users' metrics by Prometheus name
   * @throws MetricsUnavailableException naming the first server that could not be read
   */
  synchronized UsersMetrics allUsers(Map<String, Map.Entry<String, Integer>> servers) throws IOException {
    Map<String, Map<String, Double>> out = new LinkedHashMap<>();
    // the first read of all users (or the first after a long pause) hands over nothing kept before it
    Map<String, Map<String, Double>> tookBefore = lastLatencyRead == null ? new HashMap<>() : new HashMap<>(taken);
    taken.clear();
    Instant now = clock.instant();
    latencyEvery = lastLatencyRead == null ? null : Duration.between(lastLatencyRead, now);
    lastLatencyRead = now;
    Map<String, Sample> read = readAll(servers, USERS_QUERY);
    // a counters read within its reuse would now read histograms this one has taken: it reads again
    last = null;
    for (var e : read.entrySet()) {
      Sample s = e.getValue();
      String problem = s.problem() != null ? s.problem() : !s.sampled() ? "does not serve /prometheus: its /jmx "
          + "histograms are reset by whoever reads them and cannot be judged per period" : null;
      if (problem != null) {
        // what the others took, and what this read took from the servers that answered, belongs to the next read
        taken.putAll(tookBefore);
        read.forEach((server, sample) -> {
          if (sample.values() != null && sample.sampled()) {
            takeWindows(server, sample.values());
          }
        });
        throw new MetricsUnavailableException("RegionServer " + e.getKey() + (s.problem() != null ? ": " : " ")
            + problem);
      }
      out.put(e.getKey(), s.values());
    }
    return new UsersMetrics(out, tookBefore, now);
  }

  /** How long to wait before asking again for per-user metrics an answer came without. */
  static final Duration JMX_RETRY = Duration.ofMillis(500);

  /**
   * The longest a read of all servers takes, whatever a server does: a JMX fallback's requests
   * included (the 404 of /prometheus, the per-user bean, once more after {@link #JMX_RETRY} when it
   * was missing, the server bean; over /prometheus at most three).
   */
  static final Duration READ_DEADLINE = TIMEOUT.multipliedBy(4).plus(JMX_RETRY).plusMillis(500);

  /** Reads every server at once, each within its own timeout: the metrics whose names contain {@code query}. */
  private Map<String, Sample> readAll(Map<String, Map.Entry<String, Integer>> servers, String query) {
    breakers.retain(servers.keySet());
    Map<String, CompletableFuture<Sample>> reads = new LinkedHashMap<>();
    Map<String, Sample> refused = new HashMap<>();
    servers.forEach((name, hostPort) -> {
      String refusal = breakers.refusal(name);
      if (refusal == null) {
        reads.put(name, CompletableFuture.supplyAsync(() -> fetch(hostPort.getKey(), hostPort.getValue(), query),
            pool));
      } else {
        refused.put(name, Sample.failed(refusal));
        if (breakers.probeDue(name)) {
          probe(name, hostPort);
        }
      }
    });
    Map<String, Sample> read = new LinkedHashMap<>();
    // one deadline for all: a server that sent its headers and then stalls its body is not waited for
    // beyond it (the request timeout covers only the wait for headers), and it holds no lock longer
    long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
    reads.forEach((name, f) -> {
      try {
        read.put(name, f.get(Math.max(0, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS));
      } catch (java.util.concurrent.TimeoutException e) {
        f.cancel(true);
        read.put(name, Sample.silent("no whole answer within " + READ_DEADLINE.toMillis() + " ms"));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        read.put(name, Sample.failed("interrupted"));
      } catch (java.util.concurrent.ExecutionException e) {
        read.put(name, Sample.failed(String.valueOf(e.getCause())));
      }
    });
    read.forEach((name, sample) -> {
      if (sample.unanswered()) {
        breakers.silent(name, sample.problem());
      } else {
        breakers.answered(name);
      }
    });
    // in the order given, the servers not asked among them
    Map<String, Sample> all = new LinkedHashMap<>();
    servers.keySet().forEach(name -> all.put(name, read.containsKey(name) ? read.get(name) : refused.get(name)));
    return all;
  }

  /** Asks a server whose breaker is open, off the read path; its first answer closes the breaker. */
  private void probe(String name, Map.Entry<String, Integer> hostPort) {
    try {
      CompletableFuture.supplyAsync(() -> {
        try {
          // one attribute of the JVM's runtime bean: a few bytes, and no metrics source is sampled (no
          // histogram is reset)
          http.get(hostPort.getKey(), hostPort.getValue(), "/jmx?get=java.lang:type%3DRuntime::Uptime", TIMEOUT);
          return Boolean.TRUE;
        } catch (java.net.http.HttpTimeoutException e) {
          return Boolean.FALSE;
        } catch (IOException e) {
          return Boolean.TRUE; // it refused or broke the connection at once: nothing to wait for
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return null;
        }
      }, pool).orTimeout(READ_DEADLINE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
          .whenComplete((answered, failed) -> {
            if (Boolean.TRUE.equals(answered)) {
              breakers.answered(name);
            } else if (Boolean.FALSE.equals(answered) || failed instanceof java.util.concurrent.TimeoutException) {
              breakers.silent(name, null); // also a body that never ends
            } else {
              breakers.probeEnded(name);
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      breakers.probeEnded(name); // the pool is closing with its cluster
    }
  }

  /** Whether reads skip {@code server} now, for tests. */
  boolean skips(String server) {
    return breakers.isOpen(server);
  }

  private Sample fetch(String host, int port, String query) {
    if (port <= 0) {
      return Sample.failed("its info server is disabled (hbase.regionserver.info.port=-1)");
    }
    try {
      // one query gets both families: users_user_<u>_metric_* and server_rpc_throttling_..._user_<u>_table_*
      HttpResponse<String> resp = http.get(host, port, "/prometheus?qry=" + URLEncoder.encode(query,
          StandardCharsets.UTF_8), TIMEOUT);
      if (resp.statusCode() == 404) {
        return query.equals(USERS_QUERY) ? fromJmx(host, port)
            : fromJmxBean(host, port, query.equals(TABLES_QUERY) ? TABLES_BEAN : SERVER_BEAN,
                query.equals(TABLES_QUERY) ? "Tables" : "Server");
      }
      if (resp.statusCode() != 200) {
        return Sample.failed("/prometheus answered HTTP " + resp.statusCode());
      }
      Map<String, Double> values = parsePrometheus(resp.body());
      if (query.equals(USERS_QUERY) && noUsers(values)) {
        // HBase registers the per-user source again when users come and go and answers without it
        // meanwhile (seen on 2.6.4 in CalibrationIT, under load): one more look before judging
        Thread.sleep(JMX_RETRY.toMillis());
        HttpResponse<String> again = http.get(host, port, "/prometheus?qry=" + URLEncoder.encode(query,
            StandardCharsets.UTF_8), TIMEOUT);
        if (again.statusCode() == 200) {
          values = parsePrometheus(again.body());
        }
      }
      if (query.equals(USERS_QUERY) && noUsers(values)) {
        // no user has metrics yet: all idle, or per-user metrics are off
        HttpResponse<String> users = http.get(host, port, "/prometheus?qry=users_num_users", TIMEOUT);
        if (users.statusCode() == 200 && parsePrometheus(users.body()).isEmpty()) {
          return Sample.failed("no per-user metrics: set hbase.regionserver.user.metrics.enabled=true");
        }
      }
      return new Sample(values, null, true);
    } catch (java.net.http.HttpTimeoutException e) {
      return Sample.silent("metrics unreadable (" + InfoServerHttp.describe(e) + ")");
    } catch (IOException e) {
      return Sample.failed("metrics unreadable (" + InfoServerHttp.describe(e) + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Sample.failed("interrupted");
    }
  }

  private static boolean noUsers(Map<String, Double> values) {
    return values.keySet().stream().noneMatch(k -> k.startsWith("users_"));
  }

  /** The cached {@code /jmx} beans, renamed as {@code /prometheus} names them. */
  private Sample fromJmx(String host, int port) throws IOException, InterruptedException {
    JsonNode users = bean(host, port, USERS_BEAN);
    if (users == null) {
      // HBase registers the per-user bean again when users come and go, and /jmx answers without it
      // meanwhile (seen on 2.6.4 while new users started): one more look before saying it is off
      Thread.sleep(JMX_RETRY.toMillis());
      users = bean(host, port, USERS_BEAN);
    }
    if (users == null) {
      return Sample.failed("no per-user metrics: set hbase.regionserver.user.metrics.enabled=true");
    }
    Map<String, Double> values = new HashMap<>();
    addBean(values, "Users", users);
    JsonNode server = bean(host, port, SERVER_BEAN);
    if (server != null) {
      addBean(values, "Server", server);
    }
    return new Sample(values, null, false);
  }

  /** A cached {@code /jmx} bean, renamed as {@code /prometheus} names its metrics. */
  private Sample fromJmxBean(String host, int port, String name, String record)
      throws IOException, InterruptedException {
    JsonNode b = bean(host, port, name);
    Map<String, Double> values = new HashMap<>();
    if (b != null) {
      addBean(values, record, b);
    }
    return new Sample(values, null, false);
  }

  private static void addBean(Map<String, Double> values, String record, JsonNode bean) {
    for (Iterator<Map.Entry<String, JsonNode>> it = bean.fields(); it.hasNext(); ) {
      var f = it.next();
      if (f.getValue().isNumber()) {
        values.merge(prometheusName(record, f.getKey()), f.getValue().asDouble(), Double::sum);
      }
    }
  }

  private JsonNode bean(String host, int port, String name) throws IOException, InterruptedException {
    HttpResponse<String> resp = http.get(host, port, "/jmx?qry=" + name.replace(",", "%2C").replace("=", "%3D")
        .replace(":", "%3A"), TIMEOUT);
    if (resp.statusCode() != 200) {
      throw new IOException("/jmx answered HTTP " + resp.statusCode());
    }
    JsonNode beans = JSON.readTree(resp.body()).path("beans");
    return beans.isArray() && !beans.isEmpty() ? beans.get(0) : null;
  }

  /** Prometheus text format: {@code name{labels} value} per line; comments skipped, repeated names added up. Pure. */
  static Map<String, Double> parsePrometheus(String text) {
    Map<String, Double> out = new HashMap<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.lastIndexOf(' ');
      if (space <= 0) {
        continue;
      }
      String name = (brace > 0 && brace < space ? line.substring(0, brace) : line.substring(0, space)).trim();
      try {
        out.merge(name, Double.parseDouble(line.substring(space + 1).trim()), Double::sum);
      } catch (NumberFormatException e) {
        // not a sample line
      }
    }
    return out;
  }

  /** The name HBase's {@code /prometheus} gives a metric of a record (source), as its servlet builds it. Pure. */
  static String prometheusName(String record, String metric) {
    String s = record + (metric.isEmpty() ? "" : Character.toUpperCase(metric.charAt(0)) + metric.substring(1));
    return String.join("_", WORDS.split(s)).toLowerCase(Locale.ROOT);
  }

  /** {@code _user_<u>_}: what both of a user's metric families contain. */
  static String userMarker(String user) {
    return prometheusName("", "_User_" + sanitize(user) + "_X").replaceAll("x$", "");
  }

  /**
   * The user's counters from one server's metrics: operations from {@code User_<u>_metric_<op>_num_ops}
   * and throttled requests from {@code RpcThrottlingException_Type_*_User_<u>_Table_*} (2.6.4+;
   * absent before, which reads as none). Throttled Gets are also recorded as Gets, so the
   * read-type throttles are reported as counted in ops. Pure.
   */
  static ServerCounters counters(Map<String, Double> values, String user, Set<String> ops) {
    String u = sanitize(user);
    long n = 0;
    for (String op : ops) {
      n += Math.round(values.getOrDefault(prometheusName("Users", "User_" + u + "_metric_" + op + "_num_ops"), 0.0));
    }
    String marker = userMarker(user) + "table_";
    long throttled = 0;
    long readThrottled = 0;
    for (var e : values.entrySet()) {
      String k = e.getKey();
      int at = k.indexOf(marker);
      if (k.startsWith(THROTTLE_PREFIX) && at > THROTTLE_PREFIX.length()) {
        long v = Math.round(e.getValue());
        throttled += v;
        String type = k.substring(THROTTLE_PREFIX.length(), at);
        if (ops.contains("get") && !type.startsWith("write") && !type.startsWith("num_write")
            && !type.startsWith("atomic")) {
          readThrottled += v;
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
