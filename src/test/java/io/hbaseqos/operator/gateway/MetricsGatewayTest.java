package io.hbaseqos.operator.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.hbaseqos.operator.hbase.InfoServers;
import io.hbaseqos.operator.hbase.MetricsUnavailableException;
import io.hbaseqos.operator.hbase.ServersSample;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tenants' usage samples are taken on the cluster's sampler, like the loops' readings: whoever
 * asks (the resync pass) never waits for an info server, and is woken when the sample is there.
 * One sample per period serves calibration, latency protection and usage alike. Against an HTTP
 * server on a local port that answers only when the test lets it.
 */
class MetricsGatewayTest {
  final CountDownLatch answer = new CountDownLatch(1);
  final List<String> requests = new CopyOnWriteArrayList<>();
  /** Each request's query, in order. */
  final List<String> queries = new CopyOnWriteArrayList<>();
  HttpServer server;
  MetricsGateway gateway;

  @AfterEach
  void stop() {
    answer.countDown();
    if (gateway != null) {
      gateway.close();
    }
    if (server != null) {
      server.stop(0);
    }
  }

  /** The sampler's clock (a sample's age and the next read's moment go by it); the samples carry the machine's time. */
  io.hbaseqos.operator.support.SettableClock clock = new io.hbaseqos.operator.support.SettableClock(
      java.time.Instant.now());

  private void start(boolean answers) throws Exception {
    start(answers, clock);
  }

