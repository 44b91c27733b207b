package io.hbaseqos.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OperatorMetricsTest {
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final OperatorMetrics metrics = new OperatorMetrics(registry);

  double limit(String name, String type) {
    Gauge g = registry.find("hbaseqos.tenant.limit").tags("tenantquota", name, "type", type).gauge();
    return g == null ? Double.NaN : g.value();
  }

  @Test
  void tenantLimitsArePerSecondAndFollowWhatTheTenantHolds() {
    metrics.tenantLimits("ns", "a", Map.of(ThrottleKind.REQUEST_NUMBER, new Limit(600, TimeUnit.MINUTES, Limit.Scope.MACHINE),
        ThrottleKind.READ_SIZE, new Limit(10 << 20, TimeUnit.SECONDS, Limit.Scope.CLUSTER)));
    assertThat(limit("a", "REQUEST_NUMBER")).isEqualTo(10.0);
    assertThat(limit("a", "READ_SIZE")).isEqualTo(10 << 20);
    assertThat(registry.find("hbaseqos.tenant.limit").tags("type", "READ_SIZE", "scope", "CLUSTER").gauge()).isNotNull();

    metrics.tenantLimits("ns", "a", Map.of(ThrottleKind.REQUEST_NUMBER, new Limit(50, TimeUnit.SECONDS, Limit.Scope.MACHINE)));
    assertThat(limit("a", "REQUEST_NUMBER")).isEqualTo(50.0);
    assertThat(limit("a", "READ_SIZE")).as("a throttle no longer held disappears").isNaN();

    metrics.tenantLimits("ns", "b", Map.of(ThrottleKind.WRITE_NUMBER, new Limit(5, TimeUnit.SECONDS, Limit.Scope.MACHINE)));
    metrics.forgetTenant("ns", "a");
    assertThat(limit("a", "REQUEST_NUMBER")).isNaN();
    assertThat(limit("b", "WRITE_NUMBER")).as("other tenants stay").isEqualTo(5.0);
  }

  @Test
  void countersOfAClusterExistAtZeroFromTheStartAndGoWithIt() {
    metrics.clusterUp("ns/hb", () -> true);
    assertThat(registry.find("hbaseqos.drift.corrections").tag("cluster", "ns/hb").counter().count()).isZero();
    assertThat(registry.find("hbaseqos.hbase.errors").tag("cluster", "ns/hb").counters()).hasSize(OperatorMetrics.CALLS.size());
    assertThat(registry.find("hbaseqos.cluster.up").tag("cluster", "ns/hb").gauge().value()).isEqualTo(1.0);
    metrics.quotaSettingMismatches("ns/hb", 2);
    metrics.quotaSettingMismatches("ns/hb", 1);
    assertThat(registry.find("hbaseqos.cluster.quota.setting.mismatches").tag("cluster", "ns/hb").gauge().value())
        .isEqualTo(1.0);
    metrics.forgetCluster("ns/hb");
    assertThat(registry.find("hbaseqos.cluster.up").tag("cluster", "ns/hb").gauge()).isNull();
    assertThat(registry.find("hbaseqos.cluster.quota.setting.mismatches").tag("cluster", "ns/hb").gauge()).isNull();
    metrics.quotaSettingMismatches("ns/hb", 3);
    assertThat(registry.find("hbaseqos.cluster.quota.setting.mismatches").tag("cluster", "ns/hb").gauge().value())
        .as("registered again after a forget").isEqualTo(3.0);
    assertThat(registry.find("hbaseqos.drift.corrections").tag("cluster", "ns/hb").counter()).isNull();
  }

  double gauge(String metric, String name, String... tags) {
    Gauge g = registry.find(metric).tags("tenantquota", name).tags(tags).gauge();
    return g == null ? Double.NaN : g.value();
  }

  @Test
  void spaceAndCalibrationGaugesFollowTheTenantAndGoWithIt() {
    metrics.space("ns", "s", Double.NaN, 1 << 20, false);
    assertThat(gauge("hbaseqos.tenant.space.limit.bytes", "s")).isEqualTo(1 << 20);
    assertThat(gauge("hbaseqos.tenant.space.used.bytes", "s")).isNaN();
    metrics.space("ns", "s", 3 << 20, 1 << 20, true);
    assertThat(gauge("hbaseqos.tenant.space.used.bytes", "s")).isEqualTo(3 << 20);
    assertThat(gauge("hbaseqos.tenant.space.in.violation", "s")).isEqualTo(1.0);
    metrics.calibration("ns", "s", 1000, 900, "Converging");
    assertThat(gauge("hbaseqos.tenant.calibration.error.ratio", "s")).isCloseTo(-0.1, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(gauge("hbaseqos.tenant.calibration.state", "s", "state", "Converging")).isEqualTo(1.0);
    assertThat(registry.find("hbaseqos.tenant.calibration.state").tags("tenantquota", "s").gauges())
        .as("one series per tenant: the state it is in").hasSize(1);
    // a change of state replaces the series (the one a target between two limiter steps ends in too)
    metrics.calibration("ns", "s", 1000, 880, "LimiterStep");
    assertThat(gauge("hbaseqos.tenant.calibration.state", "s", "state", "LimiterStep")).isEqualTo(1.0);
    assertThat(registry.find("hbaseqos.tenant.calibration.state").tags("tenantquota", "s").gauges()).hasSize(1);
    metrics.calibration("ns", "s", 1000, 880, "LimiterStep");
    assertThat(registry.find("hbaseqos.tenant.calibration.state").tags("tenantquota", "s").gauges()).hasSize(1);

    metrics.forgetSpace("ns", "s");
    assertThat(registry.find("hbaseqos.tenant.space.used.bytes").gauges()).isEmpty();
    assertThat(gauge("hbaseqos.tenant.target.ops.per.second", "s")).as("calibration kept").isEqualTo(1000);
    metrics.forgetTenant("ns", "s");
    assertThat(registry.getMeters()).filteredOn(m -> "s".equals(m.getId().getTag("tenantquota"))).isEmpty();
  }
}
