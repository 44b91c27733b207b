package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.HBaseContainer;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.StandaloneHBase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.PullPolicy;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * The Testcontainers tier: HBase and the operator started by Testcontainers from the project's
 * images (never pulled: hack/images.sh or {@code docker build} makes them), the operator
 * reconciling TenantQuotas from the test API server into that HBase. It runs with
 * {@code ./mvnw verify -Ptestcontainers} against a Docker engine, or through podman's
 * Docker-compatible API with hack/testcontainers.sh; not in the default run.
 */
@Tag("testcontainers")
class ContainersIT {
  static final String OPERATOR_IMAGE = "ghcr.io/hbase-qos-operator/hbase-qos-operator:0.1.0";
  static HBaseContainer hbase;
  static GenericContainer<?> operator;
  static Connection connection;
  static KubernetesClient k8s;
  static int httpPort;

  @BeforeAll
  static void start() throws Exception {
    hbase = new HBaseContainer();
    hbase.start();
    connection = ConnectionFactory.createConnection(hbase.clientConfiguration());
    await().atMost(120, TimeUnit.SECONDS).ignoreExceptions().until(() -> {
      try (var admin = connection.getAdmin()) {
        return admin.isTableAvailable(TableName.valueOf("hbase", "quota"));
      }
    });
    k8s = KubeApi.client();
    httpPort = StandaloneHBase.freePort();
    // on the host's network, as HBase is: the test API server listens on the host's loopback
    operator = new GenericContainer<>(DockerImageName.parse(OPERATOR_IMAGE))
        .withImagePullPolicy(PullPolicy.defaultPolicy())
        .withNetworkMode("host")
        .withCopyToContainer(Transferable.of(KubeApi.selfContainedKubeconfig(), 0644), "/tmp/kubeconfig")
        .withEnv("KUBECONFIG", "/tmp/kubeconfig")
        .withEnv("QUARKUS_HTTP_PORT", String.valueOf(httpPort))
        .waitingFor(Wait.forLogMessage(".*Listening on.*", 1).withStartupTimeout(Duration.ofMinutes(2)));
    operator.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (connection != null) {
      connection.close();
    }
    if (operator != null) {
      operator.stop();
    }
    if (hbase != null) {
      hbase.stop();
    }
  }

  @Test
  void hbaseFromTheImageServesAsItsOwnUser() throws Exception {
    try (var admin = connection.getAdmin()) {
      ClusterMetrics m = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.HBASE_VERSION,
          ClusterMetrics.Option.LIVE_SERVERS));
      assertThat(m.getHBaseVersion()).isEqualTo("2.6.4");
      assertThat(m.getLiveServerMetrics()).hasSize(1);
    }
    assertThat(hbase.execInContainer("id", "-u").getStdout().trim()).isEqualTo("1000");
  }

  @Test
  void operatorFromTheImageReconcilesTenantQuotasIntoHBaseFromTheImage() throws Exception {
    HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://localhost:" + httpPort + "/q/health/ready")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    assertThat(operator.execInContainer("id", "-u").getStdout().trim()).isEqualTo("185");

    String ns = KubeApi.newNamespace("tc");
    k8s.resource(Resources.cluster(ns, "hb", hbase.connectionSpec(), "10s")).create();
    k8s.resource(Resources.tenant(ns, "alice", "hb", Resources.user("tc-alice"),
        Resources.t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    await().atMost(120, TimeUnit.SECONDS).untilAsserted(() -> assertThat(QuotaTableRaw.read(connection))
        .as(() -> operator.getLogs()).containsEntry("u.tc-alice q:s", "req_num=100/SECONDS"));
    Resources.edit(k8s, TenantQuota.class, ns, "alice", t -> t.getSpec().getThrottles().get(0).setLimit("250req/sec"));
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(QuotaTableRaw.read(connection)).containsEntry("u.tc-alice q:s", "req_num=250/SECONDS"));
    k8s.resources(TenantQuota.class).inNamespace(ns).withName("alice").delete();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(QuotaTableRaw.read(connection)).doesNotContainKey("u.tc-alice q:s"));
  }
}
