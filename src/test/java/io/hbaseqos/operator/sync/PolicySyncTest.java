package io.hbaseqos.operator.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.cluster.ClusterState;
import io.hbaseqos.operator.hbase.MemoryQuotaTable;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.RegionServerPolicy;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The cluster-wide policy's writes, on the in-memory quota table: what is written, and when it is drift. */
class PolicySyncTest {
  static final Limit READS = new Limit(1500, TimeUnit.SECONDS, Limit.Scope.MACHINE);
  final MemoryQuotaTable hbase = new MemoryQuotaTable();
  final ClusterState state = new ClusterState("ns/hb", new ConnectionSpec(), c -> hbase,
      new OperatorMetrics(new SimpleMeterRegistry()), Clock.systemUTC());
  final RegionServerPolicy desired = new RegionServerPolicy(Map.of(ThrottleKind.READ_NUMBER, READS), null, null);

  @Test
  void aFirstSyncWritesAndASecondWritesNothing() throws IOException {
    PolicySync.Outcome first = PolicySync.sync(state, desired, false);
    assertThat(first.result()).isEqualTo(QuotaSync.Result.WRITTEN);
    assertThat(first.written()).hasSize(1);
    assertThat(hbase.regionServerPolicy.throttles()).isEqualTo(Map.of(ThrottleKind.READ_NUMBER, READS));
    assertThat(first.now().throttles()).isEqualTo(hbase.regionServerPolicy.throttles());
    int writes = hbase.writes.get();
    PolicySync.Outcome second = PolicySync.sync(state, desired, true);
    assertThat(second.result()).isEqualTo(QuotaSync.Result.UNCHANGED);
    assertThat(second.written()).isEmpty();
    assertThat(hbase.writes.get()).isEqualTo(writes);
  }

  @Test
  void aDifferenceFoundAfterHBaseHeldThePolicyIsDrift() throws IOException {
    PolicySync.sync(state, desired, false);
    hbase.regionServerPolicy = new RegionServerPolicy(Map.of(), false, true); // the shell removed it
    PolicySync.Outcome out = PolicySync.sync(state, desired, true);
    assertThat(out.result()).isEqualTo(QuotaSync.Result.DRIFT_CORRECTED);
    assertThat(out.found().throttles()).isEmpty();
    assertThat(hbase.regionServerPolicy.throttles()).containsOnlyKeys(ThrottleKind.READ_NUMBER);
    // not yet seen holding it (a new generation): a write, not drift
    hbase.regionServerPolicy = new RegionServerPolicy(Map.of(), false, true);
    assertThat(PolicySync.sync(state, desired, false).result()).isEqualTo(QuotaSync.Result.WRITTEN);
  }

  @Test
  void aRefusedChangeIsAnErrorAndWritesNothingAfterIt() {
    hbase.down = true;
    assertThatThrownBy(() -> PolicySync.sync(state, desired, false)).isInstanceOf(IOException.class);
    assertThat(hbase.writes.get()).isZero();
  }
}
