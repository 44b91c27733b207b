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
