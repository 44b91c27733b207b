package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.Certificates;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorProcess;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.TenantStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The operator on an HBase that speaks only TLS: RPC over HBase 2.6's native TLS with plaintext
 * refused ({@code hbase.server.netty.tls.supportplaintext=false}) and a client certificate required
 * (HBase's default, {@code NEED}), and info servers that answer HTTPS only ({@code hbase.ssl.enabled}),
 * with certificates no JVM trusts by default. The packaged operator runs with the hbase-site.xml the
 * Helm chart renders for {@code hbase.tls.enabled}, {@code .infoServers} and {@code .clientCertificate},
 * its CA file and keystore where the chart mounts the Secrets, the keystore's password in the
 * environment. Every quota is checked in {@code hbase:quota}, read raw over TLS.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TlsHBaseE2E {
  static final String PASSWORD = "changeit";
  static KubernetesClient k8s;
  static StandaloneHBase hbase;
  static OperatorProcess operator;
  static Path dir;
  static String ns;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("hbaseqos-tls");
    Path keystore = dir.resolve("server.p12");
    Path ca = dir.resolve("ca.crt");
    Path other = dir.resolve("other-ca.crt");
    Path operatorKeystore = dir.resolve("operator.p12");
    Path operatorCert = dir.resolve("operator.crt");
    certificate(keystore, ca, "hbase");
    certificate(dir.resolve("other.p12"), other, "other");
    certificate(operatorKeystore, operatorCert, "operator");
    // the servers trust their own certificate (they call each other) and the operator's
    Path serverTrust = dir.resolve("server-trust.pem");
    Files.writeString(serverTrust, Files.readString(ca) + Files.readString(operatorCert));

    Map<String, String> site = new LinkedHashMap<>();
    site.put("hbase.server.netty.tls.enabled", "true");
    site.put("hbase.server.netty.tls.supportplaintext", "false");
    // HBase's default: every client presents a certificate the servers trust (its host name is not checked here)
    site.put("hbase.server.netty.tls.client.auth.mode", "NEED");
    site.put("hbase.server.netty.tls.verify.client.hostname", "false");
    site.put("hbase.client.netty.tls.enabled", "true"); // the master and RegionServer call each other too
    site.put("hbase.rpc.tls.keystore.location", keystore.toString());
    site.put("hbase.rpc.tls.keystore.password", PASSWORD);
    site.put("hbase.rpc.tls.keystore.type", "PKCS12");
    site.put("hbase.rpc.tls.truststore.location", serverTrust.toString());
    site.put("hbase.rpc.tls.truststore.type", "PEM");
    site.put("hbase.ssl.enabled", "true");
    site.put("ssl.server.keystore.location", keystore.toString());
    site.put("ssl.server.keystore.password", PASSWORD);
    site.put("ssl.server.keystore.keypassword", PASSWORD);
    site.put("ssl.server.keystore.type", "pkcs12");
    // the test's own client (the raw reads) presents the servers' certificate
    hbase = new StandaloneHBase(dir.resolve("hbase"), site).clientSite(Map.of("hbase.client.netty.tls.enabled", "true",
        "hbase.rpc.tls.truststore.location", ca.toString(), "hbase.rpc.tls.truststore.type", "PEM",
        "hbase.rpc.tls.keystore.location", keystore.toString(), "hbase.rpc.tls.keystore.password", PASSWORD,
        "hbase.rpc.tls.keystore.type", "PKCS12"));
    hbase.start();
    k8s = KubeApi.client();

    // the chart's rendering: the site file, and the path where its Deployment mounts the CA Secret
    List<HasMetadata> chart = k8s.load(new java.io.ByteArrayInputStream(HelmChartIT.render("--set",
        "hbase.tls.enabled=true", "--set", "hbase.tls.infoServers=true", "--set", "hbase.tls.caSecret.name=hbase-ca",
        "--set", "hbase.tls.clientCertificate.secretName=operator-tls",
        "--set", "hbase.tls.clientCertificate.passwordSecret.name=operator-tls-password")
        .getBytes(java.nio.charset.StandardCharsets.UTF_8))).items();
    String rendered = chart.stream().filter(o -> o instanceof ConfigMap && o.getMetadata().getName()
        .endsWith("-hbase-site")).map(o -> ((ConfigMap) o).getData().get("hbase-site.xml")).findFirst().orElseThrow();
    Deployment d = (Deployment) chart.stream().filter(o -> o instanceof Deployment).findFirst().orElseThrow();
    assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/hbase-qos/tls"));
    assertThat(d.getSpec().getTemplate().getSpec().getVolumes()).filteredOn(v -> v.getSecret() != null).anySatisfy(v -> {
      assertThat(v.getSecret().getSecretName()).isEqualTo("hbase-ca");
      assertThat(v.getSecret().getItems()).singleElement().satisfies(i -> assertThat(i.getPath()).isEqualTo("ca.crt"));
    });
    var env = d.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv();
    assertThat(env).filteredOn(e -> "HBQ_TLS_KEYSTORE_PASSWORD".equals(e.getName())).singleElement().satisfies(e -> {
      assertThat(e.getValue()).isNull();
      assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("operator-tls-password");
    });
    assertThat(rendered).contains("/etc/hbase-qos/tls/ca.crt").contains("/etc/hbase-qos/tls-client/keystore.p12")
        .doesNotContain(PASSWORD);
    Path siteFile = dir.resolve("operator-site.xml");
    Files.writeString(siteFile, rendered.replace("/etc/hbase-qos/tls/ca.crt", ca.toString())
        .replace("/etc/hbase-qos/tls-client/keystore.p12", operatorKeystore.toString()));

    ns = KubeApi.newNamespace("tls");
    // the keystore's password reaches the operator as the chart passes it: an environment variable from a Secret
    operator = OperatorProcess.start(KubeApi.kubeconfig(), Map.of("HBASEQOS_HBASE_SITE_FILE", siteFile.toString(),
        "HBQ_TLS_KEYSTORE_PASSWORD", PASSWORD));
    HBaseCluster hc = Resources.cluster(ns, "tls", hbase.connectionSpec(), "5s");
    hc.getSpec().getQuotas().setRefreshPeriod("5s"); // what the server runs with
    k8s.resource(hc).create();
    // the same HBase, reached in plaintext, and over TLS trusting another CA: both refused by it
    HBaseCluster plain = Resources.cluster(ns, "plain", hbase.connectionSpec(), "5s");
    plain.getSpec().getConnection().getClientConfig().put("hbase.client.netty.tls.enabled", "false");
    k8s.resource(plain).create();
    HBaseCluster stranger = Resources.cluster(ns, "stranger", hbase.connectionSpec(), "5s");
    stranger.getSpec().getConnection().getClientConfig().put("hbase.rpc.tls.truststore.location", other.toString());
    k8s.resource(stranger).create();
  }

  static void certificate(Path keystore, Path pem, String alias) throws Exception {
    Certificates.selfSigned(keystore, pem, alias, "CN=" + alias, PASSWORD);
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      // the tenants of the two unreachable clusters cannot remove anything from an HBase that refuses them
      KubeApi.forceCleanUp(List.of(ns));
      operator.close();
    }
    if (hbase != null) {
      hbase.close();
    }
  }

  static HBaseCluster cluster(String name) {
    return k8s.resources(HBaseCluster.class).inNamespace(ns).withName(name).get();
  }

  static String row(String user) {
    return QuotaTableRaw.read(hbase).get("u." + user + " q:s");
  }

  @Test
  @Order(1)
  void quotasAreCreatedEditedAndDeletedOverTlsAndTheInfoServersAreReadOverHttps() {
    await().atMost(120, TimeUnit.SECONDS).ignoreExceptions().untilAsserted(() -> {
      HBaseCluster hc = cluster("tls");
      assertThat(hc.getStatus().condition("Ready")).get().satisfies(c -> assertThat(c.getStatus())
          .as(c.getMessage() + "\n" + operator.logTail(40)).isEqualTo("True"));
      // the RegionServer's /conf, read over HTTPS with the mounted CA
      assertThat(hc.getStatus().condition("RefreshPeriodMatches")).get().satisfies(c ->
          assertThat(c.getReason()).as(c.getMessage()).isEqualTo("Matches"));
    });
    k8s.resource(Resources.tenant(ns, "alice", "tls", Resources.user("tls_alice"),
        Resources.t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    TenantStatus.awaitReady(k8s, ns, "alice");
    assertThat(row("tls_alice")).isEqualTo("req_num=100/SECONDS");
    Resources.edit(k8s, TenantQuota.class, ns, "alice", tq -> tq.getSpec().getThrottles().get(0).setLimit("200req/sec"));
    await().atMost(60, TimeUnit.SECONDS).until(() -> "req_num=200/SECONDS".equals(row("tls_alice")));
    k8s.resources(TenantQuota.class).inNamespace(ns).withName("alice").delete();
    await().atMost(60, TimeUnit.SECONDS).until(() -> TenantStatus.get(k8s, ns, "alice") == null);
    assertThat(row("tls_alice")).isNull();
  }

  /**
   * The same HBase in plaintext, or over TLS trusting a CA that did not sign its certificate: it
   * answers neither, the clusters say so, and a tenant on them writes nothing.
   */
  @Test
  @Order(2)
  void aClusterReachedInPlaintextOrTrustingAnotherCaIsUnreachableAndWritesNothing() {
    List<String> messages = new ArrayList<>();
    for (String name : List.of("plain", "stranger")) {
      await().atMost(120, TimeUnit.SECONDS).ignoreExceptions().untilAsserted(() -> assertThat(cluster(name).getStatus()
          .condition("Reachable")).get().satisfies(c -> assertThat(c.getStatus()).isEqualTo("False")));
      messages.add(name + ": " + cluster(name).getStatus().condition("Reachable").get().getMessage());
      k8s.resource(Resources.tenant(ns, "on-" + name, name, Resources.user("tls_" + name),
          Resources.t(ThrottleKind.REQUEST_NUMBER, "5req/sec"))).create();
    }
    System.out.println("TLS E2E: " + messages);
    for (String name : List.of("plain", "stranger")) {
      await().atMost(60, TimeUnit.SECONDS).ignoreExceptions().untilAsserted(() -> assertThat(TenantStatus.condition(k8s,
          ns, "on-" + name, "Ready").getStatus()).isEqualTo("False"));
      assertThat(row("tls_" + name)).isNull();
    }
  }
}
