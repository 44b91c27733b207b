package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.NamespaceSelector;
import io.hbaseqos.operator.api.TenancySpec;
import io.hbaseqos.operator.api.TenantGrant;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.support.ControlPlane;
import io.hbaseqos.operator.support.Helm;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.Kubectl;
import io.hbaseqos.operator.support.OperatorProcess;
import io.hbaseqos.operator.support.QuotaTableRaw;
import io.hbaseqos.operator.support.Resources;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.TenantStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tenancy boundary as a tenant team meets it: the chart installed, the packaged operator run
 * with the chart's ServiceAccount, the platform's HBaseCluster in the release namespace granting two
 * tenant namespaces their own HBase users, and each team's user holding only Kubernetes' built-in
 * {@code edit} role in its namespace (which the chart's tenant role aggregates into), acting
 * through {@code kubectl --as}. Every cross-tenant attempt is refused in words, and {@code hbase:quota}
 * (read raw) is unchanged by it; what was granted works.
 */
class TenancyE2E {
  static final String RELEASE = "hbqt";
  static final String SA = RELEASE + "-hbase-qos-operator";
  static KubernetesClient k8s;
  static StandaloneHBase hbase;
  static ControlPlane aggregation;
  static OperatorProcess operator;
  static Map<String, String> operatorEnv;
  static java.nio.file.Path operatorKubeconfig;
  static String platform;
  static String teamA;
  static String teamB;
  /** This run's HBase names: the HBase is shared with other test classes. */
  static String ua;
  static String ub;
  static final List<String> NAMESPACES = new ArrayList<>();

  @BeforeAll
  static void install() throws Exception {
    hbase = StandaloneHBase.shared();
    k8s = KubeApi.client();
    aggregation = ControlPlane.rbacAggregation();
    platform = KubeApi.newNamespace("platform");
    teamA = KubeApi.newNamespace("team-a");
    teamB = KubeApi.newNamespace("team-b");
    NAMESPACES.addAll(List.of(teamA, teamB, platform));
    String run = Long.toString(System.nanoTime() % 1_000_000, 36);
    ua = "ta" + run + "_";
    ub = "tb" + run + "_";
    Kubectl.Result r = Helm.run("upgrade", "--install", RELEASE, Helm.chart().toString(), "--namespace", platform,
        "--wait=false");
    assertThat(r.exit()).as(r.output()).isZero();
    for (String[] who : new String[][] {{"alice", teamA}, {"bob", teamB}}) {
      r = Kubectl.run("create", "rolebinding", who[0] + "-edit", "--clusterrole=edit", "--user=" + who[0], "-n", who[1]);
      assertThat(r.exit()).as(r.output()).isZero();
    }
    // the built-in edit role gains the chart's tenant rules once the aggregation controller has run
    await().atMost(60, TimeUnit.SECONDS).until(() -> "yes".equals(canI("alice", "create", "tenantquotas", teamA)));

    HBaseCluster hc = Resources.cluster(platform, "shared", hbase.connectionSpec(), "5s");
    TenancySpec tenancy = new TenancySpec();
    tenancy.setGrants(new ArrayList<>(List.of(
        new TenantGrant(List.of(teamA), List.of(ua + "*"), List.of(ua + "ns"), null),
        new TenantGrant(List.of(teamB), List.of(ub + "*"), null, null))));
    hc.getSpec().setTenancy(tenancy);
    k8s.resource(hc).create();

    Map<String, String> env = new HashMap<>(HelmInstallE2E.envOf(k8s.apps().deployments().inNamespace(platform)
        .withName(SA).get()));
    env.put("POD_NAMESPACE", platform);
    env.put("POD_NAME", SA + "-0");
    env.put("HBQ_OPERATOR_JAVA_OPTS", env.get("JAVA_OPTS_APPEND"));
    operatorEnv = env;
    operatorKubeconfig = HelmInstallE2E.kubeconfigFor(SA, platform);
    operator = OperatorProcess.start(operatorKubeconfig, env, "/q/health/ready");
  }

  @AfterAll
  static void uninstall() {
    if (operator != null) {
      KubeApi.cleanUp(NAMESPACES);
      operator.close();
    }
    Helm.run("uninstall", RELEASE, "--namespace", platform);
    if (aggregation != null) {
      aggregation.close();
    }
  }

  static String canI(String user, String verb, String resource, String ns, String... extra) {
    List<String> args = new ArrayList<>(List.of("auth", "can-i", verb, resource, "-n", ns, "--as=" + user));
    args.addAll(List.of(extra));
    String out = Kubectl.run(args.toArray(String[]::new)).output().trim();
    return out.substring(out.lastIndexOf('\n') + 1);
  }

  /** {@code kubectl --as user apply} of one TenantQuota naming the platform's cluster. */
  static Kubectl.Result applyAs(String user, String ns, String name, String subject, String limit) throws Exception {
    return Kubectl.run("apply", "--as=" + user, "-f", tenantFile(ns, name, subject,
        "throttles: [{type: REQUEST_NUMBER, limit: " + limit + "}]"));
  }

  /** A TenantQuota naming the platform's cluster, with one more line of spec. */
  static String tenantFile(String ns, String name, String subject, String extra) throws Exception {
    Path f = Files.createTempFile("tq", ".yaml");
    Files.writeString(f, """
        apiVersion: hbaseqos.io/v1alpha1
        kind: TenantQuota
        metadata: {name: %s, namespace: %s}
        spec:
          clusterRef: {name: shared, namespace: %s}
          subject: %s
          %s
        """.formatted(name, ns, platform, subject, extra));
    return f.toString();
  }

  static Map<String, String> quotaTable() {
    Map<String, String> all = QuotaTableRaw.read(hbase);
    String uc = "tc" + ua.substring(2);
    all.keySet().removeIf(k -> !k.contains(ua) && !k.contains(ub) && !k.contains(uc));
    return all;
  }

  @Test
  void eachTeamManagesWhatItWasGrantedAndNothingElse() throws Exception {
    Kubectl.Result r = applyAs("alice", teamA, "svc", "{user: " + ua + "svc}", "100req/sec");
    assertThat(r.exit()).as(r.output()).isZero();
    r = applyAs("bob", teamB, "svc", "{user: " + ub + "svc}", "200req/sec");
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> assertThat(quotaTable()).as(() -> operator.logTail(40))
        .containsEntry("u." + ua + "svc q:s", "req_num=100/SECONDS")
        .containsEntry("u." + ub + "svc q:s", "req_num=200/SECONDS"));
    TenantStatus.awaitReady(k8s, teamA, "svc");
    r = applyAs("alice", teamA, "svc", "{user: " + ua + "svc}", "150req/sec");
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(60, TimeUnit.SECONDS).until(() -> "req_num=150/SECONDS"
        .equals(quotaTable().get("u." + ua + "svc q:s")));
    Map<String, String> before = quotaTable();

    // alice against bob's HBase user, namespace and tables, and against bob's namespace
    assertRefused(applyAs("alice", teamA, "x1", "{user: " + ub + "svc}", "1req/sec"),
        "spec.subject.user", "does not grant namespace " + teamA + " the HBase user " + ub + "svc");
    assertRefused(applyAs("alice", teamA, "x2", "{namespace: " + ub + "ns}", "1req/sec"),
        "spec.subject.namespace", "the HBase namespace " + ub + "ns");
    assertRefused(applyAs("alice", teamA, "x3", "{table: '" + ub + "ns:t'}", "1req/sec"),
        "spec.subject.table", "the table " + ub + "ns:t");
    assertRefused(applyAs("alice", teamA, "x4", "{user: " + ua + "svc, table: 'default:" + ub + "t'}", "1req/sec"),
        "spec.subject.table", "the table default:" + ub + "t");
    assertRefused(applyAs("alice", teamB, "x5", "{user: " + ub + "svc}", "1req/sec"), "forbidden",
        "User \"alice\" cannot");
    assertRefused(Kubectl.run("--as=alice", "-n", teamB, "delete", "tq", "svc"), "forbidden", "User \"alice\" cannot");
    assertRefused(Kubectl.run("--as=alice", "-n", teamB, "patch", "tq", "svc", "--type=merge", "-p",
        "{\"spec\":{\"throttles\":[{\"type\":\"REQUEST_NUMBER\",\"limit\":\"1req/sec\"}]}}"), "forbidden",
        "User \"alice\" cannot");
    // the platform's objects: alice may neither change the cluster nor make her own pointing at the same HBase
    assertRefused(Kubectl.run("--as=alice", "-n", platform, "patch", "hbc", "shared", "--type=merge", "-p",
        "{\"spec\":{\"throttlePolicy\":{\"rpcThrottle\":false}}}"), "forbidden", "User \"alice\" cannot");
    assertRefused(Kubectl.run("--as=alice", "-n", platform, "get", "hbc", "shared"), "forbidden",
        "User \"alice\" cannot");
    Path own = Files.createTempFile("hbc", ".yaml");
    Files.writeString(own, """
        apiVersion: hbaseqos.io/v1alpha1
        kind: HBaseCluster
        metadata: {name: mine, namespace: %s}
        spec: {connection: {zookeeperQuorum: "%s"}, quotas: {unmanagedPolicy: Remove}}
        """.formatted(teamA, hbase.connectionSpec().getZookeeperQuorum()));
    assertRefused(Kubectl.run("--as=alice", "apply", "-f", own.toString()), "forbidden", "User \"alice\" cannot");
    // a shell metacharacter in a user name never gets as far as the operator
    assertRefused(applyAs("alice", teamA, "x6", "{user: \"" + ua + "x';$(id)\"}", "1req/sec"), "spec.subject.user",
        "shell or Ruby characters are refused");
    // nor makes the operator fetch a URL of her choosing
    String probe = tenantFile(teamA, "x7", "{user: " + ua + "svc2}", "calibration: {targetOpsPerSecond: 100, "
        + "source: Prometheus, prometheus: {url: 'http://169.254.169.254/latest', query: 'sum(up)'}}");
    assertRefused(Kubectl.run("--as=alice", "apply", "-f", probe), "spec.calibration.prometheus.url",
        "queries the Prometheus of HBaseCluster " + platform + "/shared (its spec.prometheus.url) and may not name one");
    // nor exempts a granted user from the platform's throttles
    assertRefused(Kubectl.run("--as=alice", "apply", "-f", tenantFile(teamA, "x8", "{user: " + ua + "bypass}",
        "bypassGlobals: true")), "spec.bypassGlobals", "may not exempt its user");
    // nor slows down other teams' sheddable tenants by a priority the platform did not grant her
    String protectedTenant = tenantFile(teamA, "x9", "{user: " + ua + "rt}",
        "qos: {priority: 5, latencyObjectives: [{boundMillis: 20}]}");
    assertRefused(Kubectl.run("--as=alice", "apply", "-f", protectedTenant), "spec.qos.priority",
        "does not grant namespace " + teamA + " priority 5 (maxPriority of its spec.tenancy.grants)");
    // the call queues' wait is an objective like any other: the priority is the grant's to give, and a malformed
    // one is refused in words
    String queueTenant = tenantFile(teamA, "x11", "{user: " + ua + "cqt}", "qos: {priority: 5, latencyObjectives: "
        + "[{source: CallQueue, operations: all, statistic: Mean, boundMillis: 2}]}");
    assertRefused(Kubectl.run("--as=alice", "apply", "-f", queueTenant), "spec.qos.priority",
        "does not grant namespace " + teamA + " priority 5");
    assertRefused(Kubectl.run("--as=alice", "apply", "-f", tenantFile(teamA, "x12", "{user: " + ua + "cq}",
        "qos: {priority: 1, latencyObjectives: [{source: CallQueue, boundMillis: 2}]}")),
        "spec.qos.latencyObjectives[0]", "source CallQueue judges the mean wait of every call in the RegionServers' "
            + "call queues: it needs operations all and statistic Mean");
    // nor runs PromQL against the platform's Prometheus (which holds every team's series) ungranted
    String promQL = tenantFile(teamA, "x10", "{user: " + ua + "pq}", "calibration: {targetOpsPerSecond: 100, "
        + "source: Prometheus, prometheus: {query: 'sum(rate(app_ops_total[1m]))'}}");
    assertRefused(Kubectl.run("--as=alice", "apply", "-f", promQL), "spec.calibration.source",
        "does not grant namespace " + teamA + " queries of its Prometheus");
    // both once the platform grants them
    Resources.editCluster(k8s, platform, "shared", c -> {
      c.getSpec().getTenancy().getGrants().get(0).setMaxPriority(5);
      c.getSpec().getTenancy().getGrants().get(0).setPrometheusQueries(true);
    });
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      for (String f : List.of(protectedTenant, promQL, queueTenant)) {
        Kubectl.Result dry = Kubectl.run("--as=alice", "apply", "--dry-run=server", "-f", f);
        assertThat(dry.exit()).as(dry.output()).isZero();
      }
    });
    assertThat(canI("alice", "create", "tenantquotas", teamA)).isEqualTo("yes");
    assertThat(canI("alice", "create", "hbaseclusters", teamA)).isEqualTo("no");
    assertThat(canI("alice", "patch", "tenantquotas", teamA, "--subresource=status")).as("status is the operator's")
        .isEqualTo("no");
    assertThat(k8s.resources(TenantQuota.class).inNamespace(teamA).list().getItems()).extracting(t -> t.getMetadata()
        .getName()).containsExactly("svc");

    await().during(3, TimeUnit.SECONDS).atMost(10, TimeUnit.SECONDS)
        .untilAsserted(() -> assertThat(quotaTable()).isEqualTo(before));
  }

  @Test
  void aGrantTakenBackStopsTheOperatorWritingButLeavesWhatHBaseHolds() throws Exception {
    String user = ua + "revoked";
    applyAsAliceAndAwaitReady("revoked", user);
    // the platform narrows team A's grant to one user; the TenantQuota exists already, admission never sees it
    Resources.editCluster(k8s, platform, "shared", hc -> hc.getSpec().getTenancy().getGrants().get(0)
        .setUsers(List.of(ua + "svc")));
    try {
      revokedGrantIsHonoured("revoked", user);
    } finally {
      Resources.editCluster(k8s, platform, "shared", hc -> hc.getSpec().getTenancy().getGrants().get(0)
          .setUsers(List.of(ua + "*")));
    }
  }

  /**
   * The grant is taken back while the operator is stopped: after its restart (informer caches filled
   * from nothing) the TenantQuota is refused all the same, and HBase keeps what it held.
   */
  @Test
  void aGrantTakenBackWhileTheOperatorIsDownIsHonouredAfterItsRestart() throws Exception {
    String user = ua + "down";
    applyAsAliceAndAwaitReady("revoked-down", user);
    operator.close();
    Resources.editCluster(k8s, platform, "shared", hc -> hc.getSpec().getTenancy().getGrants().get(0)
        .setUsers(List.of(ua + "svc")));
    try {
      operator = OperatorProcess.start(operatorKubeconfig, operatorEnv, "/q/health/ready");
      revokedGrantIsHonoured("revoked-down", user);
    } finally {
      Resources.editCluster(k8s, platform, "shared", hc -> hc.getSpec().getTenancy().getGrants().get(0)
          .setUsers(List.of(ua + "*")));
    }
  }

  /**
   * A grant by labels (as Gateway API's allowedRoutes selector): a namespace is granted while it
   * carries the label, which its team cannot set itself. Refused at admission before the label,
   * admitted and written after it; the label taken away is a grant taken back (the operator writes
   * nothing more, HBase keeps what it holds).
   */
  @Test
  void aNamespaceGrantedByItsLabelsHoldsTheGrantWhileItCarriesThem() throws Exception {
    String teamC = KubeApi.newNamespace("team-c");
    NAMESPACES.add(0, teamC);
    String uc = "tc" + ua.substring(2);
    String label = "tier-" + ua.substring(2, ua.length() - 1);
    Kubectl.Result r = Kubectl.run("create", "rolebinding", "carol-edit", "--clusterrole=edit", "--user=carol",
        "-n", teamC);
    assertThat(r.exit()).as(r.output()).isZero();
    Resources.editCluster(k8s, platform, "shared", hc -> {
      TenantGrant g = new TenantGrant(List.of(), List.of(uc + "*"), null, null);
      g.setFromNamespaceSelector(new NamespaceSelector(Map.of("hbaseqos.io/tier", label), null));
      hc.getSpec().getTenancy().getGrants().add(g);
    });
    String tq = tenantFile(teamC, "svc", "{user: " + uc + "svc}", "throttles: [{type: REQUEST_NUMBER, limit: 70req/sec}]");
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(canI("carol", "create", "tenantquotas", teamC))
        .isEqualTo("yes"));
    assertRefused(Kubectl.run("--as=carol", "apply", "-f", tq), "spec.clusterRef",
        "namespace " + teamC + " is not granted the use of HBaseCluster " + platform + "/shared: no entry of its "
            + "spec.tenancy.grants names it in fromNamespaces or selects its labels");
    // the team cannot grant itself: labels are written by whoever may update the Namespace
    assertRefused(Kubectl.run("--as=carol", "label", "namespace", teamC, "hbaseqos.io/tier=" + label), "forbidden",
        "User \"carol\" cannot");
    r = Kubectl.run("label", "namespace", teamC, "hbaseqos.io/tier=" + label);
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      Kubectl.Result a = Kubectl.run("--as=carol", "apply", "-f", tq);
      assertThat(a.exit()).as(a.output()).isZero();
    });
    await().atMost(60, TimeUnit.SECONDS).until(() -> "req_num=70/SECONDS".equals(quotaTable().get("u." + uc + "svc q:s")));
    TenantStatus.awaitReady(k8s, teamC, "svc");
    // a grant by labels is no wider than one by name: another team's user stays refused
    assertRefused(Kubectl.run("--as=carol", "apply", "-f", tenantFile(teamC, "x", "{user: " + ua + "svc}",
        "throttles: [{type: REQUEST_NUMBER, limit: 1req/sec}]")), "spec.subject.user",
        "does not grant namespace " + teamC + " the HBase user " + ua + "svc");

    // the label taken away: the operator hears it from the namespace and writes nothing more
    r = Kubectl.run("label", "namespace", teamC, "hbaseqos.io/tier-");
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> assertThat(TenantStatus.condition(k8s, teamC, "svc",
        "Ready")).satisfies(c -> {
          assertThat(c).isNotNull();
          assertThat(c.getReason()).isEqualTo("NotGranted");
          assertThat(c.getMessage()).contains("namespace " + teamC + " is not granted the use of HBaseCluster");
        }));
    Map<String, String> held = quotaTable();
    assertThat(held).containsEntry("u." + uc + "svc q:s", "req_num=70/SECONDS");
    r = Kubectl.run("--as=carol", "-n", teamC, "delete", "tq", "svc", "--wait=true", "--timeout=60s");
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(quotaTable()).as("deleting a TenantQuota no longer granted removes nothing").isEqualTo(held);

    // matchExpressions at admission, as the operator reads them: In, and DoesNotExist
    String ue = "te" + ua.substring(2);
    Resources.editCluster(k8s, platform, "shared", hc -> {
      TenantGrant g = new TenantGrant(List.of(), List.of(ue + "*"), null, null);
      g.setFromNamespaceSelector(new NamespaceSelector(null, List.of(
          new NamespaceSelector.Requirement("hbaseqos.io/tier", NamespaceSelector.Operator.In, List.of(label + "-x")),
          new NamespaceSelector.Requirement("hbaseqos.io/frozen", NamespaceSelector.Operator.DoesNotExist, null))));
      hc.getSpec().getTenancy().getGrants().add(g);
    });
    String byExpressions = tenantFile(teamC, "expr", "{user: " + ue + "svc}",
        "throttles: [{type: REQUEST_NUMBER, limit: 5req/sec}]");
    r = Kubectl.run("label", "--overwrite", "namespace", teamC, "hbaseqos.io/tier=" + label + "-x");
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      Kubectl.Result a = Kubectl.run("--as=carol", "apply", "--dry-run=server", "-f", byExpressions);
      assertThat(a.exit()).as(a.output()).isZero();
    });
    r = Kubectl.run("label", "namespace", teamC, "hbaseqos.io/frozen=yes");
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertRefused(Kubectl.run("--as=carol", "apply",
        "--dry-run=server", "-f", byExpressions), "spec.clusterRef", "namespace " + teamC + " is not granted"));
  }

  /** A field of alice's TenantQuota in {@code teamA}, read with her rights ({@code kubectl --as=alice get -o jsonpath}). */
  static String asAlice(String name, String jsonPath) {
    Kubectl.Result r = Kubectl.run("--as=alice", "-n", teamA, "get", "tq", name, "-o", "jsonpath={" + jsonPath + "}");
    assertThat(r.exit()).as(r.output()).isZero();
    return r.output().trim();
  }

  /**
   * A team tries a limit on its own subject in dry run ({@code enforcement} is a field of its own
   * TenantQuota): nothing is written, it reads the plan and the prediction with its own rights, and
   * switching to Enforce writes exactly the plan. A dry run reaches no further than an enforced tenant
   * (another team's subject is refused the same), and the platform's policy, dry run or not, stays out
   * of its reach.
   */
  @Test
  void aTeamDryRunsALimitOnItsOwnSubjectAndCannotTouchThePlatformsPolicy() throws Exception {
    String user = ua + "dry";
    String dry = tenantFile(teamA, "dry", "{user: " + user + "}",
        "throttles: [{type: REQUEST_NUMBER, limit: 40req/sec}]\n  enforcement: DryRun");
    Kubectl.Result r = Kubectl.run("--as=alice", "apply", "-f", dry);
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(60, TimeUnit.SECONDS).ignoreExceptions().until(() ->
        "DryRun".equals(asAlice("dry", ".status.conditions[?(@.type==\"Ready\")].reason")));
    assertThat(asAlice("dry", ".status.conditions[?(@.type==\"Ready\")].message"))
        .startsWith("dry run: nothing is written to HBase; Enforce would write REQUEST_NUMBER=40req/sec");
    assertThat(asAlice("dry", ".status.dryRun.plan")).isEqualTo("REQUEST_NUMBER=40req/sec");
    assertThat(asAlice("dry", ".status.dryRun.message")).endsWith("nothing is written to HBase");
    assertThat(quotaTable()).as("nothing written for the dry run").doesNotContainKey("u." + user + " q:s");

    // no further than an enforced tenant: another team's user, and no loop that would write
    assertRefused(Kubectl.run("--as=alice", "apply", "-f", tenantFile(teamA, "x-dry", "{user: " + ub + "svc}",
        "throttles: [{type: REQUEST_NUMBER, limit: 1req/sec}]\n  enforcement: DryRun")), "spec.subject.user",
        "does not grant namespace " + teamA + " the HBase user " + ub + "svc");
    assertRefused(Kubectl.run("--as=alice", "apply", "-f", tenantFile(teamA, "x-dry-cal", "{user: " + user + "2}",
        "calibration: {targetOpsPerSecond: 100}\n  enforcement: DryRun")), "spec",
        "enforcement DryRun cannot be combined with calibration or qos");
    // the platform's policy: neither read nor dry-run nor enforced by a team
    assertRefused(Kubectl.run("--as=alice", "-n", platform, "patch", "hbc", "shared", "--type=merge", "-p",
        "{\"spec\":{\"throttlePolicy\":{\"enforcement\":\"DryRun\"}}}"), "forbidden", "User \"alice\" cannot");
    assertThat(canI("alice", "patch", "hbaseclusters", platform)).isEqualTo("no");

    // enforced by the team itself: exactly the plan
    r = Kubectl.run("--as=alice", "-n", teamA, "patch", "tq", "dry", "--type=merge", "-p",
        "{\"spec\":{\"enforcement\":\"Enforce\"}}");
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(60, TimeUnit.SECONDS).until(() -> "req_num=40/SECONDS".equals(quotaTable().get("u." + user + " q:s")));
    await().atMost(30, TimeUnit.SECONDS).ignoreExceptions().until(() ->
        asAlice("dry", ".status.dryRun").isEmpty() && "True".equals(asAlice("dry",
            ".status.conditions[?(@.type==\"Ready\")].status")));
    r = Kubectl.run("--as=alice", "-n", teamA, "delete", "tq", "dry", "--wait=true", "--timeout=60s");
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(quotaTable()).doesNotContainKey("u." + user + " q:s");
  }

  /** Alice's TenantQuota {@code name} for {@code user} at 300 req/sec, once the operator has made it Ready. */
  static void applyAsAliceAndAwaitReady(String name, String user) throws Exception {
    Kubectl.Result r = applyAs("alice", teamA, name, "{user: " + user + "}", "300req/sec");
    assertThat(r.exit()).as(r.output()).isZero();
    await().atMost(60, TimeUnit.SECONDS).until(() -> "True".equals(java.util.Optional.ofNullable(
        TenantStatus.condition(k8s, teamA, name, "Ready")).map(c -> c.getStatus()).orElse(null)));
  }

  void revokedGrantIsHonoured(String name, String user) throws Exception {
    await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> assertThat(TenantStatus.condition(k8s, teamA, name,
        "Ready")).satisfies(c -> {
          assertThat(c).isNotNull();
          assertThat(c.getReason()).isEqualTo("NotGranted");
          assertThat(c.getMessage()).contains("does not grant namespace " + teamA + " spec.subject's user " + user)
              .contains("nothing of this resource is written to HBase");
        }));
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(TenantStatus.events(k8s, teamA, name))
        .map(Event::getReason).contains("NotGranted"));
    Map<String, String> held = quotaTable();
    assertThat(held).containsEntry("u." + user + " q:s", "req_num=300/SECONDS");
    // an edit admission lets through (the spec did not change) and deletion write nothing either
    Kubectl.Result r = Kubectl.run("--as=alice", "-n", teamA, "label", "tq", name, "team=a");
    assertThat(r.exit()).as(r.output()).isZero();
    assertRefused(Kubectl.run("--as=alice", "-n", teamA, "patch", "tq", name, "--type=merge", "-p",
        "{\"spec\":{\"throttles\":[{\"type\":\"REQUEST_NUMBER\",\"limit\":\"1req/sec\"}]}}"), "spec.subject.user",
        "the HBase user " + user);
    r = Kubectl.run("--as=alice", "-n", teamA, "delete", "tq", name, "--wait=true", "--timeout=60s");
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(quotaTable()).isEqualTo(held);
  }

  static void assertRefused(Kubectl.Result r, String field, String reason) {
    assertThat(r.exit()).as(r.output()).isNotZero();
    assertThat(r.output()).contains(field).contains(reason);
  }
}
