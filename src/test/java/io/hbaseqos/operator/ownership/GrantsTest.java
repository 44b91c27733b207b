package io.hbaseqos.operator.ownership;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.HBaseClusterSpec;
import io.hbaseqos.operator.api.TenancySpec;
import io.hbaseqos.operator.api.TenantGrant;
import io.hbaseqos.operator.quota.Subject;
import java.util.List;
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
    assertThat(Grants.refusal(PROD, ns, subject(subject))).isEmpty();
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
    assertThat(Grants.refusal(PROD, ns, subject(subject))).get().asString()
        .startsWith("HBaseCluster platform/prod does not grant namespace " + ns + " spec.subject's ").contains(words);
  }

  @Test
  void aNamespaceNoGrantNamesMayNotUseTheClusterAtAll() {
    assertThat(Grants.refusal(PROD, "team-x", Subject.user("svc_a"))).get().asString()
        .isEqualTo("namespace team-x is not granted the use of HBaseCluster platform/prod: no entry of its "
            + "spec.tenancy.grants names it in fromNamespaces");
    assertThat(Grants.refusal(cluster(), "team-a", Subject.user("svc_a"))).as("no tenancy at all").isPresent();
    assertThat(Grants.refusal(cluster(), "platform", Subject.user("svc_a"))).as("its own namespace").isEmpty();
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
    assertThat(Grants.specRefusal(PROD, "team-a", spec)).as("the platform's Prometheus").isEmpty();
    c.getPrometheus().setUrl("http://169.254.169.254/latest");
    assertThat(Grants.specRefusal(PROD, "team-a", spec)).get().asString()
        .startsWith("spec.calibration.prometheus.url: a TenantQuota from namespace team-a queries the Prometheus of "
            + "HBaseCluster platform/prod (its spec.prometheus.url) and may not name one");
    assertThat(Grants.specRefusal(PROD, "platform", spec)).as("the platform's own TenantQuotas may").isEmpty();
  }

  @Test
  void aTenantNamespaceClaimsPriorityAndRunsPromQLOnlyAsFarAsItsGrantsSay() {
    TenantGrant a = new TenantGrant(List.of("team-a"), List.of("svc_a"), null, null);
    a.setMaxPriority(50);
    a.setPrometheusQueries(true);
    TenantGrant ab = new TenantGrant(List.of("team-a", "team-b"), List.of("x"), null, null);
    ab.setMaxPriority(10);
    HBaseCluster hc = cluster(a, ab);
    assertThat(Grants.specRefusal(hc, "team-a", qos(50, false))).as("the highest of its grants").isEmpty();
    assertThat(Grants.specRefusal(hc, "team-a", qos(51, false))).get().asString().isEqualTo("spec.qos.priority: "
        + "HBaseCluster platform/prod grants namespace team-a priorities up to 50 (maxPriority of its "
        + "spec.tenancy.grants), not 51: a protected tenant slows down the cluster's sheddable tenants of lower "
        + "priority, other teams' too");
    assertThat(Grants.specRefusal(hc, "team-b", qos(10, false))).isEmpty();
    assertThat(Grants.specRefusal(hc, "team-b", qos(11, false))).get().asString().contains("up to 10");
    assertThat(Grants.specRefusal(PROD, "team-a", qos(1, false))).as("no grant sets maxPriority: 0").get().asString()
        .contains("priorities up to 0");
    assertThat(Grants.specRefusal(PROD, "team-a", qos(0, false))).isEmpty();
    // PromQL against the platform's Prometheus reads every series it holds: only where a grant allows it
    assertThat(Grants.specRefusal(hc, "team-a", qos(0, true))).isEmpty();
    assertThat(Grants.specRefusal(hc, "team-b", qos(0, true))).get().asString().isEqualTo("spec.qos."
        + "latencyObjectives[0].source: HBaseCluster platform/prod does not grant namespace team-b queries of its "
        + "Prometheus (prometheusQueries of its spec.tenancy.grants); use source HBase");
    io.hbaseqos.operator.api.TenantQuotaSpec calibrated = new io.hbaseqos.operator.api.TenantQuotaSpec();
    calibrated.setCalibration(new io.hbaseqos.operator.api.CalibrationSpec());
    calibrated.getCalibration().setSource(io.hbaseqos.operator.api.CalibrationSpec.Source.Prometheus);
    assertThat(Grants.specRefusal(hc, "team-b", calibrated)).get().asString().startsWith("spec.calibration.source: ");
    assertThat(Grants.specRefusal(hc, "platform", qos(1000000, true))).as("the platform's own namespace").isEmpty();
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
    assertThat(Grants.specRefusal(PROD, "team-a", spec)).get().asString().startsWith("spec.bypassGlobals: ");
    assertThat(Grants.specRefusal(PROD, "platform", spec)).isEmpty();
  }

  /** A table pattern without a namespace is in HBase's default namespace, as a table name is. */
  @Test
  void tablePatternsNameTheirNamespace() {
    HBaseCluster hc = cluster(new TenantGrant(List.of("t"), null, null, List.of("*", "ns2:*")));
    assertThat(Grants.refusal(hc, "t", Subject.table("anything"))).isEmpty();
    assertThat(Grants.refusal(hc, "t", Subject.table("ns2:x"))).isEmpty();
    assertThat(Grants.refusal(hc, "t", Subject.table("ns1:x"))).isPresent();
  }
}
