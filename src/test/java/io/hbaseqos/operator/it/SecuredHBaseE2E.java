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
import io.hbaseqos.operator.support.Helm;
import io.hbaseqos.operator.support.Kdc;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.Kubectl;
import io.hbaseqos.operator.support.OperatorProcess;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.SecureHBase;
import io.hbaseqos.operator.support.TenantStatus;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
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
 * The operator on a Kerberos-secured HBase: a real KDC, HBase with Kerberos RPC authentication,
 * its {@code AccessController} and SPNEGO on the info servers, and the packaged operator run with
 * the hbase-site.xml and JVM options the Helm chart renders for {@code hbase.kerberos.enabled}
 * (principal {@code hbase-qos-operator/_HOST}, {@code hbase.kerberos.zookeeperSasl}). ZooKeeper
 * requires SASL of every session, so every connection the operator makes proves its ZooKeeper
 * login. Every claim is checked in {@code hbase:quota}, read raw by the superuser.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredHBaseE2E {
  static final String OPERATOR = "hbase-qos-operator";
  static KubernetesClient k8s;
  static SecureHBase hbase;
  static OperatorProcess operator;
  static Instant loggedIn;
  static String ns;

  @BeforeAll
  static void start() throws Exception {
    hbase = SecureHBase.shared();
    k8s = KubeApi.client();
    Kdc kdc = hbase.kdc();
    String host = InetAddress.getLocalHost().getCanonicalHostName();
    Path keytab = kdc.keytab("operator.keytab", OPERATOR + "/" + host);
    // the permissions docs/install.md lists as the operator's minimum
    hbase.grant(OPERATOR, "A");
    hbase.grant(OPERATOR, "R", "hbase:quota");

    List<HasMetadata> chart = objects(HelmChartIT.render("--set", "hbase.kerberos.enabled=true",
        "--set", "hbase.kerberos.principal=" + OPERATOR + "/_HOST@" + kdc.realm(),
        "--set", "hbase.kerberos.keytabSecret.name=operator-keytab", "--set", "hbase.kerberos.keytabSecret.key=operator.keytab",
        "--set", "hbase.kerberos.krb5ConfigMap=krb5", "--set", "hbase.kerberos.zookeeperSasl=true"));
    String site = chart.stream().filter(o -> o instanceof ConfigMap && o.getMetadata().getName().endsWith("-hbase-site"))
        .map(o -> ((ConfigMap) o).getData().get("hbase-site.xml")).findFirst().orElseThrow();
    Path siteFile = Files.createTempFile("operator-site", ".xml");
    Files.writeString(siteFile, site.replace("/etc/hbase-qos/keytab/operator.keytab", keytab.toString()));
    Deployment d = (Deployment) chart.stream().filter(o -> o instanceof Deployment).findFirst().orElseThrow();
    String javaOpts = d.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
        .filter(e -> "JAVA_OPTS_APPEND".equals(e.getName())).findFirst().orElseThrow().getValue();
    assertThat(javaOpts).contains("-Djava.security.krb5.conf=/etc/hbase-qos/krb5/krb5.conf");

    ns = KubeApi.newNamespace("secured");
    operator = OperatorProcess.start(KubeApi.kubeconfig(), Map.of("HBASEQOS_HBASE_SITE_FILE", siteFile.toString(),
        "HBQ_OPERATOR_JAVA_OPTS", javaOpts.replace("/etc/hbase-qos/krb5/krb5.conf", kdc.krb5conf().toString())));
    loggedIn = Instant.now(); // at or after the login
    assertThat(Files.readString(operator.log())).contains("logged in to Kerberos as " + OPERATOR + "/" + host.toLowerCase()
        + "@" + kdc.realm()).contains("ZooKeeper sessions authenticate with SASL as " + OPERATOR + "/"
        + host.toLowerCase() + "@" + kdc.realm());
    HBaseCluster hc = Resources.cluster(ns, "secure", hbase.connectionSpec(), "5s");
    hc.getSpec().getQuotas().setRefreshPeriod("5s"); // what the server runs with
    k8s.resource(hc).create();
  }

  static List<HasMetadata> objects(String yaml) {
    return k8s.load(new java.io.ByteArrayInputStream(yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8))).items();
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      KubeApi.cleanUp(List.of(ns));
      operator.close();
    }
  }

  /** The user's cell, read raw by the superuser (a JVM of its own per read: polled once a second at most). */
  static String row(String user) {
    return hbase.quotaTable().get("u." + user + " q:s");
  }

  @Test
  @Order(1)
  void quotasAreCreatedEditedAndDeletedOnASecuredHBase() {
    await().atMost(90, TimeUnit.SECONDS).untilAsserted(() -> {
      HBaseCluster hc = k8s.resources(HBaseCluster.class).inNamespace(ns).withName("secure").get();
      assertThat(hc.getStatus()).as(() -> operator.logTail(60)).isNotNull();
      assertThat(hc.getStatus().condition("Ready")).get().satisfies(c -> assertThat(c.getStatus())
          .as(c.getMessage()).isEqualTo("True"));
      // the RegionServer's /conf, read through SPNEGO
      assertThat(hc.getStatus().condition("RefreshPeriodMatches")).get().satisfies(c ->
          assertThat(c.getReason()).as(c.getMessage()).isEqualTo("Matches"));
    });
    k8s.resource(Resources.tenant(ns, "alice", "secure", Resources.user("sec_alice"),
        Resources.t(ThrottleKind.REQUEST_NUMBER, "100req/sec"))).create();
    TenantStatus.awaitReady(k8s, ns, "alice");
    assertThat(row("sec_alice")).isEqualTo("req_num=100/SECONDS");
    Resources.edit(k8s, TenantQuota.class, ns, "alice", tq -> tq.getSpec().getThrottles().get(0).setLimit("200req/sec"));
    await().atMost(90, TimeUnit.SECONDS).pollInterval(java.time.Duration.ofSeconds(1)).until(() -> "req_num=200/SECONDS".equals(row("sec_alice")));

    k8s.resource(Resources.tenant(ns, "gone", "secure", Resources.user("sec_gone"),
        Resources.t(ThrottleKind.REQUEST_NUMBER, "5req/sec"))).create();
    TenantStatus.awaitReady(k8s, ns, "gone");
    assertThat(row("sec_gone")).isEqualTo("req_num=5/SECONDS");
    k8s.resources(TenantQuota.class).inNamespace(ns).withName("gone").delete();
    await().atMost(60, TimeUnit.SECONDS).until(() -> TenantStatus.get(k8s, ns, "gone") == null);
    assertThat(row("sec_gone")).isNull();
  }

  @Test
  @Order(2)
  void withoutADMINTheTenantNamesTheMissingPermissionAndNothingIsLost() {
    TenantStatus.awaitReady(k8s, ns, "alice");
    hbase.revoke(OPERATOR); // READ on hbase:quota stays
    Resources.edit(k8s, TenantQuota.class, ns, "alice", tq -> tq.getSpec().getThrottles().get(0).setLimit("300req/sec"));
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> assertThat(TenantStatus.condition(k8s, ns, "alice",
        "Ready")).satisfies(c -> {
          assertThat(c.getReason()).isEqualTo("PermissionDenied");
          assertThat(c.getMessage()).contains("Insufficient permissions for user '" + OPERATOR + "' (global, action=ADMIN)");
        }));
    assertThat(row("sec_alice")).as("what HBase held stays").isEqualTo("req_num=200/SECONDS");
    hbase.grant(OPERATOR, "A");
    await().atMost(90, TimeUnit.SECONDS).pollInterval(java.time.Duration.ofSeconds(1))
        .until(() -> "req_num=300/SECONDS".equals(row("sec_alice")));
    TenantStatus.awaitReady(k8s, ns, "alice");
  }

  /** Tickets live {@link Kdc#TICKET_LIFETIME}: past it, only a renewed ticket still gets a quota written. */
  @Test
  @Order(4) // last: the wait for the first ticket to expire is spent by the tests before it
  void aTicketShorterThanTheRunIsRenewedWithoutARestart() throws Exception {
    Instant expired = loggedIn.plus(Kdc.TICKET_LIFETIME).plusSeconds(5);
    await().atMost(Kdc.TICKET_LIFETIME.plusSeconds(30).toSeconds(), TimeUnit.SECONDS)
        .until(() -> Instant.now().isAfter(expired));
    long pid = operator.pid();
    Resources.edit(k8s, TenantQuota.class, ns, "alice", tq -> tq.getSpec().getThrottles().get(0).setLimit("400req/sec"));
    await().atMost(90, TimeUnit.SECONDS).pollInterval(java.time.Duration.ofSeconds(1)).until(() -> "req_num=400/SECONDS".equals(row("sec_alice")));
    // a new connection (SASL) and a new SPNEGO exchange: both need a ticket younger than the first one
    String later = KubeApi.newNamespace("secured-later");
    HBaseCluster hc = Resources.cluster(later, "again", hbase.connectionSpec(), "5s");
    hc.getSpec().getQuotas().setRefreshPeriod("5s");
    k8s.resource(hc).create();
    k8s.resource(Resources.tenant(later, "late", "again", Resources.user("sec_late"),
        Resources.t(ThrottleKind.REQUEST_NUMBER, "7req/sec"))).create();
    TenantStatus.awaitReady(k8s, later, "late");
    assertThat(row("sec_late")).isEqualTo("req_num=7/SECONDS");
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> assertThat(k8s.resources(HBaseCluster.class)
        .inNamespace(later).withName("again").get().getStatus().condition("RefreshPeriodMatches")).get()
        .satisfies(c -> assertThat(c.getReason()).as(c.getMessage()).isEqualTo("Matches")));
    KubeApi.cleanUp(List.of(later));
    assertThat(operator.pid()).as("the same operator process").isEqualTo(pid);
    assertThat(Files.readString(operator.log())).as("the operator's own renewal from its keytab")
        .contains("renewed the Kerberos ticket of " + OPERATOR + "/");
  }

  /**
   * The same HBase reached without SASL to ZooKeeper (a cluster's own {@code clientConfig} may turn
   * it off, for a ZooKeeper without SASL): ZooKeeper closes the session, the cluster says it cannot
   * be reached, and nothing is written for its tenants.
   */
  @Test
  @Order(3)
  void withoutSaslToZooKeeperTheClusterIsUnreachableAndNothingIsWritten() {
    String other = KubeApi.newNamespace("secured-nosasl");
    try {
      HBaseCluster hc = Resources.cluster(other, "nosasl", hbase.connectionSpec(), "5s");
      hc.getSpec().getConnection().getClientConfig().put("hbase.zookeeper.property.sasl.client", "false");
      k8s.resource(hc).create();
      k8s.resource(Resources.tenant(other, "ghost", "nosasl", Resources.user("sec_nosasl"),
          Resources.t(ThrottleKind.REQUEST_NUMBER, "9req/sec"))).create();
      await().atMost(120, TimeUnit.SECONDS).untilAsserted(() -> {
        HBaseCluster now = k8s.resources(HBaseCluster.class).inNamespace(other).withName("nosasl").get();
        assertThat(now.getStatus()).isNotNull();
        assertThat(now.getStatus().condition("Ready")).get().satisfies(c -> {
          assertThat(c.getStatus()).isEqualTo("False");
          assertThat(c.getReason()).as(c.getMessage()).isEqualTo("Unreachable");
        });
      });
      assertThat(row("sec_nosasl")).isNull();
      assertThat(k8s.resources(HBaseCluster.class).inNamespace(ns).withName("secure").get().getStatus()
          .condition("Ready")).get().satisfies(c -> assertThat(c.getStatus()).as("the SASL cluster meanwhile")
              .isEqualTo("True"));
    } finally {
      // a tenant of an HBase that refuses the operator cannot remove anything: deleted, then let go
      for (Class<? extends io.fabric8.kubernetes.client.CustomResource<?, ?>> kind
          : List.<Class<? extends io.fabric8.kubernetes.client.CustomResource<?, ?>>>of(TenantQuota.class,
              HBaseCluster.class)) {
        k8s.resources(kind).inNamespace(other).delete();
        await().atMost(60, TimeUnit.SECONDS).ignoreExceptions().untilAsserted(() -> {
          for (var r : k8s.resources(kind).inNamespace(other).list().getItems()) {
            k8s.resource(r).edit(x -> {
              x.getMetadata().setFinalizers(List.of());
              return x;
            });
          }
          assertThat(k8s.resources(kind).inNamespace(other).list().getItems()).isEmpty();
        });
      }
    }
  }
}
