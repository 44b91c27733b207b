package io.hbaseqos.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.HBaseClusterStatus;
import io.hbaseqos.operator.api.QuotaSettingsSpec;
import io.hbaseqos.operator.limit.TenantLimits;
import io.hbaseqos.operator.ownership.Ownership;
import io.hbaseqos.operator.support.Resources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What the tenants' loops learn of their HBaseCluster from the operator's cache. */
class PeersTest {
  final List<HBaseCluster> clusters = new ArrayList<>();
  final TenantLimits.Peers peers;

  PeersTest() {
    Ownership ownership = new Ownership(key -> null);
    ownership.bindClusters(new Ownership.Cache<>() {
      @Override
      public boolean synced() {
        return true;
      }

      @Override
      public List<HBaseCluster> byIndex(String index, String key) {
        return List.of();
      }

      @Override
      public Stream<HBaseCluster> list() {
        return clusters.stream();
      }
    });
    peers = TenantQuotaReconciler.peers(ownership);
  }

  static HBaseCluster cluster(String version, String refreshSeen, String declared) {
    HBaseCluster hc = Resources.cluster("ns", "hb", null, null);
    hc.getSpec().getQuotas().setRefreshPeriod(declared);
    HBaseClusterStatus st = new HBaseClusterStatus();
    st.setHbaseVersion(version);
    st.setQuotaRefreshPeriod(refreshSeen);
    hc.setStatus(st);
    return hc;
  }

  /**
   * A written quota is in force at once on HBase 2.6.3 and later; before, after twice the refresh period
   * its RegionServers were seen to run with, else the one the platform declares; nothing is waited for
   * on a cluster not reached yet or not known.
   */
  @Test
  void aQuotaIsInForceAfterTheRefreshPeriodTheClusterStatusShowsBefore263() {
    String key = Ownership.clusterKey("ns", "hb");
    assertThat(peers.quotaInForce(key)).as("no such cluster").isZero();
    clusters.add(cluster("2.6.4", "12h", null));
    assertThat(peers.quotaInForce(key)).isZero();
    clusters.set(0, cluster("2.5.12", "1m", "30s"));
    assertThat(peers.quotaInForce(key)).isEqualTo(Duration.ofMinutes(2));
    clusters.set(0, cluster("2.5.12", null, "45s"));
    assertThat(peers.quotaInForce(key)).isEqualTo(Duration.ofSeconds(90));
    clusters.set(0, cluster("2.5.12", null, null));
    assertThat(peers.quotaInForce(key)).isEqualTo(QuotaSettingsSpec.DEFAULT_REFRESH.multipliedBy(2));
    clusters.set(0, cluster(null, null, null));
    assertThat(peers.quotaInForce(key)).as("version not known yet").isZero();
  }

  /**
   * HBase counts the requests it refuses a user from 2.6.4 on; before, and while the version is not
   * known, a calibrated tenant's refused share is unknown.
   */
  @Test
  void refusedRequestsAreCountedFromHBase264On() {
    String key = Ownership.clusterKey("ns", "hb");
    assertThat(peers.countsRefusals(key)).as("no such cluster").isFalse();
    clusters.add(cluster("2.6.4-hadoop3", "12h", null));
    assertThat(peers.countsRefusals(key)).isTrue();
    clusters.set(0, cluster("3.0.0-beta-2", "12h", null));
    assertThat(peers.countsRefusals(key)).isTrue();
    clusters.set(0, cluster("2.6.2", "20s", "20s"));
    assertThat(peers.countsRefusals(key)).isFalse();
    clusters.set(0, cluster("2.5.12", "1m", "30s"));
    assertThat(peers.countsRefusals(key)).isFalse();
    clusters.set(0, cluster(null, null, null));
    assertThat(peers.countsRefusals(key)).as("version not known yet").isFalse();
  }
}
