package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.Kubectl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The generated CRDs on a real kube-apiserver: bad input is refused at admission with a readable message. */
class CrdValidationIT {
  static KubernetesClient k8s;
  static String ns;

  static final java.util.Set<String> NAMESPACES = new java.util.HashSet<>();

  @org.junit.jupiter.api.AfterAll
  static void cleanUp() {
    KubeApi.forceCleanUp(NAMESPACES); // no operator runs in this test
  }

  @BeforeAll
  static void setUp() {
    k8s = KubeApi.client();
    ns = KubeApi.newNamespace("crd");
    NAMESPACES.add(ns);
  }

  static String tenant(String name, String subject, String throttles, String extra) {
    return """
        apiVersion: hbaseqos.io/v1alpha1
        kind: TenantQuota
        metadata:
          name: %s
          namespace: %s
        spec:
          clusterRef: {name: prod}
          subject: %s
          throttles: %s
        %s""".formatted(name, ns, subject, throttles, extra == null ? "" : "  " + extra);
  }

  static GenericKubernetesResource create(String yaml) {
    return k8s.resource(Serialization.unmarshal(yaml, GenericKubernetesResource.class)).create();
  }

  @Test
  void aValidTenantQuotaIsAcceptedAndDefaulted() {
    GenericKubernetesResource r = create(tenant("ok", "{user: alice}", "[{type: REQUEST_NUMBER, limit: 2500req/sec}, "
        + "{type: READ_SIZE, value: 10, sizeUnit: M, timeUnit: sec}, {type: WRITE_CAPACITY_UNIT, limit: 100CU/min}]", null));
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) r.getAdditionalProperties().get("spec");
    assertThat(spec).containsEntry("scope", "MACHINE").containsEntry("deletionPolicy", "Delete")
        .containsEntry("enforcement", "Enforce");
    create(tenant("dry", "{user: alice}", "[{type: READ_NUMBER, limit: 500req/sec}]", "enforcement: DryRun"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "negative limit | {user: a} | [{type: REQUEST_NUMBER, limit: -5req/sec}] | limit must start with a whole number",
      "zero limit | {user: a} | [{type: REQUEST_NUMBER, limit: 0req/sec}] | limit must be greater than 0",
      "zero limit, zeros padded | {user: a} | [{type: READ_SIZE, limit: 000M/min}] | limit must be greater than 0",
      "zero structured value | {user: a} | [{type: REQUEST_NUMBER, value: 0}] | value must be greater than 0",
      "negative structured value | {user: a} | [{type: REQUEST_NUMBER, value: -3}] | value must be greater than 0",
      "empty limit | {user: a} | [{type: REQUEST_NUMBER, limit: ''}] | limit is empty",
      "unknown unit | {user: a} | [{type: REQUEST_NUMBER, limit: 5ops/sec}] | limit has an unknown unit",
      "unknown time unit | {user: a} | [{type: REQUEST_NUMBER, limit: 5req/week}] | limit has an unknown time unit",
      "not a number | {user: a} | [{type: REQUEST_NUMBER, limit: 'five req per sec'}] | limit must start with a whole number",
      "malformed number | {user: a} | [{type: REQUEST_NUMBER, limit: 5.5req/sec}] | limit must be <number><unit>/<time unit>",
      "no time unit | {user: a} | [{type: REQUEST_NUMBER, limit: 5req}] | limit must be <number><unit>/<time unit>",
      "wrong unit for type | {user: a} | [{type: READ_SIZE, limit: 5req/sec}] | limit has the wrong unit for its type",
      "unknown throttle type | {user: a} | [{type: READ_OPS, limit: 5req/sec}] | Unsupported value: \"READ_OPS\"",
      "limit and value | {user: a} | [{type: REQUEST_NUMBER, limit: 5req/sec, value: 5}] | exactly one",
      "neither limit nor value | {user: a} | [{type: REQUEST_NUMBER}] | exactly one",
      "enormous value | {user: a} | [{type: REQUEST_NUMBER, value: 90071992547409930}] | value is too large",
      "value overflowing its size unit | {user: a} | [{type: READ_SIZE, value: 9, sizeUnit: P}] | value is too large for its sizeUnit",
      "enormous shell number | {user: a} | [{type: REQUEST_NUMBER, limit: 99999999999999999req/sec}] | limit is too large",
      "shell size overflowing its unit | {user: a} | [{type: WRITE_SIZE, limit: 8796093022209K/sec}] | limit is too large",
      "twenty digits | {user: a} | [{type: REQUEST_NUMBER, limit: 18446744073709551617req/sec}] | limit is too large",
      "size unit on a count | {user: a} | [{type: REQUEST_NUMBER, value: 5, sizeUnit: M}] | sizeUnit applies to *_SIZE",
      "duplicate type | {user: a} | [{type: REQUEST_NUMBER, limit: 5req/sec}, {type: REQUEST_NUMBER, limit: 6req/sec}] | each throttle type may appear only once",
      "empty subject | {} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | subject needs a user, a namespace or a table",
      "namespace and table | {namespace: ns, table: t} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | cannot set both namespace and table",
      "illegal table name | {table: 'bad/table'} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | table must be [namespace:]qualifier",
      "illegal namespace name | {namespace: 'bad-ns'} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | namespace may contain only letters",
      "user with a realm | {user: alice@EXAMPLE.COM} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | user has a realm",
      "group | {user: '@admins'} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | user names a group",
      "user with a space | {user: 'al ice'} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | user contains a space",
      "user with a zero-width space | {user: \"al\\u200Bice\"} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | user contains a control, format or separator character",
      "user with a bidi override | {user: \"alice\\u202E\"} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | user contains a control, format or separator character",
      "user with a line separator | {user: \"al\\u2028ice\"} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | user contains a control, format or separator character",
      "user with a vertical tab | {user: \"al\\vice\"} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | user contains a control, format or separator character",
      "user with a no-break space | {user: \"al\\u00A0ice\"} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | user contains a control, format or separator character",
      "namespace with a zero-width joiner | {namespace: \"ns\\u200D\"} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | namespace may contain only letters",
      "table with a bidi override | {table: \"t\\u202Ex\"} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | table must be [namespace:]qualifier",
      "table with a non-ASCII letter | {table: \"t\\u00E9\"} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | table must be [namespace:]qualifier",
      "meta table | {table: 'hbase:meta'} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | never throttled by HBase, on any version",
      "quota table | {user: u, table: 'hbase:quota'} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | never throttled by HBase, on any version",
      "namespace table | {table: 'hbase:namespace'} | [{type: REQUEST_NUMBER, limit: 5req/sec}] | never throttled by HBase, on any version",
      "no throttles | {user: a} | [] | declare at least one throttle",
  })
  void invalidTenantQuotasAreRejected(String what, String subject, String throttles, String message) {
    String name = "bad-" + Integer.toHexString(what.hashCode());
    assertRefused(name, tenant(name, subject, throttles, null), message);
    // a message in words, not a pattern, and never "wrong unit" for what is not a well-formed limit
    assertThatThrownBy(() -> create(tenant(name, subject, throttles, null))).message()
        .doesNotContain("should match");
    if (!what.equals("wrong unit for type")) {
      assertThatThrownBy(() -> create(tenant(name, subject, throttles, null))).message().doesNotContain("wrong unit");
    }
  }

