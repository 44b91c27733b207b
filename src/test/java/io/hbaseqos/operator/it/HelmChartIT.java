package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.hbaseqos.operator.support.Helm;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.Kubectl;
import io.hbaseqos.operator.support.Paths;
import io.hbaseqos.operator.support.Processes;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Helm chart: lint, render with default and non-default values, every rendered object
 * accepted by a real API server (server-side dry run), values.schema.json refusing bad values,
 * and deploy/ rendered from it.
 */
class HelmChartIT {
  static final String CI_VALUES = "helm/hbase-qos-operator/ci/everything-values.yaml";
  static KubernetesClient k8s;

  @BeforeAll
  static void prepare() {
    k8s = KubeApi.client();
    for (String ns : List.of("hbq-chart", "tenants-a", "tenants-b")) {
      k8s.resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).serverSideApply();
    }
    // The Prometheus operator's kinds, so that ServiceMonitor and PrometheusRule can be dry-run
    // (their own schemas are not available offline; these accept any spec).
    for (String[] kind : new String[][] {{"ServiceMonitor", "servicemonitors"}, {"PrometheusRule", "prometheusrules"}}) {
      CustomResourceDefinition crd = new CustomResourceDefinitionBuilder().withNewMetadata()
          .withName(kind[1] + ".monitoring.coreos.com").endMetadata().withNewSpec().withGroup("monitoring.coreos.com")
          .withScope("Namespaced").withNewNames().withKind(kind[0]).withPlural(kind[1]).endNames()
          .addNewVersion().withName("v1").withServed(true).withStorage(true).withNewSchema().withNewOpenAPIV3Schema()
          .withType("object").withXKubernetesPreserveUnknownFields(true).endOpenAPIV3Schema().endSchema().endVersion()
          .endSpec().build();
      k8s.resource(crd).serverSideApply();
      k8s.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
          .waitUntilCondition(c -> c.getStatus() != null && c.getStatus().getConditions() != null && c.getStatus()
              .getConditions().stream().anyMatch(x -> "Established".equals(x.getType()) && "True".equals(x.getStatus())),
              30, TimeUnit.SECONDS);
    }
  }

  static String render(String... extra) {
    List<String> args = new java.util.ArrayList<>(List.of("template", "hbq", Helm.chart().toString(), "--namespace",
        "hbq-chart"));
    args.addAll(List.of(extra));
    Kubectl.Result r = Helm.offline(args.toArray(String[]::new));
    assertThat(r.exit()).as(r.output()).isZero();
    return r.output();
  }

  static List<HasMetadata> objects(String yaml) {
    return k8s.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
  }

  static void dryRunOnServer(String yaml) throws Exception {
    Path f = Files.createTempFile("chart", ".yaml");
    Files.writeString(f, yaml);
    Kubectl.Result r = Kubectl.run("apply", "--dry-run=server", "-f", f.toString());
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("deployment.apps/hbq-hbase-qos-operator created (server dry run)");
  }

  @Test
  void lintsCleanWithDefaultAndNonDefaultValues() {
    Kubectl.Result plain = Helm.offline("lint", "--strict", Helm.chart().toString());
    assertThat(plain.exit()).as(plain.output()).isZero();
    Kubectl.Result all = Helm.offline("lint", "--strict", Helm.chart().toString(), "-f",
        Paths.projectDir().resolve(CI_VALUES).toString());
    assertThat(all.exit()).as(all.output()).isZero();
  }

  @Test
  void defaultValuesRenderACompleteLeastPrivilegeInstallThatTheServerAccepts() throws Exception {
    String yaml = render();
    dryRunOnServer(yaml);
    List<HasMetadata> objs = objects(yaml);
    assertThat(objs).extracting(HasMetadata::getKind).containsExactlyInAnyOrder("ServiceAccount", "ClusterRole",
        "ClusterRoleBinding", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Service", "Deployment",
        "ClusterRole", "ClusterRole", "ClusterRole", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
        "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");
    // topology is nowhere by default: the operator reads StatefulSets and pods, and writes none of
    // the objects of a topology in any namespace (no Role of topology.namespaces)
    assertThat(clusterRole(objs, "hbq-hbase-qos-operator").getRules())
        .filteredOn(r -> r.getResources().stream().anyMatch(TOPOLOGY_OBJECTS::contains))
        .allSatisfy(r -> assertThat(r.getVerbs()).isSubsetOf("get", "list", "watch"));
    assertThat(objs).filteredOn(o -> o instanceof Role).extracting(o -> o.getMetadata().getName())
        .doesNotContain("hbq-hbase-qos-operator-topology");
    assertThat(objs).filteredOn(o -> "ValidatingAdmissionPolicy".equals(o.getKind())
        && o.getMetadata().getName().endsWith("-topology")).singleElement()
        .satisfies(p -> assertThat(Serialization.asYaml(p)).contains("object.metadata.namespace in []")
            .contains("!has(v.hostPath)"));
    for (HasMetadata o : objs) {
      if (o instanceof ClusterRole cr && !tenancyRole(cr)) {
        assertNoWildcards(cr.getRules());
        assertThat(cr.getRules()).flatExtracting(PolicyRule::getResources).doesNotContain("secrets");
        assertThat(cr.getRules()).filteredOn(r -> r.getResources().contains("pods") || r.getResources().contains("nodes")
                || r.getResources().contains("namespaces"))
            .allSatisfy(r -> assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch"));
      }
    }
    // tenant teams: TenantQuotas in their namespaces through Kubernetes' own roles, nothing else
    ClusterRole edit = clusterRole(objs, "hbq-hbase-qos-operator-tenant-edit");
    assertThat(edit.getMetadata().getLabels()).containsEntry("rbac.authorization.k8s.io/aggregate-to-edit", "true")
        .containsEntry("rbac.authorization.k8s.io/aggregate-to-admin", "true");
    assertThat(edit.getRules()).flatExtracting(PolicyRule::getResources)
        .containsExactlyInAnyOrder("tenantquotas", "tenantquotas/status");
    assertThat(edit.getRules()).filteredOn(r -> r.getResources().contains("tenantquotas/status"))
        .allSatisfy(r -> assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch"));
    ClusterRole view = clusterRole(objs, "hbq-hbase-qos-operator-tenant-view");
    assertThat(view.getMetadata().getLabels()).containsEntry("rbac.authorization.k8s.io/aggregate-to-view", "true");
    assertThat(view.getRules()).allSatisfy(r -> assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list",
        "watch"));
    assertThat(clusterRole(objs, "hbq-hbase-qos-operator-platform").getMetadata().getLabels())
        .as("the platform's role is bound by the platform, never aggregated").doesNotContainKeys(
            "rbac.authorization.k8s.io/aggregate-to-edit", "rbac.authorization.k8s.io/aggregate-to-admin");
    assertThat(objs).filteredOn(o -> "ValidatingAdmissionPolicyBinding".equals(o.getKind())
        && o.getMetadata().getName().endsWith("-tenant-grants-hbq-chart")).singleElement()
        .satisfies(b -> assertThat(Serialization.asYaml(b)).contains("paramRef:").contains("namespace: \"hbq-chart\""));

    Role own = (Role) objs.stream().filter(o -> o instanceof Role && o.getMetadata().getName().endsWith("-own-namespace"))
        .findFirst().orElseThrow();
    assertThat(own.getMetadata().getNamespace()).isEqualTo("hbq-chart");
    assertThat(own.getRules()).hasSize(2);
    assertThat(own.getRules()).filteredOn(r -> r.getResources().contains("leases")).singleElement()
        .satisfies(r -> assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "create", "update", "patch"));
    assertThat(own.getRules()).filteredOn(r -> r.getResources().contains("configmaps")).singleElement()
        .as("the records of retained quotas").satisfies(r -> assertThat(r.getVerbs())
            .containsExactlyInAnyOrder("get", "create", "patch"));

    Deployment d = (Deployment) objs.stream().filter(o -> o instanceof Deployment).findFirst().orElseThrow();
    var pod = d.getSpec().getTemplate().getSpec();
    var c = pod.getContainers().get(0);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/q/health/live");
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/q/health/ready");
    assertThat(c.getResources().getLimits()).containsKey("memory");
    assertThat(c.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("QUARKUS_OPERATOR_SDK_NAMESPACES");
      assertThat(e.getValue()).isEqualTo("JOSDK_ALL_NAMESPACES");
    });
    assertThat(c.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("QUARKUS_PROFILE");
      assertThat(e.getValue()).as("the profile that switches leader election on").isEqualTo("cluster");
    });
  }

  @Test
  void nonDefaultValuesRenderNamespacedRbacKerberosAndMonitoringThatTheServerAccepts() throws Exception {
    String yaml = render("-f", Paths.projectDir().resolve(CI_VALUES).toString());
    dryRunOnServer(yaml);
    List<HasMetadata> objs = objects(yaml);
    assertThat(objs).filteredOn(o -> o instanceof ClusterRole cr && !tenancyRole(cr)).singleElement()
        .satisfies(o -> assertThat(((ClusterRole) o).getRules()).singleElement()
            .satisfies(r -> assertThat(r.getResources()).containsExactly("nodes", "namespaces")))
        .as("only nodes and namespaces (cluster-scoped: the node pool, the labels grants select) are read "
            + "cluster-wide when namespaces are listed");
    assertThat(objs).extracting(HasMetadata::getKind).contains("ServiceMonitor", "PrometheusRule");
    assertThat(objs).filteredOn(o -> o instanceof Role).extracting(o -> o.getMetadata().getNamespace())
        .containsExactlyInAnyOrder("tenants-a", "tenants-b", "hbq-chart", "tenants-b");
    // topology's write rights only where topology.namespaces lists, host paths allowed
    assertThat(objs).filteredOn(o -> o instanceof Role && o.getMetadata().getName().endsWith("-topology")).singleElement()
        .satisfies(o -> {
          assertThat(o.getMetadata().getNamespace()).isEqualTo("tenants-b");
          assertThat(((Role) o).getRules()).flatExtracting(PolicyRule::getResources)
              .containsExactlyInAnyOrderElementsOf(TOPOLOGY_OBJECTS);
          // each a dependent read from an informer of its kind here; StatefulSets are read everywhere
          assertThat(((Role) o).getRules()).allSatisfy(r -> assertThat(r.getVerbs()).containsExactlyInAnyOrderElementsOf(
              r.getResources().contains("statefulsets") ? List.of("get", "create", "patch")
                  : List.of("get", "list", "watch", "create", "patch")));
        });
    assertThat(objs).filteredOn(o -> "ValidatingAdmissionPolicy".equals(o.getKind())
        && o.getMetadata().getName().endsWith("-topology")).singleElement()
        .satisfies(p -> assertThat(Serialization.asYaml(p)).contains("object.metadata.namespace in ['tenants-b']")
            .doesNotContain("hostPath"));
    objs.stream().filter(o -> o instanceof Role).forEach(o -> assertNoWildcards(((Role) o).getRules()));
    Deployment d = (Deployment) objs.stream().filter(o -> o instanceof Deployment).findFirst().orElseThrow();
    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
    var c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("QUARKUS_OPERATOR_SDK_NAMESPACES");
      assertThat(e.getValue()).isEqualTo("tenants-a,tenants-b");
    });
    assertThat(c.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("HBASEQOS_TOPOLOGY_NAMESPACES");
      assertThat(e.getValue()).isEqualTo("tenants-b");
    });
    assertThat(c.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("JAVA_OPTS_APPEND");
      assertThat(e.getValue()).contains("-Djava.security.krb5.conf=/etc/hbase-qos/krb5/krb5.conf");
    });
    assertThat(c.getVolumeMounts()).extracting(m -> m.getMountPath())
        .contains("/etc/hbase-qos/keytab", "/etc/hbase-qos/krb5", "/etc/hbase-qos/conf", "/tmp");
    String site = objs.stream().filter(o -> o.getMetadata().getName().endsWith("-hbase-site")).findFirst()
        .map(o -> ((io.fabric8.kubernetes.api.model.ConfigMap) o).getData().get("hbase-site.xml")).orElseThrow();
    assertThat(site).contains("<name>hbase.client.keytab.principal</name><value>hbase-qos-operator@EXAMPLE.COM</value>")
        .contains("<value>/etc/hbase-qos/keytab/operator.keytab</value>")
        .contains("<name>hbase.rpc.timeout</name><value>15000</value>")
        .as("no ZooKeeper login unless asked for").doesNotContain("hbase.zookeeper.client");
    String zkSite = objects(render("-f", Paths.projectDir().resolve(CI_VALUES).toString(), "--set",
        "hbase.kerberos.zookeeperSasl=true")).stream().filter(o -> o.getMetadata().getName().endsWith("-hbase-site"))
        .findFirst().map(o -> ((io.fabric8.kubernetes.api.model.ConfigMap) o).getData().get("hbase-site.xml"))
        .orElseThrow();
    assertThat(zkSite).contains("<name>hbase.zookeeper.client.kerberos.principal</name><value>hbase-qos-operator@"
        + "EXAMPLE.COM</value>").contains("<name>hbase.zookeeper.client.keytab.file</name><value>/etc/hbase-qos/"
        + "keytab/operator.keytab</value>");
    assertThat(objs).filteredOn(o -> o.getMetadata().getName().endsWith("-dashboard")).singleElement()
        .satisfies(o -> assertThat(((io.fabric8.kubernetes.api.model.ConfigMap) o).getData().get(
            "hbase-qos-operator.json")).contains("\"uid\": \"hbase-qos-operator\""));
  }

  /** Values reach the operator's hbase-site.xml as character data: no value can add or end an XML element. */
  @Test
  void clientConfigValuesAreEscapedInTheOperatorsHbaseSite() {
    String site = objects(render("--set-string", "hbase.clientConfig.hbase\\.example=a<b>&c</value><property>"))
        .stream().filter(o -> o.getMetadata().getName().endsWith("-hbase-site")).findFirst()
        .map(o -> ((io.fabric8.kubernetes.api.model.ConfigMap) o).getData().get("hbase-site.xml")).orElseThrow();
    assertThat(site).contains("<name>hbase.example</name><value>a&lt;b&gt;&amp;c&lt;/value&gt;&lt;property&gt;</value>");
  }

  /** The chart's roles for people (tenant and platform teams), not for the operator's ServiceAccount. */
  /** The objects of an HBaseCluster's topology the operator writes. */
  static final List<String> TOPOLOGY_OBJECTS = List.of("statefulsets", "configmaps", "services", "poddisruptionbudgets");

  static boolean tenancyRole(ClusterRole cr) {
    return cr.getMetadata().getName().matches(".*-(tenant-edit|tenant-view|platform)$");
  }

  static ClusterRole clusterRole(List<HasMetadata> objs, String name) {
    return (ClusterRole) objs.stream().filter(o -> o instanceof ClusterRole && name.equals(o.getMetadata().getName()))
        .findFirst().orElseThrow();
  }

  static void assertNoWildcards(List<PolicyRule> rules) {
    assertThat(rules).allSatisfy(r -> {
      assertThat(r.getVerbs()).doesNotContain("*", "delete", "deletecollection", "escalate", "bind", "impersonate");
      assertThat(r.getResources()).doesNotContain("*");
      assertThat(r.getApiGroups()).doesNotContain("*");
    });
  }

  /**
   * The chart's alerting rules as Prometheus itself reads them: {@code promtool check rules}, and
   * {@code promtool test rules} for the tenant alerts on synthetic series (a loop Converging for
   * 40 minutes fires after 30; a DemandLimited or Converged one never does; a protected tenant out of
   * capacity fires after 10 minutes, one out of capacity for 5 minutes never does).
   */
  @Test
  void theAlertRulesAreValidPrometheusRulesAndTheCalibrationAlertFiresOnlyWhenItShould() throws Exception {
    GenericKubernetesResource rule = objects(render("--set", "metrics.prometheusRule.enabled=true")).stream()
        .filter(o -> "PrometheusRule".equals(o.getKind())).map(o -> (GenericKubernetesResource) o).findFirst()
        .orElseThrow();
    Path dir = Files.createTempDirectory("promtool");
    Files.writeString(dir.resolve("rules.yaml"), Serialization.asYaml(rule.getAdditionalProperties().get("spec")));
    Path promtool = Paths.cacheDir().resolve("tools/promtool");
    KubeApi.ensure("prometheus", List.of(promtool));
    Kubectl.Result check = Processes.run(List.of(promtool.toString(), "check", "rules",
        dir.resolve("rules.yaml").toString()), Map.of());
    assertThat(check.exit()).as(check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS: 11 rules found");

    Map<String, String> annotations = annotations(rule, "HBaseQosCalibrationNotConverging");
    Map<String, String> near = annotations(rule, "HBaseQosSpaceQuotaNearLimit");
    Map<String, String> violated = annotations(rule, "HBaseQosSpaceQuotaViolated");
    Map<String, String> settings = annotations(rule, "HBaseQosQuotaSettingsMismatch");
    Map<String, String> capacity = annotations(rule, "HBaseQosLatencyOutOfCapacity");
    String summary = annotations.get("summary").replace("{{ $labels.namespace }}", "team-a")
        .replace("{{ $labels.tenantquota }}", "dashboards").replace("{{ $labels.state }}", "Converging");
    Files.writeString(dir.resolve("test.yaml"), String.join("\n",
        "rule_files: [rules.yaml]",
        "evaluation_interval: 1m",
        "tests:",
        "  - interval: 1m",
        "    input_series:",
        "      - series: 'hbaseqos_tenant_calibration_state{namespace=\"team-a\",tenantquota=\"dashboards\",state=\"Converging\"}'",
        "        values: '1x40'",
        "      - series: 'hbaseqos_tenant_calibration_state{namespace=\"team-a\",tenantquota=\"dashboards\",state=\"Converged\"}'",
        "        values: '0x40'",
        "      - series: 'hbaseqos_tenant_calibration_state{namespace=\"team-a\",tenantquota=\"reports\",state=\"DemandLimited\"}'",
        "        values: '1x40'",
        "      - series: 'hbaseqos_tenant_calibration_state{namespace=\"team-a\",tenantquota=\"reports\",state=\"Converging\"}'",
        "        values: '0x40'",
        "      - series: 'hbaseqos_tenant_calibration_state{namespace=\"team-a\",tenantquota=\"ingest\",state=\"Converged\"}'",
        "        values: '1x40'",
        // space: ingest at 95% of its limit, logs at 50%, full over its limit from minute 2 on
        "      - series: 'hbaseqos_tenant_space_used_bytes{namespace=\"team-a\",tenantquota=\"ingest\"}'",
        "        values: '95x40'",
        "      - series: 'hbaseqos_tenant_space_limit_bytes{namespace=\"team-a\",tenantquota=\"ingest\"}'",
        "        values: '100x40'",
        "      - series: 'hbaseqos_tenant_space_in_violation{namespace=\"team-a\",tenantquota=\"ingest\"}'",
        "        values: '0x40'",
        "      - series: 'hbaseqos_tenant_space_used_bytes{namespace=\"team-a\",tenantquota=\"logs\"}'",
        "        values: '50x40'",
        "      - series: 'hbaseqos_tenant_space_limit_bytes{namespace=\"team-a\",tenantquota=\"logs\"}'",
        "        values: '100x40'",
        "      - series: 'hbaseqos_tenant_space_in_violation{namespace=\"team-a\",tenantquota=\"logs\"}'",
        "        values: '0x40'",
        "      - series: 'hbaseqos_tenant_space_used_bytes{namespace=\"team-a\",tenantquota=\"full\"}'",
        "        values: '120x40'",
        "      - series: 'hbaseqos_tenant_space_limit_bytes{namespace=\"team-a\",tenantquota=\"full\"}'",
        "        values: '100x40'",
        "      - series: 'hbaseqos_tenant_space_in_violation{namespace=\"team-a\",tenantquota=\"full\"}'",
        "        values: '0 0 1x38'",
        // quota settings: prod has 2 mismatching keys from minute 0, staging had one for 10 minutes only
        "      - series: 'hbaseqos_cluster_quota_setting_mismatches{cluster=\"team-a/prod\"}'",
        "        values: '2x40'",
        "      - series: 'hbaseqos_cluster_quota_setting_mismatches{cluster=\"team-a/staging\"}'",
        "        values: '1x10 0x30'",
        // latency: checkout out of capacity from minute 5 on; search for 5 minutes only, then squeezing helped
        "      - series: 'hbaseqos_tenant_latency_out_of_capacity{namespace=\"team-a\",tenantquota=\"checkout\"}'",
        "        values: '0x5 1x35'",
        "      - series: 'hbaseqos_tenant_latency_out_of_capacity{namespace=\"team-a\",tenantquota=\"search\"}'",
        "        values: '1x5 0x35'",
        "    alert_rule_test:",
        silent("25m", "HBaseQosCalibrationNotConverging"),
        fires("35m", "HBaseQosCalibrationNotConverging",
            "severity: warning, namespace: team-a, tenantquota: dashboards, state: Converging", summary,
            annotations.get("description")),
        silent("10m", "HBaseQosSpaceQuotaNearLimit"),
        fires("20m", "HBaseQosSpaceQuotaNearLimit", "severity: warning, namespace: team-a, tenantquota: ingest",
            near.get("summary").replace("{{ $labels.namespace }}/{{ $labels.tenantquota }}", "team-a/ingest")
                .replace("{{ $value | humanizePercentage }}", "95%"), near.get("description")),
        fires("20m", "HBaseQosSpaceQuotaViolated", "severity: critical, namespace: team-a, tenantquota: full",
            violated.get("summary").replace("{{ $labels.namespace }}/{{ $labels.tenantquota }}", "team-a/full"),
            violated.get("description")),
        silent("25m", "HBaseQosQuotaSettingsMismatch"),
        fires("35m", "HBaseQosQuotaSettingsMismatch", "severity: warning, cluster: team-a/prod",
            settings.get("summary").replace("{{ $value }}", "2").replace("{{ $labels.cluster }}", "team-a/prod"),
            settings.get("description")),
        silent("12m", "HBaseQosLatencyOutOfCapacity"),
        fires("20m", "HBaseQosLatencyOutOfCapacity", "severity: critical, namespace: team-a, tenantquota: checkout",
            capacity.get("summary").replace("{{ $labels.namespace }}/{{ $labels.tenantquota }}", "team-a/checkout"),
            capacity.get("description")),
        ""));
    Kubectl.Result test = Processes.run(List.of(promtool.toString(), "test", "rules",
        dir.resolve("test.yaml").toString()), Map.of());
    assertThat(test.exit()).as(test.output()).isZero();
    assertThat(test.output()).contains("SUCCESS");
  }

  @SuppressWarnings("unchecked")
  static Map<String, String> annotations(GenericKubernetesResource rule, String name) {
    Map<String, Object> alert = ((List<Map<String, Object>>) ((List<Map<String, Object>>) ((Map<String, Object>) rule
        .getAdditionalProperties().get("spec")).get("groups")).get(0).get("rules")).stream()
        .filter(r -> name.equals(r.get("alert"))).findFirst().orElseThrow();
    return (Map<String, String>) alert.get("annotations");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "replicas=0                          | at '/replicas': minimum: got 0, want 1",
      "logLevel=LOUD                       | at '/logLevel'",
      "watchNamespaces={Bad_NS}            | at '/watchNamespaces/0'",
      "hbase.kerberos.enabled=true         | at '/hbase/kerberos/principal': minLength",
      "hbase.kerberos.zookeeperSasl=true   | at '/hbase/kerberos/zookeeperSasl'",
      "leaderElection.leaseDuration=fifteen | at '/leaderElection/leaseDuration'",
      "reconcileThreads=0                  | at '/reconcileThreads'",
      "image.pullPolicy=Sometimes          | at '/image/pullPolicy'",
      "metrics.prometheusRule.calibrationNotConvergingFor=soon | at '/metrics/prometheusRule/calibrationNotConvergingFor'",
      "metrics.prometheusRule.latencyOutOfCapacityFor=10 | at '/metrics/prometheusRule/latencyOutOfCapacityFor'",
      "replica=2                           | additional properties 'replica' not allowed"})
  void schemaRefusesBadValuesWithAMessageNamingTheField(String set, String message) {
    Kubectl.Result r = Helm.offline("template", "hbq", Helm.chart().toString(), "--set", set);
    assertThat(r.exit()).isNotZero();
    assertThat(r.output()).contains("values don't meet the specifications").contains(message);
  }

  @Test
  void deployIsRenderedFromTheChart() throws Exception {
    Process p = new ProcessBuilder("bash", Paths.projectDir().resolve("hack/render-deploy.sh").toString(), "--check")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    assertThat(out).contains("deploy/ is up to date");
  }

  /** A promtool alert test case: no {@code alert} at {@code evalTime}. */
  static String silent(String evalTime, String alert) {
    return String.join("\n", "      - eval_time: " + evalTime, "        alertname: " + alert, "        exp_alerts: []");
  }

  /** A promtool alert test case: one {@code alert} at {@code evalTime}, with these labels and annotations. */
  static String fires(String evalTime, String alert, String labels, String summary, String description) {
    return String.join("\n", "      - eval_time: " + evalTime, "        alertname: " + alert, "        exp_alerts:",
        "          - exp_labels: {" + labels + "}",
        "            exp_annotations:",
        "              summary: " + Serialization.asJson(summary),
        "              description: " + Serialization.asJson(description));
  }
}
