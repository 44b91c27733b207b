package io.hbaseqos.operator.ownership;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.HBaseClusterSpec;
import io.hbaseqos.operator.api.NamespaceSelector;
import io.hbaseqos.operator.api.TenancySpec;
import io.hbaseqos.operator.api.TenantGrant;
import io.hbaseqos.operator.quota.Subject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class GrantsTest {
  static HBaseCluster cluster(TenantGrant... grants) {
    HBaseCluster hc = new HBaseCluster();
    hc.setMetadata(new ObjectMetaBuilder().withNamespace("platform").withName("prod").build());
    HBaseClusterSpec spec = new HBaseClusterSpec();
    if (grants.length > 0) {
      TenancySpec t = new TenancySpec();
      t.setGrants(List.of(grants));
      spec.setTenancy(t);
    }
    hc.setSpec(spec);
    return hc;
  }

  static final HBaseCluster PROD = cluster(
      new TenantGrant(List.of("team-a"), List.of("svc_a", "a_*"), List.of("team_a"), List.of("shared:a_*", "t_a")),
      new TenantGrant(List.of("team-a", "team-c"), null, List.of("common*"), null),
      new TenantGrant(List.of("team-b"), List.of("svc_b"), null, null));

  static Subject subject(String spec) {
    String[] p = spec.split("\\|", -1);
    return new Subject(p[0].isEmpty() ? null : p[0], p[1].isEmpty() ? null : p[1], p[2].isEmpty() ? null : p[2]);
  }

  @ParameterizedTest
  @CsvSource(delimiter = ';', value = {
      "team-a; svc_a||", "team-a; a_x||", "team-a; a_||", "team-a; |team_a|", "team-a; ||team_a:t1",
      "team-a; ||shared:a_t", "team-a; ||t_a", "team-a; ||default:t_a", "team-a; svc_a|team_a|",
      "team-a; svc_a||team_a:t", "team-a; |common_x|", "team-a; ||common:t", "team-c; |common|",
      "team-b; svc_b||", "platform; anyone||", "platform; |hbase_ns|",
  })
  void grantedSubjects(String ns, String subject) {
    assertThat(Grants.refusal(PROD, ns, Map.of(), subject(subject))).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = ';', value = {
      "team-a; svc_b||; user svc_b (granted users: svc_a, a_*)",
      "team-a; svc||; user svc (granted users: svc_a, a_*)",
      "team-a; |team_b|; HBase namespace team_b (granted: team_a, common*)",
      "team-a; ||shared:b_t; table shared:b_t (granted tables: shared:a_*, t_a; granted HBase namespaces: team_a, common*)",
      "team-a; ||t_b; table default:t_b",
      "team-a; svc_a||team_b:t; table team_b:t",
      "team-a; svc_b|team_a|; user svc_b",
      "team-c; svc_a||; user svc_a (granted users: none)",
      "team-b; |team_a|; HBase namespace team_a (granted: none)",
  })
  void refusedSubjectsNameWhatIsMissing(String ns, String subject, String words) {
    assertThat(Grants.refusal(PROD, ns, Map.of(), subject(subject))).get().asString()
        .startsWith("HBaseCluster platform/prod does not grant namespace " + ns + " spec.subject's ").contains(words);
  }

  @Test
  void aNamespaceNoGrantNamesMayNotUseTheClusterAtAll() {
    assertThat(Grants.refusal(PROD, "team-x", Map.of(), Subject.user("svc_a"))).get().asString()
        .isEqualTo("namespace team-x is not granted the use of HBaseCluster platform/prod: no entry of its "
            + "spec.tenancy.grants names it in fromNamespaces or selects its labels");
    assertThat(Grants.refusal(cluster(), "team-a", Map.of(), Subject.user("svc_a"))).as("no tenancy at all").isPresent();
    assertThat(Grants.refusal(cluster(), "platform", Map.of(), Subject.user("svc_a"))).as("its own namespace").isEmpty();
  }

  @Test
  void patternsAreNamesOrPrefixes() {
    assertThat(Grants.matches("*", "anything")).isTrue();
    assertThat(Grants.matches("a_*", "a_")).isTrue();
    assertThat(Grants.matches("a_*", "a")).isFalse();
    assertThat(Grants.matches("a", "ab")).isFalse();
    assertThat(Grants.matches("a.b", "aXb")).as("no regular expressions").isFalse();
  }

  @Test
  void aTenantNamespaceMayNotNameAPrometheusOfItsOwn() {
    io.hbaseqos.operator.api.TenantQuotaSpec spec = new io.hbaseqos.operator.api.TenantQuotaSpec();
    io.hbaseqos.operator.api.CalibrationSpec c = new io.hbaseqos.operator.api.CalibrationSpec();
    c.setPrometheus(new io.hbaseqos.operator.api.CalibrationSpec.PrometheusSource());
    c.getPrometheus().setQuery("sum(rate(ops[1m]))");
    spec.setCalibration(c);
    assertThat(Grants.specRefusal(PROD, "team-a", Map.of(), spec)).as("the platform's Prometheus").isEmpty();
    c.getPrometheus().setUrl("http://169.254.169.254/latest");
    assertThat(Grants.specRefusal(PROD, "team-a", Map.of(), spec)).get().asString()
        .startsWith("spec.calibration.prometheus.url: a TenantQuota from namespace team-a queries the Prometheus of "
            + "HBaseCluster platform/prod (its spec.prometheus.url) and may not name one");
    assertThat(Grants.specRefusal(PROD, "platform", Map.of(), spec)).as("the platform's own TenantQuotas may").isEmpty();
  }

  @Test
  void aTenantNamespaceClaimsPriorityAndRunsPromQLOnlyAsFarAsItsGrantsSay() {
    TenantGrant a = new TenantGrant(List.of("team-a"), List.of("svc_a"), null, null);
    a.setMaxPriority(50);
    a.setPrometheusQueries(true);
    TenantGrant ab = new TenantGrant(List.of("team-a", "team-b"), List.of("x"), null, null);
    ab.setMaxPriority(10);
    HBaseCluster hc = cluster(a, ab);
    assertThat(Grants.specRefusal(hc, "team-a", Map.of(), qos(50, false))).as("the highest of its grants").isEmpty();
    assertThat(Grants.specRefusal(hc, "team-a", Map.of(), qos(51, false))).get().asString().isEqualTo("spec.qos.priority: "
        + "HBaseCluster platform/prod grants namespace team-a priorities up to 50 (maxPriority of its "
        + "spec.tenancy.grants), not 51: a protected tenant slows down the cluster's sheddable tenants of lower "
        + "priority, other teams' too");
    assertThat(Grants.specRefusal(hc, "team-b", Map.of(), qos(10, false))).isEmpty();
    assertThat(Grants.specRefusal(hc, "team-b", Map.of(), qos(11, false))).get().asString().contains("up to 10");
    assertThat(Grants.specRefusal(PROD, "team-a", Map.of(), qos(1, false))).as("no grant sets maxPriority: 0").get().asString()
        .contains("priorities up to 0");
    assertThat(Grants.specRefusal(PROD, "team-a", Map.of(), qos(0, false))).isEmpty();
    // PromQL against the platform's Prometheus reads every series it holds: only where a grant allows it
    assertThat(Grants.specRefusal(hc, "team-a", Map.of(), qos(0, true))).isEmpty();
    assertThat(Grants.specRefusal(hc, "team-b", Map.of(), qos(0, true))).get().asString().isEqualTo("spec.qos."
        + "latencyObjectives[0].source: HBaseCluster platform/prod does not grant namespace team-b queries of its "
        + "Prometheus (prometheusQueries of its spec.tenancy.grants); use source HBase");
    io.hbaseqos.operator.api.TenantQuotaSpec calibrated = new io.hbaseqos.operator.api.TenantQuotaSpec();
    calibrated.setCalibration(new io.hbaseqos.operator.api.CalibrationSpec());
    calibrated.getCalibration().setSource(io.hbaseqos.operator.api.CalibrationSpec.Source.Prometheus);
    assertThat(Grants.specRefusal(hc, "team-b", Map.of(), calibrated)).get().asString().startsWith("spec.calibration.source: ");
    assertThat(Grants.specRefusal(hc, "platform", Map.of(), qos(1000000, true))).as("the platform's own namespace").isEmpty();
  }

  static io.hbaseqos.operator.api.TenantQuotaSpec qos(int priority, boolean promQL) {
    io.hbaseqos.operator.api.TenantQuotaSpec spec = new io.hbaseqos.operator.api.TenantQuotaSpec();
    io.hbaseqos.operator.api.QosSpec q = new io.hbaseqos.operator.api.QosSpec();
    q.setPriority(priority);
    io.hbaseqos.operator.api.QosSpec.LatencyObjectiveSpec o = new io.hbaseqos.operator.api.QosSpec.LatencyObjectiveSpec();
    o.setBoundMillis(5.0);
    if (promQL) {
      o.setSource(io.hbaseqos.operator.api.QosSpec.LatencyObjectiveSpec.Source.Prometheus);
    }
    q.setLatencyObjectives(List.of(o));
    spec.setQos(q);
    return spec;
  }

  @Test
  void aTenantNamespaceMayNotBypassThePlatformsThrottles() {
    io.hbaseqos.operator.api.TenantQuotaSpec spec = new io.hbaseqos.operator.api.TenantQuotaSpec();
    spec.setBypassGlobals(true);
    assertThat(Grants.specRefusal(PROD, "team-a", Map.of(), spec)).get().asString().startsWith("spec.bypassGlobals: ");
    assertThat(Grants.specRefusal(PROD, "platform", Map.of(), spec)).isEmpty();
  }

  /** A table pattern without a namespace is in HBase's default namespace, as a table name is. */
  @Test
  void tablePatternsNameTheirNamespace() {
    HBaseCluster hc = cluster(new TenantGrant(List.of("t"), null, null, List.of("*", "ns2:*")));
    assertThat(Grants.refusal(hc, "t", Map.of(), Subject.table("anything"))).isEmpty();
    assertThat(Grants.refusal(hc, "t", Map.of(), Subject.table("ns2:x"))).isEmpty();
    assertThat(Grants.refusal(hc, "t", Map.of(), Subject.table("ns1:x"))).isPresent();
  }

  static NamespaceSelector.Requirement req(String key, NamespaceSelector.Operator op, String... values) {
    return new NamespaceSelector.Requirement(key, op, values.length == 0 ? null : List.of(values));
  }

  /** A selector chooses as Kubernetes' label selectors do: every label and every requirement must hold. */
  @ParameterizedTest
  @CsvSource(delimiter = ';', value = {
      "tier=gold; true", "tier=gold,env=prod; true", "tier=silver; false", "; false", "env=prod; false",
  })
  void matchLabelsNeedEveryLabelWithItsValue(String labels, boolean selected) {
    java.util.Map<String, String> have = new java.util.HashMap<>();
    if (labels != null) {
      for (String kv : labels.split(",")) {
        have.put(kv.split("=")[0], kv.split("=")[1]);
      }
    }
    assertThat(Grants.selects(new NamespaceSelector(Map.of("tier", "gold"), null), have)).isEqualTo(selected);
  }

  @Test
  void matchExpressionsHoldAsInKubernetes() {
    Map<String, String> gold = Map.of("tier", "gold");
    Map<String, String> none = Map.of();
    NamespaceSelector.Operator in = NamespaceSelector.Operator.In;
    NamespaceSelector.Operator notIn = NamespaceSelector.Operator.NotIn;
    assertThat(Grants.selects(new NamespaceSelector(null, List.of(req("tier", in, "gold", "silver"))), gold)).isTrue();
    assertThat(Grants.selects(new NamespaceSelector(null, List.of(req("tier", in, "silver"))), gold)).isFalse();
    assertThat(Grants.selects(new NamespaceSelector(null, List.of(req("tier", in, "gold"))), none)).isFalse();
    assertThat(Grants.selects(new NamespaceSelector(null, List.of(req("tier", notIn, "gold"))), gold)).isFalse();
    assertThat(Grants.selects(new NamespaceSelector(null, List.of(req("tier", notIn, "gold"))), none))
        .as("NotIn holds for a namespace without the label").isTrue();
    assertThat(Grants.selects(new NamespaceSelector(null, List.of(req("tier", NamespaceSelector.Operator.Exists))),
        gold)).isTrue();
    assertThat(Grants.selects(new NamespaceSelector(null, List.of(req("tier", NamespaceSelector.Operator.Exists))),
        none)).isFalse();
    assertThat(Grants.selects(new NamespaceSelector(null,
        List.of(req("tier", NamespaceSelector.Operator.DoesNotExist))), none)).isTrue();
    assertThat(Grants.selects(new NamespaceSelector(Map.of("tier", "gold"),
        List.of(req("env", NamespaceSelector.Operator.DoesNotExist))), gold)).as("labels and requirements").isTrue();
    assertThat(Grants.selects(new NamespaceSelector(null, null), gold)).as("an empty selector chooses nothing")
        .isFalse();
    assertThat(Grants.selects(new NamespaceSelector(null, List.of(req("tier", notIn, "gold"))), null))
        .as("a namespace whose labels are not known yet is chosen by no selector, even NotIn").isFalse();
    assertThat(Grants.selects(new NamespaceSelector(null,
        List.of(req("tier", NamespaceSelector.Operator.DoesNotExist))), null)).isFalse();
    assertThat(Grants.selects(null, gold)).isFalse();
  }

  /** A namespace's rights are the union of the grants that name it and those that select it. */
  @Test
  void grantsByNameAndByLabelsAddUp() {
    TenantGrant byLabel = new TenantGrant(List.of(), List.of("gold_*"), null, null);
    byLabel.setFromNamespaceSelector(new NamespaceSelector(Map.of("tier", "gold"), null));
    HBaseCluster hc = cluster(byLabel, new TenantGrant(List.of("team-a"), List.of("svc_a"), null, null));
    assertThat(Grants.refusal(hc, "team-a", Map.of("tier", "gold"), Subject.user("gold_x"))).isEmpty();
    assertThat(Grants.refusal(hc, "team-a", Map.of("tier", "gold"), Subject.user("svc_a"))).isEmpty();
    assertThat(Grants.refusal(hc, "team-a", Map.of(), Subject.user("gold_x"))).get().asString()
        .contains("user gold_x (granted users: svc_a)");
    assertThat(Grants.refusal(hc, "team-g", Map.of(), Subject.user("gold_x"))).get().asString()
        .isEqualTo("namespace team-g is not granted the use of HBaseCluster platform/prod: no entry of its "
            + "spec.tenancy.grants names it in fromNamespaces or selects its labels");
  }
}