  /** The API server refuses the TenantQuota with {@code message} and stores nothing. */
  static void assertRefused(String name, String yaml, String message) {
    assertRefused("TenantQuota", name, yaml, message);
  }

  /** The API server refuses the resource of {@code kind} with {@code message} and stores nothing. */
  static void assertRefused(String kind, String name, String yaml, String message) {
    assertThatThrownBy(() -> create(yaml)).isInstanceOf(KubernetesClientException.class).hasMessageContaining(message);
    assertThat(k8s.genericKubernetesResources("hbaseqos.io/v1alpha1", kind).inNamespace(ns).withName(name).get())
        .isNull();
  }

  @Test
  void aCalibratedTenantQuotaIsAcceptedAndDefaulted() {
    GenericKubernetesResource r = create(tenant("cal-ok", "{user: alice}", "[]", "calibration: {targetOpsPerSecond: 2000}"));
    @SuppressWarnings("unchecked")
    Map<String, Object> c = (Map<String, Object>) ((Map<String, Object>) r.getAdditionalProperties().get("spec"))
        .get("calibration");
    assertThat(c).containsEntry("operations", "all").containsEntry("source", "HBase").containsEntry("period", "30s")
        .containsEntry("minLimit", 1).containsEntry("maxLimit", 1000000000).containsEntry("maxStep", 4)
        .containsEntry("tolerancePercent", 3);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "no target | {user: a} | calibration: {operations: reads} | spec.calibration.targetOpsPerSecond: Required value",
      "zero target | {user: a} | calibration: {targetOpsPerSecond: 0} | should be greater than or equal to 1",
      "enormous target | {user: a} | calibration: {targetOpsPerSecond: 2000000000} | should be less than or equal to",
      "min above max | {user: a} | 'calibration: {targetOpsPerSecond: 10, minLimit: 500, maxLimit: 100}' | calibration.minLimit must not exceed calibration.maxLimit",
      "zero min | {user: a} | 'calibration: {targetOpsPerSecond: 10, minLimit: 0}' | should be greater than or equal to 1",
      "step of 1 | {user: a} | 'calibration: {targetOpsPerSecond: 10, maxStep: 1}' | calibration.maxStep must be at least 1.05",
      "step below 1 | {user: a} | 'calibration: {targetOpsPerSecond: 10, maxStep: 0.5}' | should be greater than or equal to 1.05",
      "tolerance 0 | {user: a} | 'calibration: {targetOpsPerSecond: 10, tolerancePercent: 0}' | calibration.tolerancePercent must be at least 0.5",
      "tolerance 50% | {user: a} | 'calibration: {targetOpsPerSecond: 10, tolerancePercent: 50}' | should be less than or equal to 25",
      "period under 10s | {user: a} | 'calibration: {targetOpsPerSecond: 10, period: 5s}' | calibration.period must be at least 10s",
      "period without unit | {user: a} | 'calibration: {targetOpsPerSecond: 10, period: \"30\"}' | calibration.period must be whole seconds or minutes",
      "unknown operations | {user: a} | 'calibration: {targetOpsPerSecond: 10, operations: scans}' | Unsupported value: \"scans\"",
      "unknown source | {user: a} | 'calibration: {targetOpsPerSecond: 10, source: Graphite}' | Unsupported value: \"Graphite\"",
      "HBase source on a table | {table: t} | calibration: {targetOpsPerSecond: 10} | calibration from HBase metrics needs a user subject",
      "HBase source on a user+table | {user: u, table: t} | calibration: {targetOpsPerSecond: 10} | calibration from HBase metrics needs a user subject",
      "HBase source on a user+namespace | {user: u, namespace: ns} | calibration: {targetOpsPerSecond: 10} | calibration from HBase metrics needs a user subject",
      "Prometheus without query | {table: t} | 'calibration: {targetOpsPerSecond: 10, source: Prometheus}' | source Prometheus needs calibration.prometheus",
      "dry run of a calibration | {user: a} | 'calibration: {targetOpsPerSecond: 10}\n  enforcement: DryRun' | enforcement DryRun cannot be combined with calibration or qos",
      "unknown enforcement | {user: a} | enforcement: Audit | Unsupported value: \"Audit\"",
      "Prometheus url not http | {table: t} | 'calibration: {targetOpsPerSecond: 10, source: Prometheus, prometheus: {url: \"ftp://p\", query: up}}' | prometheus.url must be an http:// or https:// URL",
  })
  void invalidCalibrationsAreRejected(String what, String subject, String calibration, String message) {
    String name = "badcal-" + Integer.toHexString(what.hashCode());
    assertRefused(name, tenant(name, subject, "[]", calibration), message);
  }

  @Test
  void aProtectedAndASheddableTenantAreAcceptedAndDefaulted() {
    GenericKubernetesResource u = create(tenant("qos-u", "{user: u}", "[]",
        "qos: {priority: 100, latencyObjectives: [{boundMillis: 5}]}"));
    @SuppressWarnings("unchecked")
    Map<String, Object> o = ((List<Map<String, Object>>) ((Map<String, Object>) ((Map<String, Object>) u
        .getAdditionalProperties().get("spec")).get("qos")).get("latencyObjectives")).get(0);
    assertThat(o).containsEntry("operations", "reads").containsEntry("statistic", "Percentile")
        .containsEntry("percentile", 99).containsEntry("window", "30s").containsEntry("source", "HBase");
    create(tenant("qos-t", "{user: t}", "[{type: WRITE_NUMBER, limit: 100req/sec}]",
        "qos: {priority: 1, sheddable: {floor: 100, ceiling: 20000}}"));
    create(tenant("qos-both", "{user: b}", "[]", "qos: {priority: 50, latencyObjectives: [{boundMillis: 20, "
        + "statistic: Mean}, {boundMillis: 50, percentile: 99.9}], sheddable: {operations: reads, floor: 1, "
        + "ceiling: 1}}\n  calibration: {targetOpsPerSecond: 10, operations: reads}"));
    // a client's own histograms may resolve below a millisecond, and a read and a write mean are two objectives
    create(tenant("qos-fine", "{user: f}", "[]", "qos: {priority: 50, latencyObjectives: [{boundMillis: 0.5, "
        + "source: Prometheus, prometheus: {query: 'x'}}, {boundMillis: 2, statistic: Mean}, {boundMillis: 2, "
        + "statistic: Mean, operations: writes}]}"));
    // the call queues' wait needs no per-user metrics: a table tenant may be protected by it, under a millisecond
    create(tenant("qos-queue", "{table: 'ns1:q'}", "[]", "qos: {priority: 50, latencyObjectives: [{source: CallQueue, "
        + "operations: all, statistic: Mean, boundMillis: 0.5}]}"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "zero bound | {user: a} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: 0}]}' | latency objective boundMillis must be above 0 ms",
      "negative bound | {user: a} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: -5}]}' | latency objective boundMillis must be above 0 ms",
      "percentile above 100 | {user: a} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: 5, percentile: 100.5}]}' | percentile must be above 0 and at most 100",
      "percentile 0 | {user: a} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: 5, percentile: 0}]}' | percentile must be above 0 and at most 100",
      "negative percentile | {user: a} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: 5, percentile: -1}]}' | percentile must be above 0 and at most 100",
      "floor above ceiling | {user: a} | 'qos: {priority: 1, sheddable: {floor: 500, ceiling: 100}}' | sheddable.floor must not exceed sheddable.ceiling",
      "priority a word | {user: a} | 'qos: {priority: high, sheddable: {floor: 1, ceiling: 100}}' | spec.qos.priority",
      "priority a fraction | {user: a} | 'qos: {priority: 1.5, sheddable: {floor: 1, ceiling: 100}}' | spec.qos.priority",
      "negative priority | {user: a} | 'qos: {priority: -1, sheddable: {floor: 1, ceiling: 100}}' | should be greater than or equal to 0",
      "no priority | {user: a} | 'qos: {sheddable: {floor: 1, ceiling: 100}}' | spec.qos.priority: Required value",
      "neither role | {user: a} | 'qos: {priority: 3}' | qos needs latencyObjectives",
      "window under 10s | {user: a} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: 5, window: 5s}]}' | window must be at least 10s",
      "HBase latency of a table | {table: t} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: 5}]}' | a latency objective read from HBase needs a user subject",
      "same objective twice | {user: a} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: 5}, {boundMillis: 7}]}' | each latency objective (operations and statistic) may appear only once",
      "sheddable throttle also static | {user: a} | 'qos: {priority: 1, sheddable: {floor: 1, ceiling: 100}}' | set qos.sheddable.ceiling instead",
      "calibration on another throttle | {user: a} | 'qos: {priority: 1, sheddable: {floor: 1, ceiling: 100}}\n  calibration: {targetOpsPerSecond: 10, operations: reads}' | calibration and qos.sheddable must move the same throttle",
      "Mean with a percentile out of range | {user: a} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: 5, statistic: Mean, percentile: -1}]}' | percentile must be above 0 and at most 100",
      "Mean twice under two percentiles | {user: a} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: 5, statistic: Mean}, {boundMillis: 7, statistic: Mean, percentile: 50}]}' | each latency objective (operations and statistic) may appear only once",
      "HBase bound under a millisecond | {user: a} | 'qos: {priority: 9, latencyObjectives: [{boundMillis: 0.5}]}' | must be at least 1 ms for source HBase",
      "CallQueue of reads | {user: a} | 'qos: {priority: 9, latencyObjectives: [{source: CallQueue, statistic: Mean, boundMillis: 5}]}' | source CallQueue judges the mean wait of every call in the RegionServers' call queues: it needs operations all and statistic Mean",
      "CallQueue p99 | {user: a} | 'qos: {priority: 9, latencyObjectives: [{source: CallQueue, operations: all, boundMillis: 5}]}' | it needs operations all and statistic Mean",
      "all from HBase | {user: a} | 'qos: {priority: 9, latencyObjectives: [{operations: all, statistic: Mean, boundMillis: 5}]}' | latency objective operations all is for source CallQueue only",
  })
  void invalidQosIsRejected(String what, String subject, String qos, String message) {
    String name = "badqos-" + Integer.toHexString(what.hashCode());
    String throttles = what.equals("sheddable throttle also static") ? "[{type: REQUEST_NUMBER, limit: 5req/sec}]" : "[]";
    assertRefused(name, tenant(name, subject, throttles, qos.replace("\\n", "\n")), message);
  }

  @Test
  void throttlesOnSystemNamespacesAreAcceptedForTheOperatorToCheckAgainstTheHBaseVersion() {
    create(tenant("sys-ns", "{namespace: hbase}", "[{type: REQUEST_NUMBER, limit: 5req/sec}]", null));
    create(tenant("sys-backup", "{table: 'backup:system'}", "[{type: READ_SIZE, limit: 10M/sec}]", null));
    create(tenant("sys-user-ns", "{user: u, namespace: backup}", "[{type: REQUEST_NUMBER, limit: 5req/sec}]", null));
  }

  @Test
  void spaceQuotasOnTablesAndNamespacesAreAccepted() {
    create(tenant("space-table", "{table: 'ns1:t1'}", "[]", "space: {limit: 10G, policy: NO_INSERTS}"));
    create(tenant("space-ns", "{namespace: ns1}", "[{type: REQUEST_NUMBER, limit: 5req/sec}]",
        "space: {limit: '1048576', policy: DISABLE}"));
    create(tenant("space-max", "{namespace: ns2}", "[]", "space: {limit: 8P, policy: NO_WRITES_COMPACTIONS}"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "space on a user | {user: a} | 'space: {limit: 10G, policy: NO_INSERTS}' | HBase has no space quota for a user",
      "space on a user+table | {user: a, table: t} | 'space: {limit: 10G, policy: NO_INSERTS}' | HBase has no space quota for a user",
      "no policy | {table: t} | 'space: {limit: 10G}' | spec.space.policy: Required value",
      "unknown policy | {table: t} | 'space: {limit: 10G, policy: NO_READS}' | Unsupported value: \"NO_READS\"",
      "no limit | {table: t} | 'space: {policy: NO_INSERTS}' | spec.space.limit: Required value",
      "empty limit | {table: t} | 'space: {limit: \"\", policy: NO_INSERTS}' | space limit is empty",
      "zero | {table: t} | 'space: {limit: 0G, policy: NO_INSERTS}' | space limit must be greater than 0",
      "negative | {table: t} | 'space: {limit: -1G, policy: NO_INSERTS}' | space limit must start with a whole number",
      "not a number | {table: t} | 'space: {limit: tenG, policy: NO_INSERTS}' | space limit must start with a whole number",
      "decimal | {table: t} | 'space: {limit: 1.5G, policy: NO_INSERTS}' | space limit must be <number><unit>",
      "Kubernetes unit | {table: t} | 'space: {limit: 10Gi, policy: NO_INSERTS}' | space limit has an unknown unit",
      "overflow in P | {table: t} | 'space: {limit: 9P, policy: NO_INSERTS}' | space limit is too large",
      "overflow in bytes | {table: t} | 'space: {limit: \"99999999999999999999\", policy: NO_INSERTS}' | space limit is too large",
      "overflow in K | {table: t} | 'space: {limit: 8796093022209K, policy: NO_INSERTS}' | space limit is too large",
      "system namespace | {namespace: hbase} | 'space: {limit: 10G, policy: NO_INSERTS}' | not set on HBase's system namespaces",
      "system table | {table: 'backup:system'} | 'space: {limit: 10G, policy: NO_INSERTS}' | not set on HBase's system namespaces",
  })
  void invalidSpaceQuotasAreRejected(String what, String subject, String space, String message) {
    String name = "badspace-" + Integer.toHexString(what.hashCode());
    assertRefused(name, tenant(name, subject, "[]", space), message);
    assertThatThrownBy(() -> create(tenant(name, subject, "[]", space))).message().doesNotContain("should match");
  }

  @Test
  void namespaceLimitsOnNamespacesAreAccepted() {
    create(tenant("nslimits-both", "{namespace: ns3}", "[]", "namespaceLimits: {maxTables: 10, maxRegions: 500}"));
    create(tenant("nslimits-one", "{namespace: ns4}", "[{type: REQUEST_NUMBER, limit: 5req/sec}]",
        "namespaceLimits: {maxTables: 1}"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "limits on a table | {table: t} | 'namespaceLimits: {maxTables: 5}' | namespaceLimits apply to a namespace subject",
      "limits on a user | {user: a} | 'namespaceLimits: {maxTables: 5}' | namespaceLimits apply to a namespace subject",
      "limits on a user+namespace | {user: a, namespace: ns} | 'namespaceLimits: {maxTables: 5}' | namespaceLimits apply to a namespace subject",
      "zero tables | {namespace: ns} | 'namespaceLimits: {maxTables: 0}' | maxTables must be at least 1",
      "negative tables | {namespace: ns} | 'namespaceLimits: {maxTables: -3}' | maxTables must be at least 1",
      "negative regions | {namespace: ns} | 'namespaceLimits: {maxRegions: -1}' | maxRegions must be at least 1",
      "no limit at all | {namespace: ns} | 'namespaceLimits: {}' | namespaceLimits must set maxTables, maxRegions or both",
      "not a number | {namespace: ns} | 'namespaceLimits: {maxRegions: ten}' | must be of type integer",
      "system namespace | {namespace: backup} | 'namespaceLimits: {maxTables: 5}' | not set on HBase's system namespaces",
  })
  void invalidNamespaceLimitsAreRejected(String what, String subject, String limits, String message) {
    String name = "badnslimits-" + Integer.toHexString(what.hashCode());
    assertRefused(name, tenant(name, subject, "[]", limits), message);
  }

  @Test
  void missingClusterRefAndBadPolicyAreRejected() {
    assertThatThrownBy(() -> create("""
        apiVersion: hbaseqos.io/v1alpha1
        kind: TenantQuota
        metadata: {name: no-cluster, namespace: %s}
        spec:
          subject: {user: a}
          throttles: [{type: REQUEST_NUMBER, limit: 5req/sec}]
        """.formatted(ns))).hasMessageContaining("spec.clusterRef: Required value");
    assertThatThrownBy(() -> create(tenant("bad-policy", "{user: a}", "[{type: REQUEST_NUMBER, limit: 5req/sec}]",
        "deletionPolicy: Forget"))).hasMessageContaining("Unsupported value: \"Forget\"");
    assertThatThrownBy(() -> create(tenant("bad-bypass", "{user: a, table: t}",
        "[{type: REQUEST_NUMBER, limit: 5req/sec}]", "bypassGlobals: true"))).hasMessageContaining("bypassGlobals applies to a user subject only");
  }

  @Test
  void subjectAndClusterAreImmutable() {
    create(tenant("immutable", "{user: alice}", "[{type: REQUEST_NUMBER, limit: 5req/sec}]", null));
    var res = k8s.genericKubernetesResources("hbaseqos.io/v1alpha1", "TenantQuota").inNamespace(ns).withName("immutable");
    assertThatThrownBy(() -> res.edit(r -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> spec = (Map<String, Object>) r.getAdditionalProperties().get("spec");
      spec.put("subject", Map.of("user", "mallory"));
      return r;
    })).hasMessageContaining("subject is immutable");
    assertThatThrownBy(() -> res.edit(r -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> spec = (Map<String, Object>) r.getAdditionalProperties().get("spec");
      spec.put("clusterRef", Map.of("name", "other"));
      return r;
    })).hasMessageContaining("clusterRef is immutable");
    // limits may change
    res.edit(r -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> spec = (Map<String, Object>) r.getAdditionalProperties().get("spec");
      spec.put("throttles", List.of(Map.of("type", "REQUEST_NUMBER", "limit", "6req/sec")));
      return r;
    });
  }

  @Test
  void hbaseClusterSpecIsValidated() {
    assertThatThrownBy(() -> create("""
        apiVersion: hbaseqos.io/v1alpha1
        kind: HBaseCluster
        metadata: {name: bad, namespace: %s}
        spec:
          connection: {zookeeperQuorum: 'zk-0:2181;rm -rf'}
        """.formatted(ns))).hasMessageContaining("zookeeperQuorum must be host or host:port entries");
    for (String zero : List.of("0s", "0m0s", "0ms")) {
      assertThatThrownBy(() -> create("""
          apiVersion: hbaseqos.io/v1alpha1
          kind: HBaseCluster
          metadata: {name: zero, namespace: %s}
          spec:
            connection: {zookeeperQuorum: zk-0}
            quotas: {resyncPeriod: %s}
          """.formatted(ns, zero))).as(zero).hasMessageContaining("spec.quotas.resyncPeriod")
          .hasMessageContaining("must be longer than zero");
    }
    assertThatThrownBy(() -> create("""
        apiVersion: hbaseqos.io/v1alpha1
        kind: HBaseCluster
        metadata: {name: bad2, namespace: %s}
        spec:
          connection: {zookeeperQuorum: zk-0}
          quotas: {unmanagedPolicy: Delete}
        """.formatted(ns))).hasMessageContaining("Unsupported value: \"Delete\"");
    // CEL rules run only once the schema's own checks pass, so the duration is refused on its own
    assertThatThrownBy(() -> create("""
        apiVersion: hbaseqos.io/v1alpha1
        kind: HBaseCluster
        metadata: {name: bad2, namespace: %s}
        spec:
          connection: {zookeeperQuorum: zk-0}
          quotas: {resyncPeriod: 1 minute}
        """.formatted(ns))).hasMessageContaining("spec.quotas.resyncPeriod").hasMessageContaining("must be a duration");
    // CEL rules run once the schema checks pass
    assertThatThrownBy(() -> create("""
        apiVersion: hbaseqos.io/v1alpha1
        kind: HBaseCluster
        metadata: {name: bad3, namespace: %s}
        spec:
          connection: {zookeeperQuorum: zk-0, clientConfig: {hbase.zookeeper.quorum: other}}
        """.formatted(ns))).hasMessageContaining("zookeeperQuorum and znodeParent");
    GenericKubernetesResource ok = create("""
        apiVersion: hbaseqos.io/v1alpha1
        kind: HBaseCluster
        metadata: {name: ok, namespace: %s}
        spec:
          connection: {zookeeperQuorum: 'zk-0.zk:2181,zk-1.zk:2181'}
        """.formatted(ns));
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) ok.getAdditionalProperties().get("spec");
    @SuppressWarnings("unchecked")
    Map<String, Object> conn = (Map<String, Object>) spec.get("connection");
    assertThat(conn).containsEntry("znodeParent", "/hbase");
  }

  /** An HBaseCluster with one more field of its spec, {@code field: value} (flow-style YAML). */
  static String hbaseCluster(String name, String field, String value) {
    return """
        apiVersion: hbaseqos.io/v1alpha1
        kind: HBaseCluster
        metadata: {name: %s, namespace: %s}
        spec:
          connection: {zookeeperQuorum: zk-0}
          %s: %s
        """.formatted(name, ns, field, value);
  }

  /** An example of the project's (an HBaseCluster named demo), created under {@code name} in this test's namespace. */
  static void createExample(String path, String name) throws java.io.IOException {
    String example = java.nio.file.Files.readString(io.hbaseqos.operator.support.Paths.projectDir().resolve(path));
    create(example.replace("name: demo", "name: " + name + "\n  namespace: " + ns));
  }

  static String policy(String name, String throttlePolicy) {
    return hbaseCluster(name, "throttlePolicy", throttlePolicy);
  }

  @Test
  void theThrottlePolicyExampleIsAccepted() throws Exception {
    createExample("examples/policy/hbasecluster-throttle-policy.yaml", "policy-example");
    create(policy("policy-rs-only", "{regionServer: [{type: REQUEST_SIZE, limit: 100M/sec}]}"));
    create(policy("policy-rpc-only", "{rpcThrottle: Disabled}"));
    create(policy("policy-request", "{regionServer: [{type: REQUEST_NUMBER, value: 5000}], exceedThrottle: Enabled}"));
    create(policy("policy-dry-run", "{regionServer: [{type: READ_NUMBER, limit: 10req/sec}], enforcement: DryRun}"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "exceed without throttles | {exceedThrottle: Enabled} | needs a RegionServer throttle that counts reads",
      "exceed without a write throttle | {regionServer: [{type: READ_NUMBER, limit: 10req/sec}], exceedThrottle: Enabled} | needs a RegionServer throttle that counts writes",
      "exceed without a read throttle | {regionServer: [{type: WRITE_SIZE, limit: 10M/sec}], exceedThrottle: Enabled} | needs a RegionServer throttle that counts reads",
      "exceed with handler time only | {regionServer: [{type: REQUEST_HANDLER_USAGE_MS, limit: 100ms/sec}], exceedThrottle: Enabled} | counts reads",
      "exceed per minute | {regionServer: [{type: READ_NUMBER, limit: 10req/sec}, {type: WRITE_NUMBER, limit: 600req/min}], exceedThrottle: Enabled} | every request, read and write RegionServer throttle per second",
      "exceed per hour, structured | {regionServer: [{type: REQUEST_NUMBER, value: 10, timeUnit: hour}], exceedThrottle: Enabled} | per second",
      "cluster scope | {regionServer: [{type: READ_NUMBER, limit: 10req/sec, scope: CLUSTER}]} | scope CLUSTER is not allowed",
      "a type twice | {regionServer: [{type: READ_NUMBER, limit: 10req/sec}, {type: READ_NUMBER, limit: 20req/sec}]} | each throttle type may appear only once",
      "bad limit | {regionServer: [{type: READ_NUMBER, limit: 10M/sec}]} | wrong unit",
      "zero limit | {regionServer: [{type: READ_NUMBER, limit: 0req/sec}]} | greater than 0",
      "unknown switch | {rpcThrottle: On} | Unsupported value: \"On\"",
      "unknown enforcement | {regionServer: [{type: READ_NUMBER, limit: 10req/sec}], enforcement: Audit} | Unsupported value: \"Audit\"",
      "enforcement in lower case | {regionServer: [{type: READ_NUMBER, limit: 10req/sec}], enforcement: dryrun} | Unsupported value: \"dryrun\"",
  })
  void invalidThrottlePoliciesAreRejected(String what, String throttlePolicy, String message) {
    String name = "badpolicy-" + Integer.toHexString(what.hashCode());
    assertRefused("HBaseCluster", name, policy(name, throttlePolicy), message);
  }

  @Test
  void grantsAndThePlatformsPrometheusAreAccepted() {
    create(hbaseCluster("tenancy-ok", "tenancy", "{grants: [{fromNamespaces: [team-a, team-b], users: [svc_a, 'a_*', "
        + "'*'], hbaseNamespaces: [team_a, 'common*'], tables: ['shared:a_*', t_a]}]}"));
    create(hbaseCluster("selector-ok", "tenancy", "{grants: [{fromNamespaceSelector: {matchLabels: "
        + "{hbaseqos.io/tier: gold}, matchExpressions: [{key: env, operator: In, values: [prod, staging]}, "
        + "{key: frozen, operator: DoesNotExist}]}, users: ['gold_*']}]}"));
    create(hbaseCluster("prometheus-ok", "prometheus", "{url: 'http://prometheus.monitoring:9090'}"));
    create(hbaseCluster("client-ok", "tenancy", "{grants: []}").replace("zookeeperQuorum: zk-0",
        "zookeeperQuorum: zk-0, clientConfig: {hbase.rpc.timeout: '5000', hbase.master.kerberos.principal: "
            + "'hbase/_HOST@EXAMPLE.COM'}"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "grant without namespaces | tenancy | {grants: [{users: [a]}]} | a grant names its Kubernetes namespaces in fromNamespaces, or chooses them by fromNamespaceSelector",
      "grant of an empty namespace list | tenancy | {grants: [{fromNamespaces: [], users: [a]}]} | a grant names its Kubernetes namespaces in fromNamespaces",
      "empty selector | tenancy | {grants: [{fromNamespaceSelector: {}, users: [a]}]} | an empty selector would grant every namespace of the Kubernetes cluster",
      "In without values | tenancy | {grants: [{fromNamespaceSelector: {matchExpressions: [{key: tier, operator: In}]}, users: [a]}]} | In and NotIn need at least one value",
      "Exists with values | tenancy | {grants: [{fromNamespaceSelector: {matchExpressions: [{key: tier, operator: Exists, values: [x]}]}, users: [a]}]} | Exists and DoesNotExist take none",
      "unknown operator | tenancy | {grants: [{fromNamespaceSelector: {matchExpressions: [{key: tier, operator: Gt, values: ['1']}]}, users: [a]}]} | Unsupported value: \"Gt\"",
      "label value with a slash | tenancy | {grants: [{fromNamespaceSelector: {matchLabels: {tier: 'a/b'}}, users: [a]}]} | fromNamespaceSelector.matchLabels.tier: Invalid value",
      "label key with a space | tenancy | {grants: [{fromNamespaceSelector: {matchExpressions: [{key: 'a b', operator: Exists}]}, users: [a]}]} | fromNamespaceSelector.matchExpressions[0].key: Invalid value",
      "requirement value with a newline | tenancy | {grants: [{fromNamespaceSelector: {matchExpressions: [{key: tier, operator: In, values: [\"a\\nb\"]}]}, users: [a]}]} | fromNamespaceSelector.matchExpressions[0].values[0]: Invalid value",
      "grant of nothing | tenancy | {grants: [{fromNamespaces: [a]}]} | a grant names at least one of users, hbaseNamespaces or tables",
      "namespace not a name | tenancy | {grants: [{fromNamespaces: [Team_A], users: [a]}]} | fromNamespaces must be Kubernetes namespace names",
      "user pattern with a regex | tenancy | {grants: [{fromNamespaces: [a], users: ['svc.+']}]} | users must be HBase user names or prefixes ending in '*'",
      "star in the middle | tenancy | {grants: [{fromNamespaces: [a], users: ['a*b']}]} | users must be HBase user names or prefixes ending in '*'",
      "namespace pattern | tenancy | {grants: [{fromNamespaces: [a], hbaseNamespaces: ['team-a']}]} | hbaseNamespaces must be HBase namespace names",
      "table pattern | tenancy | {grants: [{fromNamespaces: [a], tables: ['a:b:c']}]} | tables must be [namespace:]table names",
      "prometheus url with a newline | prometheus | {url: \"http://p:9090/\\nx\"} | without spaces or control characters",
      "prometheus url not http | prometheus | {url: 'file:///etc/passwd'} | must be an http:// or https:// URL",
  })
  void invalidTenancyAndPrometheusAreRejected(String what, String field, String value, String message) {
    String name = "badtenancy-" + Integer.toHexString(what.hashCode());
    assertRefused("HBaseCluster", name, hbaseCluster(name, field, value), message);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "connection class | {hbase.client.connection.impl: org.example.Evil} | may not name a class for the operator to load",
      "registry class | {hbase.client.registry.impl: org.example.Evil} | may not name a class for the operator to load",
      "codec | {hbase.client.rpc.codec: org.example.Evil} | may not name a class for the operator to load",
      "authentication | {hbase.security.authentication: simple} | may not set the operator's own identity",
      "keytab | {hbase.client.keytab.file: /etc/passwd} | may not set the operator's own identity",
      "TLS certificate | {hbase.rpc.tls.keystore.location: /etc/passwd} | may not set the operator's own identity",
      "ZooKeeper login section | {hbase.zookeeper.property.sasl.clientconfig: Other} | may not set the operator's own identity",
      "key with a trailing space | {'hbase.rpc.timeout ': '1'} | keys may not contain whitespace",
  })
  void clientConfigMayNotChangeTheOperatorsIdentityOrLoadClasses(String what, String clientConfig, String message) {
    String name = "badclient-" + Integer.toHexString(what.hashCode());
    assertRefused("HBaseCluster", name, hbaseCluster(name, "tenancy", "{grants: []}").replace(
        "zookeeperQuorum: zk-0", "zookeeperQuorum: zk-0, clientConfig: " + clientConfig), message);
  }

  static String quotaSettings(String name, String quotas) {
    return hbaseCluster(name, "quotas", quotas);
  }

  @Test
  void quotaSettingsAreAccepted() throws Exception {
    createExample("examples/policy/hbasecluster-quota-settings.yaml", "settings-example");
    create(quotaSettings("settings-average", "{rateLimiter: {type: AverageInterval}}"));
    create(quotaSettings("settings-bounds", "{rateLimiter: {type: FixedInterval, refillInterval: 1s}, defaultUserQuotas: "
        + "[{type: REQUEST_SIZE, limit: 2047M/sec}, {type: READ_SIZE, limit: 1G/sec}, {type: WRITE_SIZE, value: 2097151, sizeUnit: K}, "
        + "{type: READ_NUMBER, limit: 2147483647req/sec}], capacityUnitSize: {read: 1, write: 1073741824}}"));
    create(quotaSettings("settings-empty-list", "{defaultUserQuotas: []}"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "unknown limiter | {rateLimiter: {type: Feedback}} | Unsupported value: \"Feedback\"",
      "limiter without type | {rateLimiter: {refillInterval: 100ms}} | type: Required value",
      "refill for average | {rateLimiter: {type: AverageInterval, refillInterval: 100ms}} | refillInterval applies to the FixedInterval limiter only",
      "refill in seconds | {rateLimiter: {type: FixedInterval, refillInterval: 2s}} | must be in milliseconds",
      "refill too long | {rateLimiter: {type: FixedInterval, refillInterval: 1500ms}} | between 1ms and 1000ms",
      "refill zero | {rateLimiter: {type: FixedInterval, refillInterval: 0ms}} | between 1ms and 1000ms",
      "default user CU | {defaultUserQuotas: [{type: READ_CAPACITY_UNIT, limit: 10CU/sec}]} | no default user quota for capacity-unit throttles",
      "default user per minute | {defaultUserQuotas: [{type: READ_NUMBER, limit: 10req/min}]} | per second on each RegionServer",
      "default user structured per hour | {defaultUserQuotas: [{type: READ_NUMBER, value: 10, timeUnit: hour}]} | per second on each RegionServer",
      "default user cluster scope | {defaultUserQuotas: [{type: READ_NUMBER, limit: 10req/sec, scope: CLUSTER}]} | scope CLUSTER is not allowed",
      "default user over int | {defaultUserQuotas: [{type: READ_NUMBER, limit: 2147483648req/sec}]} | read by HBase as an int",
      "default user 2G | {defaultUserQuotas: [{type: READ_SIZE, limit: 2G/sec}]} | read by HBase as an int",
      "default user 1T structured | {defaultUserQuotas: [{type: WRITE_SIZE, value: 1, sizeUnit: T}]} | read by HBase as an int",
      "default user twice | {defaultUserQuotas: [{type: READ_NUMBER, limit: 1req/sec}, {type: READ_NUMBER, limit: 2req/sec}]} | each throttle type may appear only once",
      "default user zero | {defaultUserQuotas: [{type: READ_NUMBER, limit: 0req/sec}]} | greater than 0",
      "default user wrong unit | {defaultUserQuotas: [{type: READ_NUMBER, limit: 10M/sec}]} | wrong unit",
      "override key with space | {userOverrideKey: 'tenant id'} | name of a request attribute",
      "override key empty | {userOverrideKey: ''} | name of a request attribute",
      "unknown read accounting | {readAccounting: Blocks} | Unsupported value: \"Blocks\"",
      "capacity unit zero | {capacityUnitSize: {read: 0}} | read must be at least 1 byte",
      "capacity unit negative | {capacityUnitSize: {write: -1024}} | write must be at least 1 byte",
      "capacity unit too large | {capacityUnitSize: {write: 2147483648}} | at most 1073741824 bytes",
      "resync of seven digits | {resyncPeriod: 9999999h} | spec.quotas.resyncPeriod: Invalid value: \"string\": must be a duration",
      "resync that overflows | {resyncPeriod: 99999999999999999999s} | spec.quotas.resyncPeriod: Too long",
      "resync above a day | {resyncPeriod: 24h1s} | spec.quotas.resyncPeriod: Invalid value: \"string\": must be at most 24h",
      "resync under a second | {resyncPeriod: 999ms} | must be at least 1s",
      "refresh above a day | {refreshPeriod: 999999h} | spec.quotas.refreshPeriod: Invalid value: \"string\": must be at most 24h",
      "ignore with a lookahead | {unmanagedIgnore: ['^user=(?!svc)']} | error parsing regexp: invalid or unsupported Perl syntax: `(?!` evaluating rule: each unmanagedIgnore pattern must be a regular expression in RE2 syntax",
      "ignore with a backreference | {unmanagedIgnore: ['(a)\\1']} | must be a regular expression in RE2 syntax",
  })
  void invalidQuotaSettingsAreRejected(String what, String quotas, String message) {
    String name = "badsettings-" + Integer.toHexString(what.hashCode());
    assertRefused("HBaseCluster", name, quotaSettings(name, quotas), message);
  }

  static String topology(String name, String regionServers) {
    return """
        apiVersion: hbaseqos.io/v1alpha1
        kind: HBaseCluster
        metadata: {name: %s, namespace: %s}
        spec:
          connection: {zookeeperQuorum: zk-0}
          topology:
            image: apache/hbase:2.6.4
            rootDir: hdfs://nn:8020/hbase
            regionServers: %s
        """.formatted(name, ns, regionServers);
  }

  @Test
  void topologySpecIsValidatedAndDefaulted() {
    assertThatThrownBy(() -> create(topology("t1", "{blockCacheFraction: 0.5, memstoreFraction: 0.4}")))
        .hasMessageContaining("blockCacheFraction + memstoreFraction must be at most 0.8");
    assertThatThrownBy(() -> create(topology("t2", "{heap: 30GB}"))).hasMessageContaining("spec.topology.regionServers.heap");
    assertThatThrownBy(() -> create(topology("t3", "{replicasPerNode: 0}")))
        .hasMessageContaining("spec.topology.regionServers.replicasPerNode");
    assertThatThrownBy(() -> create(topology("t4", "{blockCacheFraction: 0.9}")))
        .hasMessageContaining("spec.topology.regionServers.blockCacheFraction");
    GenericKubernetesResource ok = create(topology("t5", "{blockCacheFraction: 0.5, memstoreFraction: 0.3}"));
    @SuppressWarnings("unchecked")
    Map<String, Object> rs = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) ok
        .getAdditionalProperties().get("spec")).get("topology")).get("regionServers");
    assertThat(rs).containsEntry("heap", "auto").containsEntry("replicasPerNode", 1).containsEntry("handlerCount", 30)
        .containsEntry("gracefulShutdown", "120s");
  }

  static String volumes(String name, String volumes, String mounts) {
    return topology(name, "{}") + """
            volumes: %s
            volumeMounts: %s
        """.formatted(volumes, mounts);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "reserved key behind a space | {siteProperties: {' hbase.rootdir': 'file:///x'}} | siteProperties keys are Hadoop property names",
      "reserved key before a tab | {siteProperties: {\"hbase.rootdir\\t\": 'file:///x'}} | siteProperties keys are Hadoop property names",
      "key with an XML tag | {siteProperties: {'a</name><name>b': x}} | siteProperties keys are Hadoop property names",
      "reserved key | {siteProperties: {hbase.rootdir: 'file:///x'}} | siteProperties may not set what another field sets",
      "default user quota key | {siteProperties: {hbase.quota.default.user.machine.read.num: '5'}} | siteProperties may not set what another field sets",
      "value with a control character | {siteProperties: {a.b: \"x\\u0001y\"}} | without control characters other than tab",
      "value with U+FFFF | {siteProperties: {a.b: \"x\\uFFFFy\"}} | without control characters other than tab",
      "heap option behind a space | {jvmOptions: [' -Xmx64g']} | each jvmOption is one option",
      "heap option inside another | {jvmOptions: ['-Dx=1 -Xmx64g']} | each jvmOption is one option",
      "option without a dash | {jvmOptions: [Xmx64g]} | each jvmOption is one option",
      "option with a newline | {jvmOptions: [\"-Dx=1\\n-Xmx64g\"]} | each jvmOption is one option",
      "initial heap | {jvmOptions: ['-XX:InitialHeapSize=64g']} | jvmOptions may not size the heap",
      "max heap | {jvmOptions: ['-XX:MaxHeapSize=64g']} | jvmOptions may not size the heap",
      "options from a file | {jvmOptions: ['-XX:Flags=/tmp/f']} | jvmOptions may not read options from a file",
      "options file | {jvmOptions: ['-XX:VMOptionsFile=/tmp/f']} | jvmOptions may not read options from a file",
      "heap that overflows | {heap: 99999999999999999999g} | heap must be auto or a size",
      "reserve that overflows | {nodeReserve: 99999999999Gi} | must be a size in Mi or Gi",
      "grace under a second | {gracefulShutdown: 500ms} | must be from 1s to 24h",
      "grace above a day | {gracefulShutdown: 25h} | must be from 1s to 24h",
      "grace that overflows | {gracefulShutdown: 99999999999999s} | must be a duration",
      "no cpu | {cpu: '0'} | cpu must be above zero",
      "no millicpu | {cpu: 0m} | cpu must be above zero",
      "cpu that overflows | {cpu: '99999999999999999999'} | cpu must be a number of cores",
  })
  void invalidRegionServersAreRejected(String what, String regionServers, String message) {
    String name = "badrs-" + Integer.toHexString(what.hashCode());
    assertRefused("HBaseCluster", name, topology(name, regionServers), message);
  }

  @Test
  void longPatternsAndOptionsAreRefusedAndTheRootDirIsAUri() {
    assertRefused("HBaseCluster", "long-ignore", quotaSettings("long-ignore", "{unmanagedIgnore: ['" + "a".repeat(257)
        + "']}"), "spec.quotas.unmanagedIgnore[0]: Too long: may not be more than 256");
    assertRefused("HBaseCluster", "long-option", topology("long-option", "{jvmOptions: ['-D" + "a".repeat(1023)
        + "']}"), "spec.topology.regionServers.jvmOptions[0]: Too long: may not be more than 1024");
    assertRefused("HBaseCluster", "root-newline", topology("root-newline", "{}").replace("hdfs://nn:8020/hbase",
        "\"hdfs://nn:8020/hbase\\u0007\""), "rootDir must be a URI");
    // RE2 is linear: what is catastrophic for a backtracking engine is accepted
    create(quotaSettings("ignore-ok", "{unmanagedIgnore: ['^user=(a+)+$', 'table=ns[0-9]:.*'], unmanagedInclude: "
        + "['^user=svc_']}"));
    assertRefused("HBaseCluster", "include-lookahead", quotaSettings("include-lookahead",
        "{unmanagedInclude: ['^(?!user=svc)']}"), "each unmanagedInclude pattern must be a regular expression in RE2");
    create(topology("rs-ok", "{cpu: '0.5', gracefulShutdown: 1500ms, jvmOptions: ['-XX:+UseG1GC', "
        + "'-javaagent:/opt/jmx.jar=7071:/etc/jmx.yaml', '-Xss1m'], siteProperties: {hbase.hregion.max.filesize: "
        + "'10737418240', hbase.coprocessor.region.classes: \"a.B,\\nc.D\"}}"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "the operator's name | [{name: conf, emptyDir: {}}] | [] | the volume name 'conf' is the operator's",
      "not a DNS label | [{name: Hadoop_Conf, emptyDir: {}}] | [] | volume name must be a DNS label",
      "no name | [{emptyDir: {}}] | [] | spec.topology.volumes[0].name: Required value",
      "twice | [{name: a, emptyDir: {}}, {name: a, emptyDir: {}}] | [] | volume names must be unique",
      "mount of no volume | [{name: a, emptyDir: {}}] | [{name: b, mountPath: /b}] | every volumeMount must name one of volumes",
      "over hbase-site.xml | [{name: a, emptyDir: {}}] | [{name: a, mountPath: /etc/hbase}] | /etc/hbase is where the operator mounts",
      "under hbase-site.xml | [{name: a, emptyDir: {}}] | [{name: a, mountPath: /etc/hbase/x}] | /etc/hbase is where the operator mounts",
      "onto /etc | [{name: a, emptyDir: {}}] | [{name: a, mountPath: /etc}] | /etc/hbase is where the operator mounts",
      "onto / | [{name: a, emptyDir: {}}] | [{name: a, mountPath: /}] | mountPath must be an absolute path",
      "double slash | [{name: a, emptyDir: {}}] | [{name: a, mountPath: //etc/hbase}] | mountPath must be an absolute path",
      "dot segment | [{name: a, emptyDir: {}}] | [{name: a, mountPath: /etc/./hbase}] | mountPath must be an absolute path",
      "dot-dot segment | [{name: a, emptyDir: {}}] | [{name: a, mountPath: /etc/x/../hbase}] | mountPath must be an absolute path",
      "relative | [{name: a, emptyDir: {}}] | [{name: a, mountPath: etc/hbase}] | mountPath must be an absolute path",
      "trailing slash | [{name: a, emptyDir: {}}] | [{name: a, mountPath: /etc/hbase/}] | mountPath must be an absolute path",
      "trailing newline | [{name: a, emptyDir: {}}] | [{name: a, mountPath: \"/etc/hbase\\n\"}] | mountPath must be an absolute path",
  })
  void invalidVolumesAreRejected(String what, String volumes, String mounts, String message) {
    String name = "badvol-" + Integer.toHexString(what.hashCode());
    assertRefused("HBaseCluster", name, volumes(name, volumes, mounts), message);
  }

  @Test
  void aVolumeKeepsItsSourceAsWritten() {
    assertThat(create(volumes("vol-paths", "[{name: a, emptyDir: {}}]",
        "[{name: a, mountPath: /etc/hbase-extra}, {name: a, mountPath: /opt/hadoop/etc/conf.d, subPath: x}, "
            + "{name: a, mountPath: /var/lib/..data}]"))).isNotNull();
    GenericKubernetesResource ok = create(volumes("vol-ok",
        "[{name: hadoop-conf, configMap: {name: hadoop-conf, items: [{key: hdfs-site.xml, path: hdfs-site.xml}]}}]",
        "[{name: hadoop-conf, mountPath: /etc/hbase-extra}]"));
    var volume = Serialization.unmarshal(Serialization.asJson(ok), io.hbaseqos.operator.api.HBaseCluster.class)
        .getSpec().getTopology().getVolumes().get(0).toVolume();
    assertThat(volume.getName()).isEqualTo("hadoop-conf");
    assertThat(volume.getConfigMap().getName()).isEqualTo("hadoop-conf");
    assertThat(volume.getConfigMap().getItems()).singleElement().satisfies(i -> {
      assertThat(i.getKey()).isEqualTo("hdfs-site.xml");
      assertThat(i.getPath()).isEqualTo("hdfs-site.xml");
    });
  }

  @Test
  void aMisspelledFieldIsRefusedByKubectlAndDroppedWithAWarningForOtherClients() throws Exception {
    String yaml = tenant("typo", "{user: typo}", "[{type: REQUEST_NUMBER, limit: 5req/sec}]", "deletionPolcy: Retain");
    Path file = Files.createTempFile("typo-tq", ".yaml");
    Files.writeString(file, yaml);
    // kubectl asks for strict field validation (its default): the typo is an error, nothing is stored
    Kubectl.Result r = Kubectl.run("apply", "-f", file.toString());
    assertThat(r.exit()).isNotZero();
    assertThat(r.output()).contains("unknown field \"spec.deletionPolcy\"");
    r = Kubectl.run("create", "-f", file.toString());
    assertThat(r.exit()).isNotZero();
    assertThat(k8s.genericKubernetesResources("hbaseqos.io/v1alpha1", "TenantQuota").inNamespace(ns).withName("typo").get())
        .isNull();
    // a client that does not ask (the API server's default is to warn): the field is dropped and the
    // default applies, which is why the docs tell GitOps tools to validate strictly
    GenericKubernetesResource stored = create(yaml);
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) stored.getAdditionalProperties().get("spec");
    assertThat(spec).doesNotContainKey("deletionPolcy").containsEntry("deletionPolicy", "Delete");
  }

  @Test
  void aMisspelledFieldInsideAVolumeIsRefusedByKubectl() throws Exception {
    String yaml = volumes("vol-typo", "[{name: hadoop-conf, configMap: {name: hadoop-conf, items: [{key: hdfs-site.xml, "
        + "paht: hdfs-site.xml}]}}, {name: keytab, secret: {secretName: kt, defaultMod: 256}}]",
        "[{name: hadoop-conf, mountPath: /etc/hadoop}]");
    Path file = Files.createTempFile("vol-typo", ".yaml");
    Files.writeString(file, yaml);
    Kubectl.Result r = Kubectl.run("apply", "-f", file.toString());
    assertThat(r.exit()).isNotZero();
    assertThat(r.output()).contains("unknown field \"spec.topology.volumes[0].configMap.items[0].paht\"")
        .contains("unknown field \"spec.topology.volumes[1].secret.defaultMod\"");
    assertThat(k8s.genericKubernetesResources("hbaseqos.io/v1alpha1", "HBaseCluster").inNamespace(ns)
        .withName("vol-typo").get()).isNull();
  }

  @Test
  void kubectlShowsReadableErrorsAndTheExamplesApply() throws Exception {
    Path bad = Files.createTempFile("bad-tq", ".yaml");
    Files.writeString(bad, tenant("kubectl-bad", "{table: 'hbase:meta'}", "[{type: READ_SIZE, limit: 10req/sec}]", null));
    Kubectl.Result r = Kubectl.run("apply", "-f", bad.toString());
    assertThat(r.exit()).isNotZero();
    assertThat(r.output()).contains("never throttled by HBase").contains("limit has the wrong unit for its type");

    String exNs = KubeApi.newNamespace("examples");
    NAMESPACES.add(exNs);
    r = Kubectl.run("apply", "-n", exNs, "-f", io.hbaseqos.operator.support.Paths.projectDir().resolve("examples").toString());
    assertThat(r.exit()).as(r.output()).isZero();
    r = Kubectl.run("get", "-n", exNs, "tq");
    assertThat(r.output()).contains("CLUSTER").contains("SUBJECT").contains("LIMITS").contains("READY");
    r = Kubectl.run("get", "-n", exNs, "hbc");
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("REGIONSERVERS");
    r = Kubectl.run("apply", "--dry-run=server", "-n", exNs, "-f",
        io.hbaseqos.operator.support.Paths.projectDir().resolve("examples/topology").toString());
    assertThat(r.exit()).as(r.output()).isZero();
  }

}
