package io.hbaseqos.operator.ownership;

import io.hbaseqos.operator.api.CalibrationSpec;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.NamespaceSelector;
import io.hbaseqos.operator.api.QosSpec;
import io.hbaseqos.operator.api.TenantGrant;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.quota.Subject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Whether a Kubernetes namespace may name an HBase subject on an HBaseCluster: the tenancy
 * boundary. The HBaseCluster's own namespace is the platform's and may name any subject; another
 * namespace only what the cluster's {@code spec.tenancy.grants} give it (the union of the grants
 * that name it or select it by its labels). A pattern is a name, or a prefix ending in '*'. Plain
 * Java, no I/O; the chart's admission policy applies the same rules.
 */
public final class Grants {
  private Grants() {}

  /**
   * Why {@code tenantNamespace} may not name {@code subject} on {@code hc}, in words; empty when it may.
   *
   * @param labels the tenant namespace's labels, which grants may select it by (null: not known, so
   *     no selector chooses it; a name in fromNamespaces still does)
   */
  public static Optional<String> refusal(HBaseCluster hc, String tenantNamespace, Map<String, String> labels,
      Subject subject) {
    String clusterNs = hc.getMetadata().getNamespace();
    if (Objects.equals(clusterNs, tenantNamespace)) {
      return Optional.empty();
    }
    String cluster = name(hc);
    List<TenantGrant> grants = grantsOf(hc, tenantNamespace, labels);
    if (grants.isEmpty()) {
      return Optional.of("namespace " + tenantNamespace + " is not granted the use of " + cluster
          + ": no entry of its spec.tenancy.grants names it in fromNamespaces or selects its labels");
    }
    List<String> refused = new ArrayList<>();
    if (subject.user() != null && !any(grants, TenantGrant::getUsers, subject.user())) {
      refused.add("user " + subject.user() + " (granted users: " + list(grants, TenantGrant::getUsers) + ")");
    }
    if (subject.namespace() != null && !any(grants, TenantGrant::getHbaseNamespaces, subject.namespace())) {
      refused.add("HBase namespace " + subject.namespace() + " (granted: "
          + list(grants, TenantGrant::getHbaseNamespaces) + ")");
    }
    if (subject.table() != null && !tableGranted(grants, subject)) {
      refused.add("table " + subject.table() + " (granted tables: " + list(grants, TenantGrant::getTables)
          + "; granted HBase namespaces: " + list(grants, TenantGrant::getHbaseNamespaces) + ")");
    }
    if (refused.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(cluster + " does not grant namespace " + tenantNamespace + " spec.subject's "
        + String.join(" nor ", refused));
  }

  /**
   * Why a TenantQuota from {@code tenantNamespace} may not have the rest of its spec, whatever its
   * subject: it may not set {@code bypassGlobals} (that exempts the user from the platform's table,
   * namespace and RegionServer throttles); its {@code qos.priority} is at most the highest
   * {@code maxPriority} of its grants (0 when none sets one), since a protected tenant slows down
   * other teams' sheddable tenants; it runs PromQL only where a grant allows
   * {@code prometheusQueries}, and then against the platform's Prometheus (the cluster's
   * {@code spec.prometheus.url}), naming none, so the operator never fetches a URL a tenant chose.
   * Empty when it may.
   */
  public static Optional<String> specRefusal(HBaseCluster hc, String tenantNamespace, Map<String, String> labels,
      TenantQuotaSpec spec) {
    if (Objects.equals(hc.getMetadata().getNamespace(), tenantNamespace) || spec == null) {
      return Optional.empty();
    }
    String cluster = name(hc);
    if (Boolean.TRUE.equals(spec.getBypassGlobals())) {
      return Optional.of("spec.bypassGlobals: a TenantQuota from namespace " + tenantNamespace + " may not exempt its "
          + "user from the table, namespace and RegionServer throttles of " + cluster + "; only TenantQuotas in the "
          + "cluster's namespace may");
    }
    List<TenantGrant> grants = grantsOf(hc, tenantNamespace, labels);
    int maxPriority = grants.stream().map(TenantGrant::getMaxPriority).filter(Objects::nonNull)
        .mapToInt(Integer::intValue).max().orElse(0);
    if (spec.getQos() != null && spec.getQos().getPriority() != null && spec.getQos().getPriority() > maxPriority) {
      return Optional.of("spec.qos.priority: " + cluster + " grants namespace " + tenantNamespace + " priorities up "
          + "to " + maxPriority + " (maxPriority of its spec.tenancy.grants), not " + spec.getQos().getPriority()
          + ": a protected tenant slows down the cluster's sheddable tenants of lower priority, other teams' too");
    }
    List<String> queries = prometheusSources(spec);
    if (!queries.isEmpty() && grants.stream().noneMatch(g -> Boolean.TRUE.equals(g.getPrometheusQueries()))) {
      return Optional.of(String.join(", ", queries) + ": " + cluster + " does not grant namespace " + tenantNamespace
          + " queries of its Prometheus (prometheusQueries of its spec.tenancy.grants); use source HBase");
    }
    List<String> fields = new ArrayList<>();
    if (spec.getCalibration() != null && spec.getCalibration().getPrometheus() != null
        && spec.getCalibration().getPrometheus().getUrl() != null) {
      fields.add("spec.calibration.prometheus.url");
    }
    if (spec.getQos() != null && spec.getQos().getLatencyObjectives() != null) {
      var objectives = spec.getQos().getLatencyObjectives();
      for (int i = 0; i < objectives.size(); i++) {
        if (objectives.get(i).getPrometheus() != null && objectives.get(i).getPrometheus().getUrl() != null) {
          fields.add("spec.qos.latencyObjectives[" + i + "].prometheus.url");
        }
      }
    }
    if (fields.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(String.join(", ", fields) + ": a TenantQuota from namespace " + tenantNamespace
        + " queries the Prometheus of " + cluster + " (its spec.prometheus.url) and may not name one");
  }

  /** The grants of {@code hc} that name {@code tenantNamespace} or select it by its {@code labels}. */
  private static List<TenantGrant> grantsOf(HBaseCluster hc, String tenantNamespace, Map<String, String> labels) {
    return hc.getSpec() == null || hc.getSpec().getTenancy() == null || hc.getSpec().getTenancy().getGrants() == null
        ? List.of() : hc.getSpec().getTenancy().getGrants().stream()
            .filter(g -> g.getFromNamespaces() != null && g.getFromNamespaces().contains(tenantNamespace)
                || selects(g.getFromNamespaceSelector(), labels))
            .toList();
  }

  /**
   * Whether a namespace of these labels is chosen by the selector: every matchLabels entry and every
   * requirement holds (NotIn and DoesNotExist hold for a label the namespace lacks). A missing or
   * empty selector chooses nothing, unlike Kubernetes' own, and no selector chooses a namespace
   * whose labels are not known ({@code labels} null).
   */
  static boolean selects(NamespaceSelector selector, Map<String, String> labels) {
    if (selector == null || labels == null) {
      return false; // a namespace not known yet: even NotIn and DoesNotExist choose nothing
    }
    Map<String, String> have = labels;
    Map<String, String> want = selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
    List<NamespaceSelector.Requirement> reqs = selector.getMatchExpressions() == null ? List.of()
        : selector.getMatchExpressions();
    if (want.isEmpty() && reqs.isEmpty()) {
      return false;
    }
    return want.entrySet().stream().allMatch(e -> e.getValue() != null && e.getValue().equals(have.get(e.getKey())))
        && reqs.stream().allMatch(r -> holds(r, have));
  }

  private static boolean holds(NamespaceSelector.Requirement r, Map<String, String> labels) {
    if (r.getKey() == null || r.getOperator() == null) {
      return false;
    }
    String value = labels.get(r.getKey());
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    return switch (r.getOperator()) {
      case In -> value != null && values.contains(value);
      case NotIn -> value == null || !values.contains(value);
      case Exists -> value != null;
      case DoesNotExist -> value == null;
    };
  }

  /** The fields of {@code spec} that make the operator run the tenant's PromQL. */
  private static List<String> prometheusSources(TenantQuotaSpec spec) {
    List<String> fields = new ArrayList<>();
    if (spec.getCalibration() != null && spec.getCalibration().getSource() == CalibrationSpec.Source.Prometheus) {
      fields.add("spec.calibration.source");
    }
    if (spec.getQos() != null && spec.getQos().getLatencyObjectives() != null) {
      var objectives = spec.getQos().getLatencyObjectives();
      for (int i = 0; i < objectives.size(); i++) {
        if (objectives.get(i).getSource() == QosSpec.LatencyObjectiveSpec.Source.Prometheus) {
          fields.add("spec.qos.latencyObjectives[" + i + "].source");
        }
      }
    }
    return fields;
  }

  private static String name(HBaseCluster hc) {
    return "HBaseCluster " + Ownership.clusterKey(hc.getMetadata().getNamespace(), hc.getMetadata().getName());
  }

  private static boolean tableGranted(List<TenantGrant> grants, Subject subject) {
    String ns = subject.effectiveNamespace();
    return grants.stream().anyMatch(g -> g.getTables() != null && g.getTables().stream()
        .anyMatch(p -> matches(qualified(p), subject.table())))
        || any(grants, TenantGrant::getHbaseNamespaces, ns);
  }

  /** A table pattern as HBase names the table: 'default:' when it names no namespace. */
  private static String qualified(String tablePattern) {
    return tablePattern.contains(":") ? tablePattern : "default:" + tablePattern;
  }

  private static boolean any(List<TenantGrant> grants, Function<TenantGrant, List<String>> field, String name) {
    return grants.stream().map(field).filter(Objects::nonNull).flatMap(List::stream).anyMatch(p -> matches(p, name));
  }

  private static String list(List<TenantGrant> grants, Function<TenantGrant, List<String>> field) {
    Set<String> all = new LinkedHashSet<>();
    grants.stream().map(field).filter(Objects::nonNull).forEach(all::addAll);
    return all.isEmpty() ? "none" : String.join(", ", all);
  }

  /** A name, or a prefix ending in '*' ('*' alone matches every name). */
  static boolean matches(String pattern, String name) {
    if (pattern == null || name == null) {
      return false;
    }
    return pattern.endsWith("*") ? name.startsWith(pattern.substring(0, pattern.length() - 1)) : pattern.equals(name);
  }
}