  private void start(boolean answers, Clock samplerClock) throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext("/", ex -> {
      requests.add(ex.getRequestURI().getPath() + " " + Thread.currentThread().getName());
      queries.add(String.valueOf(ex.getRequestURI().getQuery()));
      try {
        if (!answers) {
          Thread.sleep(60_000); // a hung port: accepts, never answers
        }
        answer.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      String q = java.net.URLDecoder.decode(String.valueOf(ex.getRequestURI().getRawQuery()), StandardCharsets.UTF_8);
      String body = q.equals("qry=_user_")
          ? "users_user_alice_metric_get_num_ops{context=\"regionserver\"} 120\n"
          : q.equals("qry=server_block_cache")
              ? "server_block_cache_hit_count{context=\"regionserver\"} 30\n"
              : q.equals("qry=queue") ? "region_server_num_calls_in_general_queue{context=\"regionserver\"} 4\n"
                  + "region_server_queue_call_time_num_ops{context=\"regionserver\"} 900\n" : "";
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    server.start();
    int port = server.getAddress().getPort();
    gateway = new MetricsGateway(new Object(), new Object(), new InfoServers(false, Clock.systemUTC()),
        () -> Map.of("rs1", Map.entry("127.0.0.1", port)), null, samplerClock, "test");
  }

  @Test
  void aUsageSampleIsTakenOnTheSamplerAndServesWhoeverAsksWithinItsPeriod() throws Exception {
    start(true);
    CountDownLatch woken = new CountDownLatch(1);
    // the server answers nothing until the test lets it: returning at all proves the caller did not wait
    assertThatThrownBy(() -> gateway.usageSample(false, woken::countDown)).isInstanceOf(MetricsPendingException.class);
    assertThat(woken.getCount()).isEqualTo(1);
    answer.countDown();
    assertThat(woken.await(60, TimeUnit.SECONDS)).as("woken once the sample is there").isTrue();
    ServersSample sample = gateway.usageSample(false, null);
    assertThat(sample.servers().get("rs1")).containsEntry("users_user_alice_metric_get_num_ops", 120.0)
        .containsEntry("server_block_cache_hit_count", 30.0);
    int read = requests.size();
    assertThat(requests).allMatch(r -> r.startsWith("/prometheus"));
    // asked again within its period (the wake's own pass, another cluster pass): the same sample, no request
    assertThat(gateway.usageSample(false, null)).isEqualTo(sample);
    assertThat(requests).hasSize(read);
  }

  /**
   * The call queues are read into the cluster's sample once someone asks for them, with the users'
   * metrics and after them: one request more per server, and the loops' sample serves both.
   */
  @Test
  void theCallQueuesAreReadIntoTheSampleOnceAskedFor() throws Exception {
    start(true);
    answer.countDown();
    CountDownLatch woken = new CountDownLatch(1);
    assertThatThrownBy(() -> gateway.allUserMetrics(null)).isInstanceOf(MetricsPendingException.class);
    await(() -> gateway.allUserMetrics(null) != null);
    assertThat(requests).hasSize(1).allMatch(r -> r.startsWith("/prometheus"));
    // that sample has no queues: the next one reads them, a period later
    assertThatThrownBy(() -> gateway.waking(woken::countDown).callQueues(null))
        .isInstanceOf(MetricsPendingException.class);
    clock.now = clock.now.plusSeconds(5);
    assertThat(woken.await(60, TimeUnit.SECONDS)).isTrue();
    io.hbaseqos.operator.hbase.CallQueues q = gateway.callQueues(null);
    assertThat(q.servers().get("rs1")).isEqualTo(new io.hbaseqos.operator.hbase.CallQueues.Server(4, 900, null));
    assertThat(queries).as("users, then users and queues").containsExactly("qry=_user_", "qry=_user_", "qry=queue");
    // the same sample serves the users' metrics: no request more
    assertThat(io.hbaseqos.operator.hbase.SampledCounters.of(gateway.allUserMetrics(null), "alice",
        java.util.Set.of("get")).servers().get("rs1").succeeded()).isEqualTo(120L);
    assertThat(requests).hasSize(3);
  }

  private static void await(java.util.concurrent.Callable<Boolean> done) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        if (done.call()) {
          return;
        }
      } catch (MetricsPendingException e) {
        // not there yet
      }
      if (System.nanoTime() > end) {
        throw new AssertionError("not there within 60 s");
      }
      Thread.sleep(20);
    }
  }

  /**
   * A sample whose read took longer than the period still serves the asker it woke (the resync
   * pass's wake takes the last sample, not one at most 5 s old, which would start another read and
   * never record one). Asked afresh, it is too old and is read again.
   */
  @Test
  void aSampleSlowerThanItsPeriodStillServesTheAskerItWoke() throws Exception {
    start(true);
    CountDownLatch woken = new CountDownLatch(1);
    assertThatThrownBy(() -> gateway.usageSample(false, woken::countDown)).isInstanceOf(MetricsPendingException.class);
    assertThat(gateway.lastUsageSample(false, null)).as("nothing while the read runs").isNull();
    answer.countDown();
    assertThat(woken.await(60, TimeUnit.SECONDS)).isTrue();
    clock.now = clock.now.plusSeconds(30); // as if the read had taken 30 s
    ServersSample woke = gateway.lastUsageSample(false, null);
    assertThat(woke.servers().get("rs1")).containsEntry("users_user_alice_metric_get_num_ops", 120.0);
    assertThatThrownBy(() -> gateway.usageSample(false, null)).as("a new asker wants a fresh one")
        .isInstanceOf(MetricsPendingException.class);
  }

  @Test
  void aHungInfoPortDelaysOnlyTheSampleAndEndsAsItsAskersMetricsUnavailable() throws Exception {
    start(false);
    CountDownLatch woken = new CountDownLatch(1);
    assertThatThrownBy(() -> gateway.usageSample(false, woken::countDown)).isInstanceOf(MetricsPendingException.class);
    // asked again while it is read: still pending, one read in flight, not a second one
    assertThatThrownBy(() -> gateway.usageSample(false, null)).isInstanceOf(MetricsPendingException.class);
    assertThat(woken.await(60, TimeUnit.SECONDS)).as("woken when the read gave up on the port").isTrue();
    assertThatThrownBy(() -> gateway.usageSample(false, null)).isInstanceOf(MetricsUnavailableException.class)
        .isNotInstanceOf(MetricsPendingException.class).hasMessageContaining("rs1");
    assertThatThrownBy(() -> gateway.lastUsageSample(false, null)).as("the woken asker is told the same")
        .isInstanceOf(MetricsUnavailableException.class).hasMessageContaining("rs1");
    assertThat(requests).as("one request to the hung port, not one per asker").hasSize(1);
  }

  /**
   * Calibration's counters, latency protection's histograms and every tenant's usage come from the
   * same sample: one request per server for the users' metrics and, as usage asked, one for the
   * block cache, whoever reads. A sample the loops alone ask for reads only the users' metrics.
   */
  @Test
  void oneSampleServesCalibrationProtectionAndUsage() throws Exception {
    start(true, Clock.systemUTC());
    answer.countDown();
    CountDownLatch woken = new CountDownLatch(1);
    assertThatThrownBy(() -> gateway.usageSample(false, woken::countDown)).isInstanceOf(MetricsPendingException.class);
    assertThat(woken.await(60, TimeUnit.SECONDS)).isTrue();
    ServersSample usage = gateway.usageSample(false, null);
    var counters = gateway.userCounters("alice", java.util.Set.of("get"), null);
    var latencies = gateway.allUserMetrics(null);
    assertThat(counters.servers().get("rs1").ops()).isEqualTo(120);
    assertThat(latencies.at()).isEqualTo(counters.at()).isEqualTo(usage.at());
    assertThat(latencies.histogramOps("alice", java.util.Set.of("get"))).isEqualTo(120);
    assertThat(usage.servers().get("rs1")).containsEntry("server_block_cache_hit_count", 30.0);
    assertThat(requests).as("users and block cache, once for all three readers").hasSize(2);

    // the loops want a later sample: the users' metrics alone, a period later
    CountDownLatch next = new CountDownLatch(1);
    java.time.Instant after = counters.at().plusNanos(1);
    assertThatThrownBy(() -> gateway.waking(next::countDown).allUserMetrics(after))
        .isInstanceOf(MetricsPendingException.class);
    assertThat(next.await(60, TimeUnit.SECONDS)).isTrue();
    assertThat(gateway.userCounters("alice", java.util.Set.of("get"), after).at()).isAfter(counters.at());
    assertThat(requests).as("one more request: the users' metrics").hasSize(3);
    // usage woken by that sample finds it lacks the block cache: the next sample reads it, and wakes usage again
    CountDownLatch usageWoken = new CountDownLatch(1);
    assertThatThrownBy(() -> gateway.lastUsageSample(false, usageWoken::countDown))
        .isInstanceOf(MetricsPendingException.class);
    assertThat(usageWoken.await(60, TimeUnit.SECONDS)).isTrue();
    assertThat(gateway.lastUsageSample(false, null).servers().get("rs1"))
        .containsEntry("server_block_cache_hit_count", 30.0);
    assertThat(requests).as("then users and block cache").hasSize(5);
  }

  /**
   * Readers that need a sample taken after the last one (calibration after a quota write, protection
   * at its period's end) wait for the next period's sample, which serves them all: however many ask,
   * the server is read once per period.
   */
  @Test
  void readersWantingALaterSampleShareTheNextPeriodsOne() throws Exception {
    start(true, Clock.systemUTC());
    answer.countDown();
    CountDownLatch first = new CountDownLatch(1);
    assertThatThrownBy(() -> gateway.waking(first::countDown).userCounters("alice", java.util.Set.of("get"), null))
        .isInstanceOf(MetricsPendingException.class);
    assertThat(first.await(60, TimeUnit.SECONDS)).isTrue();
    java.time.Instant taken = gateway.userCounters("alice", java.util.Set.of("get"), null).at();
    assertThat(requests).as("the users' metrics").hasSize(1);
    // ten readers, each wanting a sample after its own moment
    CountDownLatch next = new CountDownLatch(10);
    for (int i = 0; i < 10; i++) {
      java.time.Instant after = java.time.Instant.now();
      ClusterMetrics reader = gateway.waking(next::countDown);
      if (i % 2 == 0) {
        assertThatThrownBy(() -> reader.allUserMetrics(after)).isInstanceOf(MetricsPendingException.class);
      } else {
        assertThatThrownBy(() -> reader.userCounters("alice", java.util.Set.of("get"), after))
            .isInstanceOf(MetricsPendingException.class);
      }
    }
    assertThat(requests).as("not read again before its period").hasSize(1);
    assertThat(next.await(60, TimeUnit.SECONDS)).as("every reader woken by the next sample").isTrue();
    var again = gateway.userCounters("alice", java.util.Set.of("get"), taken.plusNanos(1));
    // (the timer runs on System.nanoTime, the sample's moment on the wall clock: they may differ by a little)
    assertThat(again.at()).as("a period after the first").isAfterOrEqualTo(taken.plus(MetricsGateway.PERIOD)
        .minusMillis(50));
    assertThat(requests).as("one more sample for all ten").hasSize(2);
  }
}
