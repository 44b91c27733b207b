package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.Examples;
import io.hbaseqos.operator.support.HBaseQuotas;
import io.hbaseqos.operator.support.Helm;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.Kubectl;
import io.hbaseqos.operator.support.OperatorProcess;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.StandaloneHBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart installed into a real API server, and the packaged operator run with exactly the
 * chart's ServiceAccount credentials and environment: RBAC is sufficient (the operator does its
 * whole job and is never refused) and not broader than needed; two replicas elect a leader and
 * the survivor takes over when it is killed, without duplicate or lost writes.
 */
class HelmInstallE2E {
  static final String RELEASE_NS = "hbq-system";
  static final String SA = "hbq-hbase-qos-operator";
  static KubernetesClient k8s;
  static StandaloneHBase hbase;
  static Path saKubeconfig;
  static Map<String, String> chartEnv;
  static final Set<String> NAMESPACES = new LinkedHashSet<>();

  @BeforeAll
  static void install() throws Exception {
    hbase = StandaloneHBase.shared();
    k8s = KubeApi.client();
    Kubectl.Result r = Helm.run("upgrade", "--install", "hbq", Helm.chart().toString(), "--namespace", RELEASE_NS,
        "--create-namespace", "--wait=false");
    assertThat(r.exit()).as(r.output()).isZero();
    saKubeconfig = kubeconfigFor(SA, RELEASE_NS);
    chartEnv = envOf(k8s.apps().deployments().inNamespace(RELEASE_NS).withName(SA).get());
  }

  @AfterAll
  static void uninstall() {
    KubeApi.cleanUp(NAMESPACES);
    Helm.run("uninstall", "hbq", "--namespace", RELEASE_NS);
  }

  /** A kubeconfig holding only a token of the ServiceAccount (TokenRequest, like a pod gets). */
  static Path kubeconfigFor(String sa, String ns) throws Exception {
    Kubectl.Result token = Kubectl.run("create", "token", sa, "-n", ns, "--duration=2h");
    assertThat(token.exit()).as(token.output()).isZero();
    String server = Kubectl.run("config", "view", "--raw", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}")
        .output().trim();
    String caData = Kubectl.run("config", "view", "--raw", "--minify", "-o",
        "jsonpath={.clusters[0].cluster.certificate-authority-data}").output().trim();
    String ca = caData.isEmpty() ? "certificate-authority: " + Kubectl.run("config", "view", "--raw", "--minify", "-o",
        "jsonpath={.clusters[0].cluster.certificate-authority}").output().trim()
        : "certificate-authority-data: " + caData;
    Path f = Files.createTempFile("sa-kubeconfig", ".yaml");
    Files.writeString(f, """
        apiVersion: v1
        kind: Config
        clusters: [{name: test, cluster: {server: %s, %s}}]
        users: [{name: sa, user: {token: %s}}]
        contexts: [{name: sa, context: {cluster: test, user: sa, namespace: %s}}]
        current-context: sa
        """.formatted(server, ca, token.output().trim(), ns));
    return f;
  }

  /** The operator container's environment as the chart renders it, with the downward-API values a pod would get. */
  static Map<String, String> envOf(Deployment d) {
    Map<String, String> env = new HashMap<>();
    for (EnvVar e : d.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv()) {
      if (e.getValue() != null) {
        env.put(e.getName(), e.getValue());
      }
    }
    env.put("POD_NAMESPACE", RELEASE_NS);
    return env;
  }

  static OperatorProcess replica(String podName, Map<String, String> extra, String health) {
    Map<String, String> env = new HashMap<>(chartEnv);
    env.put("POD_NAME", podName);
    env.put("HBQ_OPERATOR_JAVA_OPTS", chartEnv.get("JAVA_OPTS_APPEND"));
    env.putAll(extra);
    return OperatorProcess.start(saKubeconfig, env, health);
  }

  static String newNamespace(String prefix) {
    String ns = KubeApi.newNamespace(prefix);
    NAMESPACES.add(ns);
    return ns;
  }

  static boolean ready(String ns, String name) {
    TenantQuota tq = k8s.resources(TenantQuota.class).inNamespace(ns).withName(name).get();
    return tq != null && tq.getStatus() != null && tq.getStatus().condition("Ready")
        .map(c -> "True".equals(c.getStatus())).orElse(false);
  }

