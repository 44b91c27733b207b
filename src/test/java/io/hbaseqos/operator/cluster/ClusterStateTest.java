package io.hbaseqos.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.hbase.MemoryQuotaTable;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.QuotaDiff;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.SettableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** ClusterState (connection, back-off, snapshot) against the in-memory model of hbase:quota. */
class ClusterStateTest {
  static final Limit L = new Limit(100, TimeUnit.SECONDS, Limit.Scope.MACHINE);


  final MemoryQuotaTable hbase = new MemoryQuotaTable();
  final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  final ClusterState state = new ClusterState("ns/hb", new ConnectionSpec(), c -> hbase,
      new OperatorMetrics(new SimpleMeterRegistry()), clock);

  @Test
  void aConnectionThatReachesAnotherHBaseWritesNothingUntilRevertedOrAccepted() throws Exception {
    MemoryQuotaTable other = new MemoryQuotaTable();
    other.clusterId = "other-cluster";
    ConnectionSpec first = new ConnectionSpec();
    first.setZookeeperQuorum("zk-a");
    ConnectionSpec second = new ConnectionSpec();
    second.setZookeeperQuorum("zk-b");
    ClusterState moving = new ClusterState("ns/hb", first, c -> "zk-b".equals(c.getZookeeperQuorum()) ? other : hbase,
        new OperatorMetrics(new SimpleMeterRegistry()), clock);
    Subject u = Subject.user("mover");
    moving.manages(null, null);
    moving.ensureLoaded();
    moving.write(new QuotaOp.SetThrottle(u, ThrottleKind.REQUEST_NUMBER, L));
    assertThat(moving.identity()).isEqualTo("memory-cluster");

    assertThat(moving.updateConnection(second, 2L)).isTrue();
    assertThatThrownBy(() -> moving.write(new QuotaOp.SetThrottle(u, ThrottleKind.REQUEST_NUMBER, L)))
        .isInstanceOf(ClusterState.ConnectionMovedException.class)
        .hasMessageContaining("reaches the HBase with cluster id other-cluster")
        .hasMessageContaining("manages the HBase with cluster id memory-cluster")
        .hasMessageContaining("hbaseqos.io/move-to-hbase=other-cluster");
    assertThat(other.read(u).isEmpty()).as("nothing written to the other HBase").isTrue();
    assertThat(moving.identity()).as("claims stay with the HBase it manages").isEqualTo("memory-cluster");

    assertThat(moving.updateConnection(first, 1L)).as("an older copy of the resource switches nothing back").isFalse();
    assertThat(moving.moved()).isNotNull();

    moving.manages("memory-cluster", "other-cluster"); // the owner accepts the move
    assertThat(moving.moved()).isNull();
    moving.write(new QuotaOp.SetThrottle(u, ThrottleKind.REQUEST_NUMBER, L));
    assertThat(other.read(u).throttles()).containsKey(ThrottleKind.REQUEST_NUMBER);
    assertThat(moving.identity()).isEqualTo("other-cluster");
    moving.close();
  }

