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
    metrics.forgetCluster("ns/hb");
    assertThat(registry.find("hbaseqos.cluster.up").tag("cluster", "ns/hb").gauge()).isNull();
    assertThat(registry.find("hbaseqos.drift.corrections").tag("cluster", "ns/hb").counter()).isNull();
  }
}