  static String canI(String verb, String resource, String ns) {
    String out = Kubectl.run("auth", "can-i", verb, resource, "-n", ns,
        "--as=system:serviceaccount:" + RELEASE_NS + ":" + SA).output().trim();
    return out.substring(out.lastIndexOf('\n') + 1); // the answer; warnings come before it
  }

  @Test
  void theOperatorDoesItsWholeJobWithTheChartsServiceAccountAndNothingMore() throws Exception {
    String ns = newNamespace("helm-e2e");
    try (OperatorProcess op = replica("hbq-0", Map.of(), "/q/health/ready")) {
      Kubectl.Result r = Kubectl.run("apply", "-n", ns, "-f", Examples.forHBase(hbase).toString());
      assertThat(r.exit()).as(r.output()).isZero();
      await().atMost(90, TimeUnit.SECONDS).untilAsserted(() -> assertThat(
          k8s.resources(TenantQuota.class).inNamespace(ns).list().getItems())
          .as(() -> op.logTail(40)).hasSize(7).allSatisfy(tq -> assertThat(ready(ns, tq.getMetadata().getName())).isTrue()));
      assertThat(HBaseQuotas.user("analytics")).isEqualTo(Map.of("REQUEST_NUMBER", "2500req/sec", "READ_SIZE", "10M/sec"));

      // GitOps: the operator never writes spec, so Argo CD sees no difference and generation stays 1
      for (TenantQuota tq : k8s.resources(TenantQuota.class).inNamespace(ns).list().getItems()) {
        assertThat(tq.getMetadata().getGeneration()).as(tq.getMetadata().getName()).isEqualTo(1L);
        assertThat(tq.getMetadata().getManagedFields()).as("fields written by the operator")
            .filteredOn(m -> !"kubectl-client-side-apply".equals(m.getManager()))
            .allSatisfy(m -> assertThat(m.getFieldsV1().getAdditionalProperties().keySet())
                .doesNotContain("f:spec"));
      }

      // the alerts and the dashboard only use metrics the operator exports: the cluster's once it has been
      // resynced and reconciled (its settings checked, its tenants' usage sampled), which may come after the
      // tenants are Ready
      await().atMost(90, TimeUnit.SECONDS).untilAsserted(() -> {
        String metrics = op.get("/q/metrics").body();
        // The framework creates its failure counter (operator.sdk.reconciliations.failed in JOSDK 5.2) with the
        // first failure; all other series exist from the start.
        assertThat(metricNamesUsedByTheChart()).filteredOn(n -> !metrics.contains(n))
            .as("metrics used by the chart's alerts or dashboard but not exported; the operator's framework "
                + "metrics: %s", metrics.lines().filter(l -> l.startsWith("operator_sdk"))
                .map(l -> l.replaceAll("[{ ].*", "")).distinct().toList())
            .containsExactly("operator_sdk_reconciliations_failed_total");
      });

      r = Kubectl.run("delete", "-n", ns, "tq", "analytics", "--wait=true", "--timeout=60s");
      assertThat(r.exit()).as(r.output()).isZero();
      assertThat(HBaseQuotas.user("analytics")).isEmpty();
      KubeApi.cleanUp(List.of(ns));

      String log = Files.readString(op.log());
      assertThat(log).as("the operator was refused something by RBAC").doesNotContainIgnoringCase("forbidden")
          // an HTTP 403 as the client reports it (code=403, "code":403, status 403), not any three digits that
          // happen to read 403: a random port (0.0.0.0:40317) and a log timestamp (18:41:02.403) both did
          .doesNotContainPattern("(?i)(code|status)[\"=: ]{1,4}403(?![0-9])");
    }
    // and it may not do more than that
    assertThat(canI("patch", "tenantquotas.hbaseqos.io", "default")).isEqualTo("yes");
    assertThat(canI("patch", "tenantquotas.hbaseqos.io/status", "default")).isEqualTo("yes");
    assertThat(canI("create", "events", "default")).isEqualTo("yes");
    assertThat(canI("patch", "events", "default")).as("a repeated event raises its count").isEqualTo("yes");
    assertThat(canI("delete", "events", "default")).isEqualTo("no");
    assertThat(canI("patch", "leases.coordination.k8s.io", RELEASE_NS)).isEqualTo("yes");
    assertThat(canI("patch", "leases.coordination.k8s.io", "default")).isEqualTo("no");
    assertThat(canI("delete", "tenantquotas.hbaseqos.io", "default")).isEqualTo("no");
    assertThat(canI("create", "tenantquotas.hbaseqos.io", "default")).isEqualTo("no");
    assertThat(canI("get", "secrets", RELEASE_NS)).isEqualTo("no");
    assertThat(canI("delete", "configmaps", "default")).isEqualTo("no");
    assertThat(canI("patch", "configmaps", RELEASE_NS)).as("the records of retained quotas").isEqualTo("yes");
    assertThat(canI("delete", "configmaps", RELEASE_NS)).isEqualTo("no");
    assertThat(canI("delete", "statefulsets.apps", "default")).isEqualTo("no");
    // topology is nowhere by default (Helm value topology.namespaces): no write of its objects anywhere
    assertThat(canI("create", "statefulsets.apps", "default")).isEqualTo("no");
    assertThat(canI("patch", "statefulsets.apps", "kube-system")).isEqualTo("no");
    assertThat(canI("patch", "configmaps", "kube-system")).isEqualTo("no");
    assertThat(canI("create", "services", "default")).isEqualTo("no");
    assertThat(canI("create", "poddisruptionbudgets.policy", "default")).isEqualTo("no");
    assertThat(canI("list", "statefulsets.apps", "default")).isEqualTo("yes");
    assertThat(canI("delete", "pods", "default")).isEqualTo("no");
    assertThat(canI("update", "nodes", "default")).isEqualTo("no");
    assertThat(canI("list", "namespaces", "default")).as("the labels grants select").isEqualTo("yes");
    assertThat(canI("patch", "namespaces", "default")).isEqualTo("no");
    assertThat(canI("create", "pods", "default")).isEqualTo("no");
    assertThat(canI("update", "customresourcedefinitions.apiextensions.k8s.io", "default")).isEqualTo("no");
  }

