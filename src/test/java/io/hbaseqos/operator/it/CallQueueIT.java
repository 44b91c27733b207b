package io.hbaseqos.operator.it;

import static io.hbaseqos.operator.support.Resources.sheddable;
import static io.hbaseqos.operator.support.Resources.tenant;
import static io.hbaseqos.operator.support.Resources.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.QosSpec;
import io.hbaseqos.operator.api.QosStatus;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.TenantStatus;
import io.hbaseqos.operator.support.ycsb.TenantLoad;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Latency protection on a cluster whose tenants export nothing: a real standalone HBase 2.6.4 with
 * per-user metrics off and one handler, so that a batch tenant's YCSB scans queue behind each
 * other. The protected tenant's objective is the mean wait of a call in the RegionServer's call
 * queues (source {@code CallQueue}), read from the queue lengths and call counts HBase reports; the
 * squeeze is read back raw from {@code hbase:quota}.
 */
class CallQueueIT {
  static final int WINDOW_S = 10;
  /**
   * U's bound on a call's mean wait. On a fresh, loaded CI machine the one handler serves the quiet
   * server's calls (the operator's and this test's) slowly enough that a quiet period's wait measured
   * 0.5 ms and more (T was cut before its load began); T's scans measured 11.5 to 27.1 ms, and 0.00
   * ms once squeezed, so 2 ms leaves room both sides.
   */
  static final double BOUND_MS = 2;
  static KubernetesClient k8s;
  static OperatorHarness operator;
  static StandaloneHBase hbase;
  static final List<String> namespaces = new ArrayList<>();
  static java.util.Properties workload;

  @BeforeAll
  static void start() throws Exception {
    // one handler on the RegionServer, which tenants queue behind; the master keeps handlers of its own (it takes
    // the RegionServer's count when it sets none, and the RegionServer's first quota refresh, run in the one
    // handler, then waited on the master's one, busy creating the table: the load stalled 60 s, a call's timeout)
    hbase = new StandaloneHBase(Files.createTempDirectory("hbaseqos-hbase-queues"), Map.of(
        "hbase.regionserver.user.metrics.enabled", "false", "hbase.regionserver.handler.count", "1",
        "hbase.master.handler.count", "10"));
    hbase.start();
    workload = TenantLoad.readWorkload("queue_usertable", 1000);
    TenantLoad.load(hbase.clientConfiguration(), "loader", workload);
    k8s = KubeApi.client();
    operator = new OperatorHarness(k8s);
  }

  @AfterAll
  static void stop() {
    KubeApi.cleanUp(namespaces);
    if (operator != null) {
      operator.close();
    }
    if (hbase != null) {
      hbase.close();
    }
  }

  static QosStatus qos(String ns, String name) {
    return TenantStatus.qos(k8s, ns, name);
  }

  static Condition condition(String ns, String name, String type) {
    return TenantStatus.condition(k8s, ns, name, type);
  }

  /**
   * A wait for a state, polled once a second: with one handler every call of the test's own (a scan
   * of hbase:quota per poll) queues with the tenants' calls, and Awaitility's default of ten polls a
   * second would be most of the traffic of a quiet server.
   */
  static org.awaitility.core.ConditionFactory settled() {
    return await().ignoreException(NullPointerException.class).pollInterval(1, TimeUnit.SECONDS);
  }

  static Long rawLimit(String user) {
    return QuotaTableRaw.userLimit(hbase, user, "req_num");
  }

