package io.hbaseqos.operator.support;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.hbaseqos.operator.api.ClusterRef;
import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.HBaseClusterSpec;
import io.hbaseqos.operator.api.QuotaSettingsSpec;
import io.hbaseqos.operator.api.QuotaSubject;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.ThrottleSpec;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.util.ArrayList;
import java.util.List;

/** Builders for test resources. */
public final class Resources {
  private Resources() {}

  public static HBaseCluster cluster(String ns, String name, ConnectionSpec conn, String resync) {
    HBaseCluster c = new HBaseCluster();
    c.setMetadata(new ObjectMetaBuilder().withNamespace(ns).withName(name).build());
    HBaseClusterSpec spec = new HBaseClusterSpec();
    spec.setConnection(conn);
    QuotaSettingsSpec q = new QuotaSettingsSpec();
    q.setResyncPeriod(resync);
    spec.setQuotas(q);
    c.setSpec(spec);
    return c;
  }

  /** A spec edit of an HBaseCluster; retried when the operator's status write got in between (409). */
  public static void editCluster(io.fabric8.kubernetes.client.KubernetesClient k8s, String ns, String name,
      java.util.function.Consumer<HBaseCluster> change) {
    edit(k8s, HBaseCluster.class, ns, name, change);
  }

  /** A spec edit; retried when the operator's status write got in between (409). */
  public static <T extends io.fabric8.kubernetes.api.model.HasMetadata> void edit(
      io.fabric8.kubernetes.client.KubernetesClient k8s, Class<T> type, String ns, String name,
      java.util.function.Consumer<T> change) {
    org.awaitility.Awaitility.await().atMost(10, java.util.concurrent.TimeUnit.SECONDS)
        .ignoreExceptionsInstanceOf(io.fabric8.kubernetes.client.KubernetesClientException.class).until(() -> {
          k8s.resources(type).inNamespace(ns).withName(name).edit(h -> {
            change.accept(h);
            return h;
          });
          return true;
        });
  }

  public static TenantQuota tenant(String ns, String name, String cluster, QuotaSubject subject, ThrottleSpec... t) {
    TenantQuota tq = new TenantQuota();
    tq.setMetadata(new ObjectMetaBuilder().withNamespace(ns).withName(name).build());
    TenantQuotaSpec spec = new TenantQuotaSpec();
    spec.setClusterRef(new ClusterRef(cluster));
    spec.setSubject(subject);
    spec.setThrottles(new ArrayList<>(List.of(t)));
    tq.setSpec(spec);
    return tq;
  }

  /** A calibration toward {@code target} reads/s, measured from HBase unless the caller changes the source. */
  public static io.hbaseqos.operator.api.CalibrationSpec readsCalibration(long target, int periodSeconds,
      double tolerancePercent) {
    io.hbaseqos.operator.api.CalibrationSpec c = new io.hbaseqos.operator.api.CalibrationSpec();
    c.setTargetOpsPerSecond(target);
    c.setOperations(io.hbaseqos.operator.api.CalibrationSpec.Operations.reads);
    c.setPeriod(periodSeconds + "s");
    c.setTolerancePercent(tolerancePercent);
    return c;
  }

  /** A protected tenant's qos: one reads objective at {@code percentile} under {@code boundMillis} over {@code window}. */
  public static io.hbaseqos.operator.api.QosSpec protectedReads(int priority, double percentile, double boundMillis,
      String window) {
    io.hbaseqos.operator.api.QosSpec.LatencyObjectiveSpec o = new io.hbaseqos.operator.api.QosSpec.LatencyObjectiveSpec();
    o.setOperations(io.hbaseqos.operator.api.QosSpec.LatencyObjectiveSpec.Operations.reads);
    o.setStatistic(io.hbaseqos.operator.api.QosSpec.LatencyObjectiveSpec.Statistic.Percentile);
    o.setPercentile(percentile);
    o.setBoundMillis(boundMillis);
    o.setWindow(window);
    io.hbaseqos.operator.api.QosSpec q = new io.hbaseqos.operator.api.QosSpec();
    q.setPriority(priority);
    q.setLatencyObjectives(new java.util.ArrayList<>(java.util.List.of(o)));
    return q;
  }

  /** The same objective read from a Prometheus query that returns milliseconds. */
  public static io.hbaseqos.operator.api.QosSpec protectedReads(int priority, double boundMillis, String window,
      String prometheusUrl, String query) {
    io.hbaseqos.operator.api.QosSpec q = protectedReads(priority, 99, boundMillis, window);
    io.hbaseqos.operator.api.PrometheusQuery p = new io.hbaseqos.operator.api.PrometheusQuery();
    p.setUrl(prometheusUrl);
    p.setQuery(query);
    q.getLatencyObjectives().get(0).setSource(io.hbaseqos.operator.api.QosSpec.LatencyObjectiveSpec.Source.Prometheus);
    q.getLatencyObjectives().get(0).setPrometheus(p);
    return q;
  }

  /** A sheddable tenant's qos: all its requests (REQUEST_NUMBER) between {@code floor} and {@code ceiling}. */
  public static io.hbaseqos.operator.api.QosSpec sheddable(int priority, long floor, long ceiling) {
    io.hbaseqos.operator.api.QosSpec.SheddableSpec s = new io.hbaseqos.operator.api.QosSpec.SheddableSpec();
    s.setOperations(io.hbaseqos.operator.api.CalibrationSpec.Operations.all);
    s.setFloor(floor);
    s.setCeiling(ceiling);
    io.hbaseqos.operator.api.QosSpec q = new io.hbaseqos.operator.api.QosSpec();
    q.setPriority(priority);
    q.setSheddable(s);
    return q;
  }

  /**
   * Creates a protected tenant {@code u} (user {@code uUser}: priority 100, p99 of its reads under 50 ms
   * over {@code window}, read from HBase) and a sheddable one below it, {@code t} (user {@code tUser}:
   * priority 10, floor 100, ceiling 5000), both on cluster {@code hb} of namespace {@code ns}.
   */
  public static void createProtectedOverSheddable(io.fabric8.kubernetes.client.KubernetesClient k8s, String ns,
      String u, String uUser, String t, String tUser, String window) {
    TenantQuota ut = tenant(ns, u, "hb", user(uUser));
    ut.getSpec().setQos(protectedReads(100, 99, 50, window));
    TenantQuota tt = tenant(ns, t, "hb", user(tUser));
    tt.getSpec().setQos(sheddable(10, 100, 5000));
    k8s.resource(ut).create();
    k8s.resource(tt).create();
  }

  public static ThrottleSpec t(ThrottleKind kind, String limit) {
    return ThrottleSpec.shell(kind, limit);
  }

  public static QuotaSubject user(String u) {
    return new QuotaSubject(u, null, null);
  }

  public static QuotaSubject table(String t) {
    return new QuotaSubject(null, null, t);
  }

  public static QuotaSubject namespace(String n) {
    return new QuotaSubject(null, n, null);
  }

  public static QuotaSubject userTable(String u, String t) {
    return new QuotaSubject(u, null, t);
  }
}
