package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.Kubectl;
import io.hbaseqos.operator.support.PrometheusServer;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.RealNode;
import io.hbaseqos.operator.support.Resources;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The chart installed by the real helm onto a real node (hack/node.sh), with the operator image
 * hack/images.sh builds from src/main/docker/Dockerfile.jvm: the operator runs as a pod under the
 * chart's ServiceAccount, securityContext (user 185, read-only root filesystem) and probes, holds
 * the leader Lease, is scraped through the chart's Service, and reconciles TenantQuotas into an
 * HBase that itself runs as a pod from the project's HBase image. Killing its pod, a new one
 * takes over and nothing is lost.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodeHelmE2E {
  static final String RELEASE_NS = RealNode.OPERATOR_NS;
  static final String NAME = "hbq-hbase-qos-operator";
  static final String HBASE_NS = "hbase";
  static final String TENANT_NS = "tenants";
  static final String USER = "realnode-alice";
  static KubernetesClient k8s;
  static Connection hbase;

  @BeforeAll
  static void install() throws Exception {
    k8s = RealNode.client();
    RealNode.installOperator();
    RealNode.createNamespaceWith(HBASE_NS, "hbase-standalone.yaml");
    Kubectl.Result hbaseReady = RealNode.kubectl("-n", HBASE_NS, "wait", "--for=condition=Ready", "pod/hbase-0",
        "--timeout=180s");
    assertThat(hbaseReady.exit()).as(() -> hbaseReady.output() + RealNode.podReport(HBASE_NS)).isZero();
    // the test JVM reads hbase:quota raw; the HBase pod advertises its IP, which the host routes to
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", k8s.pods().inNamespace(HBASE_NS).withName("hbase-0").get().getStatus().getPodIP());
    conf.set("hbase.zookeeper.property.clientPort", "2181");
    conf.set("hbase.client.retries.number", "10");
    hbase = ConnectionFactory.createConnection(conf);
    // the pod is Ready when its RegionServer listens; hbase:quota is created a little later
    await().atMost(180, TimeUnit.SECONDS).ignoreExceptions().until(() -> {
      try (var admin = hbase.getAdmin()) {
        return admin.isTableAvailable(org.apache.hadoop.hbase.TableName.valueOf("hbase", "quota"));
      }
    });
    Kubectl.Result r = RealNode.kubectl("create", "namespace", TENANT_NS);
    assertThat(r.exit()).as(r.output()).isZero();
  }

  @AfterAll
  static void close() throws Exception {
    if (hbase != null) {
      hbase.close();
    }
    RealNode.down(); // nothing of the node stays running beside the other suites
  }

  @Test
  @Order(1)
  void operatorPodRunsUnderTheChartsIdentityAndSecurityContextAndHoldsTheLease() {
    Pod pod = operatorPod();
    assertThat(pod.getSpec().getServiceAccountName()).isEqualTo(NAME);
    Container c = pod.getSpec().getContainers().get(0);
    assertThat(c.getImage()).isEqualTo("ghcr.io/hbase-qos-operator/hbase-qos-operator:0.1.0");
    assertThat(c.getLivenessProbe()).isNotNull();
    assertThat(c.getReadinessProbe()).isNotNull();
    assertThat(c.getStartupProbe()).isNotNull();
    // the probes passed on the real kubelet: started, ready, never restarted
    var status = pod.getStatus().getContainerStatuses().get(0);
    assertThat(status.getReady()).isTrue();
    assertThat(status.getStarted()).isTrue();
    assertThat(status.getRestartCount()).isZero();
    // the running process: user 185, and the root filesystem refuses writes (only /tmp is writable)
    String name = pod.getMetadata().getName();
    assertThat(exec(name, "id", "-u").output().trim()).isEqualTo("185");
    Kubectl.Result write = exec(name, "sh", "-c", "touch /deployments/probe");
    assertThat(write.exit()).as(write.output()).isNotZero();
    assertThat(write.output()).contains("Read-only file system");
    assertThat(exec(name, "sh", "-c", "touch /tmp/probe && echo ok").output().trim()).isEqualTo("ok");
    // the token it runs with is the chart's ServiceAccount's, and RBAC lets it hold its Lease
    assertThat(exec(name, "cat", "/var/run/secrets/kubernetes.io/serviceaccount/namespace").output().trim())
        .isEqualTo(RELEASE_NS);
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> assertThat(leaseHolder()).isEqualTo(name));
  }

  @Test
  @Order(2)
  void prometheusScrapesTheOperatorThroughTheChartsService() throws Exception {
    String clusterIp = k8s.services().inNamespace(RELEASE_NS).withName(NAME).get().getSpec().getClusterIP();
    try (PrometheusServer prom = PrometheusServer.scraping("hbase-qos-operator", clusterIp + ":8080", "/q/metrics")) {
      await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
        assertThat(query(prom, "up{job=\"hbase-qos-operator\"}")).contains("\"1\"");
        assertThat(query(prom, "count(jvm_memory_used_bytes{job=\"hbase-qos-operator\"})")).contains("\"value\"");
      });
    }
  }

  @Test
  @Order(3)
  void reconcilesTenantQuotasIntoHBaseAndANewPodTakesOverWhenItsPodIsKilled() {
    ConnectionSpec conn = new ConnectionSpec();
    conn.setZookeeperQuorum("hbase-0.hbase." + HBASE_NS + ".svc.cluster.local:2181");
    k8s.resource(Resources.cluster(TENANT_NS, "hb", conn, "10s")).create();
    k8s.resource(Resources.tenant(TENANT_NS, "alice", "hb", Resources.user(USER),
        Resources.t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    await().atMost(120, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(QuotaTableRaw.read(hbase)).containsEntry("u." + USER + " q:s", "req_num=100/SECONDS"));
    await().atMost(60, TimeUnit.SECONDS).until(() -> ready(k8s.resources(TenantQuota.class).inNamespace(TENANT_NS)
        .withName("alice").get()));

    String old = operatorPod().getMetadata().getName();
    Kubectl.Result kill = RealNode.kubectl("-n", RELEASE_NS, "delete", "pod", old, "--grace-period=0", "--force");
    assertThat(kill.exit()).as(kill.output()).isZero();
    // the Deployment starts another pod, which takes the Lease over and reconciles from there on
    await().atMost(180, TimeUnit.SECONDS).untilAsserted(() -> {
      Pod p = operatorPod();
      assertThat(p.getMetadata().getName()).isNotEqualTo(old);
      assertThat(leaseHolder()).isEqualTo(p.getMetadata().getName());
    });
    assertThat(QuotaTableRaw.read(hbase)).containsEntry("u." + USER + " q:s", "req_num=100/SECONDS");
    Resources.edit(k8s, TenantQuota.class, TENANT_NS, "alice", t -> t.getSpec().getThrottles().get(0).setLimit("250req/sec"));
    await().atMost(120, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(QuotaTableRaw.read(hbase)).containsEntry("u." + USER + " q:s", "req_num=250/SECONDS"));
    // deletion removes the quota from HBase (the new pod runs the finalizer)
    k8s.resources(TenantQuota.class).inNamespace(TENANT_NS).withName("alice").delete();
    await().atMost(120, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(QuotaTableRaw.read(hbase)).doesNotContainKey("u." + USER + " q:s"));
  }

  static boolean ready(TenantQuota t) {
    return t != null && t.getStatus() != null
        && t.getStatus().condition("Ready").map(c -> "True".equals(c.getStatus())).orElse(false);
  }

  static Pod operatorPod() {
    List<Pod> pods = k8s.pods().inNamespace(RELEASE_NS).withLabel("app.kubernetes.io/name", "hbase-qos-operator")
        .list().getItems().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> p.getStatus().getContainerStatuses() != null && !p.getStatus().getContainerStatuses().isEmpty()
            && Boolean.TRUE.equals(p.getStatus().getContainerStatuses().get(0).getReady()))
        .toList();
    assertThat(pods).as(() -> RealNode.podReport(RELEASE_NS)).hasSize(1);
    return pods.get(0);
  }

  static String leaseHolder() {
    Lease l = k8s.leases().inNamespace(RELEASE_NS).withName(NAME).get();
    return l == null ? null : l.getSpec().getHolderIdentity();
  }

  static Kubectl.Result exec(String pod, String... cmd) {
    List<String> args = new java.util.ArrayList<>(List.of("-n", RELEASE_NS, "exec", pod, "--"));
    args.addAll(List.of(cmd));
    return RealNode.kubectl(args.toArray(String[]::new));
  }

  static String query(PrometheusServer prom, String q) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(prom.url + "/api/v1/query?query="
        + URLEncoder.encode(q, StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString()).body();
  }


}
