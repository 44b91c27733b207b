package io.hbaseqos.operator.hbase;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * Takes samples of every live RegionServer's metrics ({@link MetricsSample}): every user's
 * operation counters and latency histograms, the 2.6.4 per-user throttling-exception counters,
 * the block cache and every table's, for calibration, usage and latency protection alike.
 *
 * <p>From {@code /prometheus}, which samples every metrics source when asked, so a reading is the
 * counters at the moment it is taken. {@code /jmx} answers from a cache that the metrics system
 * refreshes every period (10 s), so its counters lag by up to that long (measured on HBase 2.6.4
 * under load: 50,000 Gets, about 5 s, behind {@code /prometheus} read just before): a loop reading
 * it attributes one limit's operations to the next. {@code /jmx} is read only where
 * {@code /prometheus} is not served (404).
 *
 * <p>A read resets every histogram of the server, whoever it was for: the cluster's gateway takes
 * one sample per period for all readers, and the windows samples take between two judgements of
 * latencies are handed to the next ({@link UsersMetrics#taken()}), which then tells the operator's
 * own reads from another reader's. Each server is read with a short timeout, all in parallel,
 * behind a breaker per server.
 */
final class RegionServerMetrics {
  static final Duration TIMEOUT = Duration.ofMillis(2000);
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
  /**
   * What the call queues' lengths ({@code region_server_num_calls_in_<queue>_queue}, gauges) and the
   * count of calls taken from them ({@code region_server_queue_call_time_num_ops}, cumulative) have in
   * their names.
   */
  static final String QUEUES_QUERY = "queue";
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
  /** The samples taken so far (each one's number). */
  private long taken;
  /** How long after a judgement of latencies other samples keep their windows for the next one. */
  static final Duration LATENCY_READER = Duration.ofMinutes(10);
  /** When the sample latencies were last judged on was taken (null: never). */
  private Instant lastLatencyRead;
  /** The number of the last sample latencies were judged on (its windows and those before are handed over). */
  private long latencySample;
  /** What that judgement answered (judged again, the same sample gives the same answer). */
  private UsersMetrics lastJudgement;
  /** The time between the last two samples latencies were judged on (null: fewer than two). */
  private Duration latencyEvery;
  /** How many of the latest samples are kept whole, so that a judgement hands over exactly what came before it. */
  static final int RECENT = 4;
  /** The latest samples taken since the last judged one, whose windows go to the next judgement (oldest first). */
  private final java.util.Deque<MetricsSample> recent = new java.util.ArrayDeque<>();
  /** Per server: the windows of the older such samples, which left {@link #recent}, merged. */
  private final Map<String, Map<String, Double>> older = new HashMap<>();

  RegionServerMetrics(InfoServerHttp http, Clock clock, Executor pool) {
    this.http = http;
    this.clock = clock;
    this.pool = pool;
    this.breakers = new InfoPortBreakers(clock);
  }

  /**
   * One sample of every server, for every reader: every user's metrics first (their request is what
   * resets the histograms, so they hold the window since the server's previous sample), then with
   * {@code cache} the block cache and with {@code tables} every table's (what usage needs besides),
   * and with {@code queues} the call queues' lengths and call counts (a gauge and a counter: no
   * histogram of theirs is judged, so the request's place after the users' resets nothing anyone
   * needs); each a request per server, all servers in parallel, each within a short timeout. A
   * server that cannot be read is named in the sample.
   *
   * @param servers server name to host and info port
   */
  MetricsSample read(Map<String, Map.Entry<String, Integer>> servers, boolean cache, boolean tables,
      boolean queues) {
    // the reads run outside the lock (one thread per cluster reads): a judgement never waits for a server
    Instant at = clock.instant();
    Map<String, Sample> users = readAll(servers, USERS_QUERY);
    // the queues' own moment: the users' read may take seconds (a retry, a slow server)
    Instant queuesAt = clock.instant();
    Map<String, Sample> callQueues = queues ? readAll(servers, QUEUES_QUERY) : null;
    Map<String, Sample> byTable = tables ? readAll(servers, TABLES_QUERY) : Map.of();
    Map<String, Sample> blockCache = cache ? readAll(servers, CACHE_QUERY) : Map.of();
    return recorded(at, users, byTable, blockCache, cache, tables, callQueues, queuesAt);
  }

  /** A sample numbered, and kept for the next judgement of latencies while latencies are judged. */
  private synchronized MetricsSample recorded(Instant at, Map<String, Sample> users, Map<String, Sample> byTable,
      Map<String, Sample> blockCache, boolean cache, boolean tables, Map<String, Sample> queues, Instant queuesAt) {
    MetricsSample s = new MetricsSample(++taken, at, users, byTable, blockCache, cache, tables, queues, queuesAt);
    if (judging(at)) {
      keep(s);
    } else {
      // nobody judges latencies: nothing to hand over
      recent.clear();
      older.clear();
    }
    return s;
  }

  /** Keeps a sample's windows for the next judgement: whole among the latest, merged once older. */
  private void keep(MetricsSample s) {
    recent.addLast(s);
    while (recent.size() > RECENT) {
      MetricsSample out = recent.removeFirst();
      mergeWindows(older, out);
    }
  }

  /**
   * Whether latencies are being judged: a sample judged within three of the judge's own intervals,
   * and at least {@link #LATENCY_READER}, before {@code at}.
   */
  private boolean judging(Instant at) {
    Duration patience = latencyEvery == null || latencyEvery.multipliedBy(3).compareTo(LATENCY_READER) < 0
        ? LATENCY_READER : latencyEvery.multipliedBy(3);
    return lastLatencyRead != null && !lastLatencyRead.plus(patience).isBefore(at);
  }

  /** Adds a sample's histogram windows (from the servers that answered over /prometheus) to {@code into}. */
  private static void mergeWindows(Map<String, Map<String, Double>> into, MetricsSample s) {
    s.users.forEach((server, sample) -> {
      if (sample.values() != null && sample.sampled()) {
        mergeWindows(into.computeIfAbsent(server, x -> new HashMap<>()), sample.values());
      }
    });
  }

  /** Adds one server's histogram windows to {@code into}. */
  private static void mergeWindows(Map<String, Double> into, Map<String, Double> values) {
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
   * A sample's users' metrics for judging latencies: its histograms (the window since the sample
   * before it) with the windows the samples between the last judged one and this one took. HBase
   * snapshots and resets a server's histograms on each read, so every sample takes a window; those
   * taken in between are handed over once, and those of samples taken after this one go to the next
   * judgement. Judging the same sample again gives the same answer; a sample older than the last
   * judged one is judged alone.
   *
   * <p>Exact while fewer than {@link #RECENT} samples were taken after this one before it is
   * judged (the judgement follows the sample's wake, and samples are a period apart); beyond that,
   * this one's own window is also handed over (its operations counted twice), and the windows of
   * the samples between are handed over now and lost to the next judgement.
   *
   * @throws MetricsUnavailableException naming the first server that could not be read or answered
   *     from {@code /jmx} (whose histograms cannot be judged per period); what the servers that
   *     answered took goes to the next judgement
   */
  synchronized UsersMetrics latencies(MetricsSample sample) throws IOException {
    if (sample.seq == latencySample && lastJudgement != null) {
      return lastJudgement;
    }
    boolean first = sample.seq > latencySample;
    if (first && (lastLatencyRead == null || sample.at().isAfter(lastLatencyRead))) {
      latencyEvery = lastLatencyRead == null ? null : Duration.between(lastLatencyRead, sample.at());
      lastLatencyRead = sample.at();
    }
    Map<String, Map<String, Double>> out = new LinkedHashMap<>();
    for (var e : sample.users.entrySet()) {
      Sample s = e.getValue();
      String problem = s.problem() != null ? s.problem() : !s.sampled() ? "does not serve /prometheus: its /jmx "
          + "histograms are reset by whoever reads them and cannot be judged per period" : null;
      if (problem != null) {
        if (first && sample.seq == taken && !recent.contains(sample)) {
          keep(sample); // taken before anyone judged latencies: its windows belong to the next judgement
        }
        throw new MetricsUnavailableException("RegionServer " + e.getKey() + (s.problem() != null ? ": " : " ")
            + problem);
      }
      out.put(e.getKey(), s.values());
    }
    if (!first) {
      return new UsersMetrics(out, Map.of(), sample.at());
    }
    // handed over: the older samples' windows and those of the latest taken before this one
    Map<String, Map<String, Double>> before = new HashMap<>();
    older.forEach((server, w) -> before.put(server, new HashMap<>(w)));
    for (MetricsSample r : recent) {
      if (r.seq < sample.seq) {
        mergeWindows(before, r);
      }
    }
    before.keySet().retainAll(out.keySet());
    older.clear();
    recent.removeIf(r -> r.seq <= sample.seq);
    latencySample = sample.seq;
    lastJudgement = new UsersMetrics(out, before, sample.at());
    return lastJudgement;
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
            // /jmx's cached gauge and counter lag by up to the metrics period: not a rate over a period
            : query.equals(QUEUES_QUERY) ? Sample.failed("does not serve /prometheus: its /jmx call queue metrics lag "
                + "by up to the metrics period")
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
   * read-type throttles are reported as counted in ops, at most as many as the Gets: a refused scan
   * is recorded as one Get (measured on 2.6.4), not as a scan, and the throttling counters do not say
   * which operation was refused.
   * Pure.
   */
  static ServerCounters counters(Map<String, Double> values, String user, Set<String> ops) {
    String u = sanitize(user);
    long n = 0;
    long gets = 0;
    for (String op : ops) {
      long c = Math.round(values.getOrDefault(prometheusName("Users", "User_" + u + "_metric_" + op + "_num_ops"), 0.0));
      n += c;
      gets += "get".equals(op) ? c : 0;
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
    return new ServerCounters(n, throttled, GET_RECORDS_PER_THROTTLE * readThrottled, gets);
  }

  /** HBase's metric names replace these characters of a user name with '_'. */
  static String sanitize(String user) {
    return user.replaceAll("[,=:*?\"\\n]", "_");
  }
}