  /** An HBaseCluster asking for pods where the chart grants none is refused at admission, in words. */
  @Test
  void anHBaseClusterWithTopologyOutsideTheChartsNamespacesIsRefusedAtAdmission() throws Exception {
    Path f = Files.createTempFile("topology", ".yaml");
    Files.writeString(f, """
        apiVersion: hbaseqos.io/v1alpha1
        kind: HBaseCluster
        metadata: {name: with-pods}
        spec:
          connection: {zookeeperQuorum: zk-0}
          topology:
            image: ghcr.io/hbase-qos-operator/hbase:2.6.4
            rootDir: hdfs://nn:8020/hbase
            regionServers: {}
            volumes: [{name: root, hostPath: {path: /}}]
        """);
    // the policy is in force once the API server has compiled it
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
      Kubectl.Result r = Kubectl.run("create", "--dry-run=server", "-n", "default", "-f", f.toString());
      assertThat(r.exit()).as(r.output()).isNotZero();
      assertThat(r.output()).contains("spec.topology: this operator does not run HBase in namespace default (Helm "
          + "value topology.namespaces: empty)");
    });
    // the same object without topology is the platform's to create
    Files.writeString(f, Files.readString(f).substring(0, Files.readString(f).indexOf("  topology:")));
    Kubectl.Result r = Kubectl.run("create", "--dry-run=server", "-n", "default", "-f", f.toString());
    assertThat(r.exit()).as(r.output()).isZero();
  }

  /** Metric names in the chart's PrometheusRule and Grafana dashboard (except Prometheus's own {@code up}). */
  static Set<String> metricNamesUsedByTheChart() throws Exception {
    String rules = Files.readString(Helm.chart().resolve("templates/prometheusrule.yaml"));
    String dashboard = Files.readString(Helm.chart().resolve("files/dashboard.json"));
    Set<String> names = new LinkedHashSet<>();
    Matcher m = Pattern.compile("\\b((hbaseqos|operator_sdk|jvm)_[a-z_]+)").matcher(rules + dashboard);
    while (m.find()) {
      names.add(m.group(1).replaceAll("_(sum|count)$", ""));
    }
    assertThat(names).contains("hbaseqos_cluster_up", "hbaseqos_drift_corrections_total");
    return names;
  }

  @Test
  void aSecondReplicaTakesOverWhenTheLeaderIsKilledWithoutDuplicateOrLostWrites() throws Exception {
    String ns = newNamespace("helm-le");
    // a short lease so the test is quick; the chart's defaults are 15 s / 10 s / 2 s
    Map<String, String> fast = Map.of("HBASEQOS_LEADER_ELECTION_LEASE_DURATION", "6s",
        "HBASEQOS_LEADER_ELECTION_RENEW_DEADLINE", "4s", "HBASEQOS_LEADER_ELECTION_RETRY_PERIOD", "1s");
    OperatorProcess a = replica("hbq-a", fast, "/q/health/live");
    OperatorProcess b = replica("hbq-b", fast, "/q/health/live");
    try {
      String lease = SA;
      await().atMost(30, TimeUnit.SECONDS).until(() -> holder(lease) != null);
      OperatorProcess leader = "hbq-a".equals(holder(lease)) ? a : b;
      OperatorProcess standby = leader == a ? b : a;
      String standbyName = leader == a ? "hbq-b" : "hbq-a";

      k8s.resource(Resources.cluster(ns, "hb", hbase.connectionSpec(), "5s")).create();
      for (int i = 0; i < 3; i++) {
        k8s.resource(Resources.tenant(ns, "t" + i, "hb", Resources.user("le-" + ns + "-" + i),
            Resources.t(ThrottleKind.REQUEST_NUMBER, (100 + i) + "req/sec"))).create();
      }
      await().atMost(60, TimeUnit.SECONDS).until(() -> ready(ns, "t0") && ready(ns, "t1") && ready(ns, "t2"));
      assertThat(writes(leader)).isEqualTo(3);
      assertThat(writes(standby)).as("a standby writes nothing").isZero();
      assertThat(hbaseCalls(standby)).as("a standby does not even read HBase").isZero();

      long killed = System.nanoTime();
      leader.kill();
      // changes made while nobody leads must not be lost
      io.hbaseqos.operator.support.Resources.edit(k8s, TenantQuota.class, ns, "t1", tq -> {
        tq.getSpec().getThrottles().get(0).setLimit("111req/sec");
      });
      k8s.resource(Resources.tenant(ns, "t3", "hb", Resources.user("le-" + ns + "-3"),
          Resources.t(ThrottleKind.REQUEST_NUMBER, "103req/sec"))).create();
      await().atMost(30, TimeUnit.SECONDS).until(() -> standbyName.equals(holder(lease)));
      double takeover = (System.nanoTime() - killed) / 1e9;
      await().atMost(60, TimeUnit.SECONDS).until(() -> ready(ns, "t3")
          && HBaseQuotas.user("le-" + ns + "-1").equals(Map.of("REQUEST_NUMBER", "111req/sec")));
      System.out.printf("leader election: lease taken over %.1f s after the leader was killed (lease 6 s)%n", takeover);
      assertThat(takeover).as("bounded by the lease duration plus a retry period").isLessThan(15);
      for (int i = 0; i < 4; i++) {
        assertThat(HBaseQuotas.user("le-" + ns + "-" + i)).containsKey("REQUEST_NUMBER");
      }
      assertThat(HBaseQuotas.user("le-" + ns + "-0")).isEqualTo(Map.of("REQUEST_NUMBER", "100req/sec"));
      // the new leader writes exactly the two changes, not again what the old one wrote
      assertThat(writes(standby)).isEqualTo(2);
      KubeApi.cleanUp(List.of(ns));
    } finally {
      a.close();
      b.close();
    }
  }

  static String holder(String lease) {
    Lease l = k8s.leases().inNamespace(RELEASE_NS).withName(lease).get();
    return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
  }

  static double sum(OperatorProcess op, String metric) throws Exception {
    double total = 0;
    for (String line : op.get("/q/metrics").body().split("\n")) {
      if (line.startsWith(metric + "{") || line.startsWith(metric + " ")) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  static long writes(OperatorProcess op) throws Exception {
    return Math.round(sum(op, "hbaseqos_quota_writes_total"));
  }

  static long hbaseCalls(OperatorProcess op) throws Exception {
    return Math.round(sum(op, "hbaseqos_hbase_call_seconds_count"));
  }
}
