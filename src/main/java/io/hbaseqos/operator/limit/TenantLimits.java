package io.hbaseqos.operator.limit;

import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.api.TenantQuotaStatus;
import io.hbaseqos.operator.calibration.CalibrationLoops;
import io.hbaseqos.operator.gateway.ClusterMetrics;
import io.hbaseqos.operator.qos.ProtectionLoops;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.SubjectQuota;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The tenant's limit: one entry point that takes a tenant, what its spec asks HBase to hold, its
 * cluster's metrics and the time, and returns the {@link Decision}. Latency protection and
 * calibration each propose a limit; HBase must hold the lower of the two (protection wins, and
 * calibration waits while protection holds the tenant down). The loops' memory is kept here, per
 * cluster and tenant; their inputs come through ports: {@link ClusterMetrics} for readings and
 * {@link Peers} for the cluster's other QoS tenants. Nothing here talks to Kubernetes or HBase.
 */
public final class TenantLimits {

  /** The cluster's QoS tenants as the operator knows them (owned, not being deleted, with {@code spec.qos}). */
  @FunctionalInterface
  public interface Peers {
    List<Tenant> qosTenants(String clusterKey);

    /**
     * How long after a quota write its RegionServers may still enforce the old quota (zero when HBase
     * reloads quotas on a write, or when that is not known).
     */
    default java.time.Duration quotaInForce(String clusterKey) {
      return java.time.Duration.ZERO;
    }

    /**
     * Whether the cluster's RegionServers count the requests they refuse a user (HBase 2.6.4+); where
     * they do not, a calibrated tenant's refused share is unknown, never read as none.
     */
    default boolean countsRefusals(String clusterKey) {
      return true;
    }
  }

  private final CalibrationStep calibration;
  private final ProtectionStep protection;
  private final Peers peers;

  public TenantLimits(CalibrationLoops calibration, ProtectionLoops protection, Peers peers) {
    this.calibration = new CalibrationStep(calibration);
    this.protection = new ProtectionStep(protection);
    this.peers = peers;
  }

  /**
   * @param desired the settings the tenant's spec declares (limits as written, before either loop)
   */
  public Decision decide(Tenant tenant, SubjectQuota desired, ClusterMetrics metrics, Instant now) {
    TenantQuotaSpec spec = tenant.spec();
    TenantQuotaStatus old = tenant.status();
    List<Decision.Report> conditions = new ArrayList<>();
    List<Decision.Note> notes = new ArrayList<>();
    Duration retry = null;

    // both loops measure a written limit only once every RegionServer enforces it
    Duration inForce = spec.getQos() != null || spec.getCalibration() != null
        ? peers.quotaInForce(tenant.clusterKey()) : Duration.ZERO;
    ProtectionStep.Outcome shed = null;
    if (spec.getQos() != null) {
      shed = protection.step(tenant, peers.qosTenants(tenant.clusterKey()), inForce,
          metrics, now);
      conditions.addAll(shed.conditions());
      notes.addAll(shed.notes());
      retry = shed.retry().plusMillis(50);
    } else if (old.getQos() != null) {
      conditions.add(Decision.Report.removed(Conditions.LATENCY_MET));
      conditions.add(Decision.Report.removed(Conditions.SHED));
      protection.forget(tenant.id());
    }

    SubjectQuota quota = desired;
    CalibrationStep.Outcome cal = null;
    if (spec.getCalibration() != null) {
      cal = shed != null && shed.shed() ? calibration.held(tenant, desired, shed.limit(), shed.qos().getHeldBy())
          : calibration.step(tenant, desired, inForce,
              peers.countsRefusals(tenant.clusterKey()), metrics, now);
      conditions.add(cal.condition());
      notes.addAll(cal.notes());
      retry = earlier(retry, cal.retry());
      quota = cal.quota();
    } else if (old.getCalibration() != null) {
      conditions.add(Decision.Report.removed(Conditions.CALIBRATED));
      calibration.forget(tenant.uid());
    }

    if (shed != null && shed.limit() != null) {
      // protection wins over calibration: the lower of the two limits is the one HBase holds
      Limit cal1 = quota.throttles().get(shed.kind());
      quota = quota.with(shed.kind(), cal1 == null
          ? new Limit(shed.limit(), TimeUnit.SECONDS, TenantQuotaSpec.limitScope(spec.getScope()))
          : new Limit(Math.min(shed.limit(), Math.round(cal1.perSecond())), TimeUnit.SECONDS, cal1.scope()));
    }
    return new Decision(quota, shed == null ? null : shed.qos(), cal == null ? null : cal.status(),
        List.copyOf(conditions), List.copyOf(notes), shed == null ? List.of() : shed.moved(), retry,
        shed == null ? null : shed.gauge(), cal == null ? null : cal.gauge());
  }

  /** The tenant is gone (deleted): both loops forget it. */
  public void forget(String id, String uid) {
    calibration.forget(uid);
    protection.forget(id);
  }

  private static Duration earlier(Duration a, Duration b) {
    return a == null ? b : b == null ? a : b.compareTo(a) < 0 ? b : a;
  }
}
