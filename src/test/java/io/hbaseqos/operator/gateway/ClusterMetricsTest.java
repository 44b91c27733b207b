package io.hbaseqos.operator.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.hbase.UsersMetrics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClusterMetricsTest {
  final List<String> asked = new ArrayList<>();
  final ClusterMetrics recording = new ClusterMetrics() {
    @Override
    public CounterReading userCounters(String user, Set<String> ops, Instant notBefore) {
      throw new UnsupportedOperationException();
    }

    @Override
    public UsersMetrics allUserMetrics(Instant notBefore) {
      throw new UnsupportedOperationException();
    }

    @Override
    public double prometheus(String url, String query, Instant notBefore) {
      asked.add(url + " " + query);
      return 1;
    }
  };

  @Test
  void aQueryWithoutAUrlGoesToTheClustersPrometheus() throws Exception {
    ClusterMetrics m = recording.withDefaultPrometheus("http://prom.platform:9090", "platform/prod");
    m.prometheus(null, "q1", null);
    m.prometheus("http://own:9090", "q2", null);
    assertThat(asked).containsExactly("http://prom.platform:9090 q1", "http://own:9090 q2");
  }

  @Test
  void withoutOneTheQueryFailsNamingTheCluster() {
    assertThatThrownBy(() -> recording.withDefaultPrometheus(null, "platform/prod").prometheus(null, "q", null))
        .hasMessageContaining("HBaseCluster platform/prod has no spec.prometheus.url");
    assertThat(asked).isEmpty();
  }
}