  @Test
  void aWriteTheFenceRefusesReachesNoHBaseAndLeavesTheClusterAvailable() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean lead = new java.util.concurrent.atomic.AtomicBoolean(true);
    ClusterState fenced = new ClusterState("ns/hb", new ConnectionSpec(), c -> hbase,
        new OperatorMetrics(new SimpleMeterRegistry()), clock, Duration.ofSeconds(5), () -> {
          if (!lead.get()) {
            throw new WriteFence.NotLeaderException("Lease ns/l is held by other");
          }
        });
    Subject u = Subject.user("fenced");
    fenced.ensureLoaded();
    fenced.write(new QuotaOp.SetThrottle(u, ThrottleKind.REQUEST_NUMBER, L));
    int writes = hbase.writes.get();
    lead.set(false);
    assertThatThrownBy(() -> fenced.write(new QuotaOp.RemoveThrottle(u, ThrottleKind.REQUEST_NUMBER)))
        .isInstanceOf(WriteFence.NotLeaderException.class).hasMessageContaining("held by other");
    assertThat(hbase.writes.get()).as("nothing reached HBase").isEqualTo(writes);
    assertThat(hbase.read(u).throttles()).containsKey(ThrottleKind.REQUEST_NUMBER);
    assertThat(fenced.isAvailable()).as("a refusal, not an outage: no back-off").isTrue();
    assertThat(fenced.isUnsure(u)).as("read again before the next decision").isTrue();
    fenced.close();
  }

  @Test
  void loadsOnceLearnsTheIdentityAndWritesThrough() throws Exception {
    Subject u = Subject.user("a");
    hbase.setQuota(new QuotaOp.SetThrottle(u, ThrottleKind.REQUEST_NUMBER, L));
    assertThat(state.identity()).isNull();
    state.ensureLoaded();
    state.ensureLoaded();
    assertThat(state.identity()).isEqualTo("memory-cluster");
    assertThat(hbase.scans).hasValue(1);
    assertThat(state.actual(u).throttles()).containsKey(ThrottleKind.REQUEST_NUMBER);
    state.write(new QuotaOp.SetThrottle(u, ThrottleKind.READ_SIZE, L));
    assertThat(state.actual(u).throttles()).containsKeys(ThrottleKind.REQUEST_NUMBER, ThrottleKind.READ_SIZE);
    assertThat(hbase.scans).hasValue(1);
    assertThat(hbase.writes).hasValue(1);
  }

  @Test
  void aScanRacingAWriteDoesNotUndoTheWriteInTheSnapshot() throws Exception {
    Subject u = Subject.user("racer");
    state.ensureLoaded();
    // the scan copies the table, then a write lands before the scan returns
    hbase.duringScan = () -> {
      hbase.duringScan = () -> { };
      Thread writer = new Thread(() -> {
        try {
          state.write(new QuotaOp.SetThrottle(u, ThrottleKind.REQUEST_NUMBER, L));
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
      });
      writer.start();
      try {
        writer.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    state.refresh();
    assertThat(state.actual(u).throttles()).containsKey(ThrottleKind.REQUEST_NUMBER);
  }

  @Test
  void freshReadsOfARowReplaceWhatTheSnapshotThoughtOfIt() throws Exception {
    Subject own = Subject.user("bob");
    Subject perTable = new Subject("bob", null, "t");
    hbase.setQuota(new QuotaOp.SetThrottle(own, ThrottleKind.REQUEST_NUMBER, L));
    hbase.setQuota(new QuotaOp.SetThrottle(perTable, ThrottleKind.READ_NUMBER, L));
    state.ensureLoaded();
    hbase.unthrottleUser("bob"); // outside the operator: HBase deletes the whole row
    assertThat(state.actual(perTable).isEmpty()).as("the snapshot does not know yet").isFalse();
    assertThat(state.readUser("bob")).isEmpty();
    assertThat(state.actual(perTable).isEmpty()).isTrue();
    assertThat(state.actual(own).isEmpty()).isTrue();
  }

  @Test
  void aFailedWriteMakesTheSubjectUnsureAndAnAbandonedOneLeavesItInDoubt() throws Exception {
    Subject u = Subject.user("slow");
    state.ensureLoaded();
    hbase.down = true;
    assertThatThrownBy(() -> state.write(new QuotaOp.SetThrottle(u, ThrottleKind.REQUEST_NUMBER, L)))
        .isInstanceOf(ClusterUnavailableException.class);
    assertThat(state.isUnsure(u)).isTrue();
    assertThat(state.inDoubt(u)).as("it failed, it cannot land later").isEqualTo(Duration.ZERO);
    hbase.down = false;
    clock.now = clock.now.plus(state.retryAfter());
    state.read(u);
    assertThat(state.isUnsure(u)).isFalse();

    // a call that outlives its deadline: the client may still deliver it
    ClusterState quick = new ClusterState("ns/quick", new ConnectionSpec(), c -> hbase,
        new OperatorMetrics(new SimpleMeterRegistry()), clock, Duration.ofMillis(200));
    quick.ensureLoaded();
    hbase.beforeWrite = () -> sleep(600);
    assertThatThrownBy(() -> quick.write(new QuotaOp.SetThrottle(u, ThrottleKind.REQUEST_NUMBER, L)))
        .isInstanceOf(ClusterUnavailableException.class).hasMessageContaining("unreachable (TimeoutException)");
    assertThat(quick.isUnsure(u)).isTrue();
    assertThat(quick.inDoubt(u)).isEqualTo(hbase.writeSettleTime());
    clock.now = clock.now.plus(hbase.writeSettleTime());
    assertThat(quick.inDoubt(u)).isEqualTo(Duration.ZERO);
    hbase.beforeWrite = () -> { };
  }

  @Test
  void writesToOneRowTakeTurns() throws Exception {
    Subject own = Subject.user("x");
    Subject perTable = new Subject("x", null, "t");
    java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    Thread holder = new Thread(() -> {
      try {
        state.withRowLock(own, () -> {
          inside.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return null;
        });
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    holder.start();
    inside.await();
    java.util.concurrent.atomic.AtomicBoolean entered = new java.util.concurrent.atomic.AtomicBoolean();
    Thread other = new Thread(() -> {
      try {
        state.withRowLock(perTable, () -> {
          entered.set(true);
          return null;
        });
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
    other.start();
    other.join(300);
    assertThat(entered).as("the same user's row is locked").isFalse();
    assertThat(state.withRowLock(Subject.user("y"), () -> "free")).as("another row is not").isEqualTo("free");
    release.countDown();
    other.join(5000);
    assertThat(entered).isTrue();
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aDownClusterFailsFastWithGrowingBackOffAndRecovers() throws Exception {
    hbase.down = true;
    assertThatThrownBy(state::refresh).isInstanceOf(ClusterUnavailableException.class)
        .hasMessageContaining("ns/hb is unreachable (ConnectException)");
    assertThat(state.isAvailable()).isFalse();
    assertThat(state.lastErrorDetail()).contains("Connection refused");
    int scans = hbase.scans.get();
    // within the back-off nothing reaches HBase
    for (int i = 0; i < 50; i++) {
      assertThatThrownBy(state::refresh).isInstanceOf(ClusterUnavailableException.class);
    }
    assertThat(hbase.scans).hasValue(scans);
    assertThat(state.retryAfter()).isEqualTo(Duration.ofSeconds(1));
    clock.now = clock.now.plusSeconds(1);
    assertThatThrownBy(state::refresh).isInstanceOf(ClusterUnavailableException.class);
    assertThat(state.retryAfter()).isEqualTo(Duration.ofSeconds(2));
    for (int i = 0; i < 10; i++) {
      clock.now = clock.now.plus(state.retryAfter());
      assertThatThrownBy(state::refresh).isInstanceOf(ClusterUnavailableException.class);
    }
    assertThat(state.retryAfter()).isEqualTo(ClusterState.MAX_BACKOFF);
    hbase.down = false;
    clock.now = clock.now.plus(state.retryAfter());
    state.refresh();
    assertThat(state.isAvailable()).isTrue();
    assertThat(state.retryAfter()).isEqualTo(Duration.ZERO);
  }

  @Test
  void newConnectionSettingsDropTheSnapshot() throws Exception {
    state.ensureLoaded();
    ConnectionSpec other = new ConnectionSpec();
    other.setZookeeperQuorum("zk-9:2181");
    assertThat(state.updateConnection(other)).isTrue();
    assertThat(state.isLoaded()).isFalse();
    assertThat(state.updateConnection(other)).isFalse();
  }
}