  @Test
  void callsQueuedBehindABatchTenantSqueezeItWithoutAnyPerUserMetric() throws Exception {
    String ns = KubeApi.namespaceWithCluster("qos-queue", hbase.connectionSpec(), "30s");
    namespaces.add(ns);
    String m = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    String t = "t-" + m;
    QosSpec.LatencyObjectiveSpec o = new QosSpec.LatencyObjectiveSpec();
    o.setSource(QosSpec.LatencyObjectiveSpec.Source.CallQueue);
    o.setOperations(QosSpec.LatencyObjectiveSpec.Operations.all);
    o.setStatistic(QosSpec.LatencyObjectiveSpec.Statistic.Mean);
    o.setBoundMillis(BOUND_MS);
    o.setWindow(WINDOW_S + "s");
    QosSpec q = new QosSpec();
    q.setPriority(100);
    q.setLatencyObjectives(new ArrayList<>(List.of(o)));
    TenantQuota ut = tenant(ns, "u", "hb", user("u-" + m));
    ut.getSpec().setQos(q);
    TenantQuota tt = tenant(ns, "t", "hb", user(t));
    tt.getSpec().setQos(sheddable(10, 20, 1500));
    k8s.resource(ut).create();
    k8s.resource(tt).create();

    // the names the source reads, as this HBase serves them (its RPC metrics appear a few seconds after it starts)
    java.util.concurrent.atomic.AtomicReference<String> names = new java.util.concurrent.atomic.AtomicReference<>("");
    settled().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      names.set(hbase.regionServerPrometheus("queue"));
      assertThat(names.get()).contains("region_server_num_calls_in_general_queue{",
          "region_server_num_calls_in_priority_queue{", "region_server_queue_call_time_num_ops{");
    });
    System.out.println("call queue IT: " + names.get().lines().filter(l -> l.startsWith("region_server_num_calls_in")
        || l.startsWith("region_server_queue_call_time_num_ops")).map(l -> l.substring(0, l.indexOf('{')))
        .toList());

    // quiet: nothing waits in the queues, T is free at its ceiling
    settled().atMost(6L * WINDOW_S, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(rawLimit(t)).isEqualTo(1500L);
      assertThat(qos(ns, "u").getObjectives().get(0).getVerdict()).isIn("Met", "MetWithMargin");
      assertThat(qos(ns, "t").getState()).isEqualTo("Free");
    });
    assertThat(qos(ns, "u").getObjectives().get(0).getObjective()).isEqualTo("call queue wait mean <= 2ms");

    // T's 16 threads of long scans queue behind the one handler: U's objective is missed and T is squeezed in HBase
    java.util.Properties scans = new java.util.Properties();
    scans.putAll(workload);
    scans.setProperty("readproportion", "0");
    scans.setProperty("scanproportion", "1");
    scans.setProperty("maxscanlength", "1000");
    scans.setProperty("minscanlength", "500");
    try (TenantLoad tLoad = TenantLoad.start(hbase.clientConfiguration(), t, scans, 16)) {
      settled().atMost(6L * WINDOW_S, TimeUnit.SECONDS).untilAsserted(() -> {
        assertThat(rawLimit(t)).isLessThan(1500L).isGreaterThanOrEqualTo(20L);
        assertThat(qos(ns, "t").getState()).isIn("Squeezed", "Held");
      });
      QosStatus squeezed = qos(ns, "t");
      System.out.printf(Locale.ROOT, "call queue IT: squeezed T to %d req/sec (%s); U: %s%n", squeezed.getLimit(),
          squeezed.getMessage(), condition(ns, "u", "LatencyObjectivesMet").getMessage());
      assertThat(squeezed.getHeldBy()).containsExactly(ns + "/u");
      assertThat(rawLimit(t)).as("status says what HBase holds").isEqualTo(squeezed.getLimit());
      assertThat(KubeApi.eventReasons(ns, "u")).contains("Missed");
      assertThat(KubeApi.eventReasons(ns, "t")).contains("Squeezed");
      // a restarted operator keeps what HBase holds: its first reading of the queues only starts a period, so its
      // first plan writes nothing
      Map<String, String> raw = QuotaTableRaw.read(hbase, m);
      operator = operator.restarted();
      settled().atMost(6L * WINDOW_S, TimeUnit.SECONDS).untilAsserted(() ->
          assertThat(condition(ns, "u", "LatencyObjectivesMet").getMessage()).contains("call queues' first reading"));
      assertThat(operator.hbaseCalls(ClusterConnections.key(ns, "hb"), "setQuota")).as("a restarted operator's first "
          + "plan writes nothing").isZero();
      assertThat(QuotaTableRaw.read(hbase, m)).isEqualTo(raw);
      assertThat(qos(ns, "t").getLimit()).isEqualTo(rawLimit(t));
      // held below the rate its scans ran at (about 1,850 calls/s here at its ceiling of 1,500), T's calls queue
      // less: U's objective is met again while T works
      settled().atMost(12L * WINDOW_S, TimeUnit.SECONDS).untilAsserted(() -> {
        assertThat(qos(ns, "u").getObjectives().get(0).getVerdict()).isIn("Met", "MetWithMargin");
        assertThat(rawLimit(t)).isLessThan(1500L);
      });
      System.out.printf(Locale.ROOT, "call queue IT: met while T works at %d req/sec: %s%n", rawLimit(t),
          condition(ns, "u", "LatencyObjectivesMet").getMessage());
      assertThat(tLoad.ok()).as("T did real work").isPositive();
    }
    // T stops: nothing waits in the queues, U's objective is met
    settled().atMost(6L * WINDOW_S, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(qos(ns, "u").getObjectives().get(0).getVerdict()).isIn("Met", "MetWithMargin"));
    System.out.printf(Locale.ROOT, "call queue IT: met again with T stopped, T at %d req/sec: %s%n", rawLimit(t),
        condition(ns, "u", "LatencyObjectivesMet").getMessage());
  }
}
