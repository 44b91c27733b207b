package io.hbaseqos.operator.calibration;

import io.hbaseqos.operator.api.CalibrationSpec;
import io.hbaseqos.operator.api.CalibrationStatus;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.quota.Durations;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What a TenantQuota's {@code spec.calibration} means: the throttle the loop moves, the law's
 * settings, the period, and the limit in force (the loop's, kept in status, else the spec's
 * throttle of that type, else the target). Pure.
 */
public record CalibrationPlan(ThrottleKind kind, Settings settings, Duration period, Limit.Scope scope) {

  public static CalibrationPlan of(TenantQuotaSpec spec) {
    CalibrationSpec c = spec.getCalibration();
    ThrottleKind kind = (c.getOperations() == null ? CalibrationSpec.Operations.all : c.getOperations()).throttle();
    double min = c.getMinLimit() == null ? 1 : c.getMinLimit();
    double max = c.getMaxLimit() == null ? 1e9 : c.getMaxLimit();
    Settings s = new Settings(c.getTargetOpsPerSecond(), min, max, c.getMaxStep() == null ? 4 : c.getMaxStep(),
        (c.getTolerancePercent() == null ? 3 : c.getTolerancePercent()) / 100);
    // the schema and DesiredQuotas refuse periods under 10s before a plan is made
    // the throttle's own scope, if the spec declares one for the calibrated type, else the resource's
    TenantQuotaSpec.Scope scope = spec.getThrottles() == null ? null : spec.getThrottles().stream()
        .filter(t -> t != null && t.getType() == kind && t.getScope() != null).map(t -> t.getScope())
        .findFirst().orElse(spec.getScope());
    return new CalibrationPlan(kind, s, Durations.parse(c.getPeriod(), Duration.ofSeconds(30)),
        TenantQuotaSpec.limitScope(scope));
  }

  /** The limit (req/sec) in force: the loop's last one, else the spec's throttle of this type, else the target. */
  public long limitInForce(SubjectQuota fromSpec, CalibrationStatus status) {
    double l;
    if (status != null && status.getLimit() != null && kind.name().equals(status.getThrottle())) {
      l = status.getLimit();
    } else if (fromSpec.throttles().containsKey(kind)) {
      l = fromSpec.throttles().get(kind).perSecond();
    } else {
      l = settings.target();
    }
    return Math.max(1, Math.round(settings.clamp(l)));
  }

  /** The spec's quota with the calibrated throttle at {@code limit} req/sec. */
  public SubjectQuota apply(SubjectQuota fromSpec, long limit) {
    return fromSpec.with(kind, new Limit(limit, TimeUnit.SECONDS, scope));
  }
}
