package io.hbaseqos.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.hbase.ClusterInfo;
import io.hbaseqos.operator.hbase.QuotaBackend;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.QuotaDiff;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** ClusterState against an in-memory backend that behaves like hbase:quota (incl. the user-row delete). */
class ClusterStateTest {
  static final Limit L = new Limit(100, TimeUnit.SECONDS, Limit.Scope.MACHINE);

  /** A mutable clock for back-off tests. */
  static final class TestClock extends Clock {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  static final class MemoryBackend implements QuotaBackend {
    final Map<Subject, SubjectQuota> table = new HashMap<>();
    final AtomicInteger scans = new AtomicInteger();
    final AtomicInteger writes = new AtomicInteger();
    volatile boolean down;
    Runnable duringScan = () -> { };

    @Override
    public Map<Subject, SubjectQuota> readAll() throws IOException {
      check();
      scans.incrementAndGet();
      Map<Subject, SubjectQuota> copy;
      synchronized (this) {
        copy = new HashMap<>(table);
      }
      duringScan.run(); // the scan has read the table but not returned yet
      return copy;
    }

    @Override
    public synchronized Map<Subject, SubjectQuota> readUser(String user) throws IOException {
      check();
      Map<Subject, SubjectQuota> m = new HashMap<>();
      table.forEach((k, v) -> {
        if (user.equals(k.user())) {
          m.put(k, v);
        }
      });
      return m;
    }

    @Override
    public synchronized void apply(QuotaOp op) throws IOException {
      check();
      writes.incrementAndGet();
      SubjectQuota after = QuotaDiff.applyTo(table.getOrDefault(op.subject(), SubjectQuota.empty(op.subject())), op);
      if (after.isEmpty()) {
        table.remove(op.subject());
        if (op.subject().kind() == Subject.Kind.USER) { // HBase deletes the whole user row
          table.keySet().removeIf(s -> op.subject().user().equals(s.user()));
        }
      } else {
        table.put(op.subject(), after);
      }
    }

    @Override
    public ClusterInfo describe() throws IOException {
      check();
      return new ClusterInfo("2.6.4", "id", 1, true, true, Map.of());
    }

    private void check() throws IOException {
      if (down) {
        throw new ConnectException("Connection refused");
      }
    }

    @Override
    public io.hbaseqos.operator.calibration.CounterReading userCounters(String user,
        java.util.Set<String> ops) throws IOException {
      throw new io.hbaseqos.operator.hbase.MetricsUnavailableException("no RegionServers in memory");
    }

    @Override
    public void close() {}
  }

  final MemoryBackend hbase = new MemoryBackend();
  final TestClock clock = new TestClock();
  final ClusterState state = new ClusterState("ns/hb", new ConnectionSpec(), c -> hbase,
      new OperatorMetrics(new SimpleMeterRegistry()), clock);

  @Test
  void loadsOnceAndWritesThrough() throws Exception {
    Subject u = Subject.user("a");
    hbase.table.put(u, SubjectQuota.empty(u).with(ThrottleKind.REQUEST_NUMBER, L));
    state.ensureLoaded();
    state.ensureLoaded();
    assertThat(hbase.scans).hasValue(1);
    assertThat(state.actual(u).throttles()).containsKey(ThrottleKind.REQUEST_NUMBER);
    state.apply(u, List.of(new QuotaOp.SetThrottle(u, ThrottleKind.READ_SIZE, L)));
    assertThat(state.actual(u).throttles()).containsKeys(ThrottleKind.REQUEST_NUMBER, ThrottleKind.READ_SIZE);
    assertThat(hbase.scans).hasValue(1);
    assertThat(state.apply(u, List.of())).isEmpty();
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
          state.apply(u, List.of(new QuotaOp.SetThrottle(u, ThrottleKind.REQUEST_NUMBER, L)));
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
  void userRowDeleteReportsTheSubjectsItTookAlong() throws Exception {
    Subject u = Subject.user("bob");
    Subject ut = new Subject("bob", null, "t");
    Subject other = Subject.user("carol");
    state.ensureLoaded();
    state.apply(u, List.of(new QuotaOp.SetThrottle(u, ThrottleKind.REQUEST_NUMBER, L)));
    state.apply(ut, List.of(new QuotaOp.SetThrottle(ut, ThrottleKind.READ_NUMBER, L)));
    state.apply(other, List.of(new QuotaOp.SetThrottle(other, ThrottleKind.READ_NUMBER, L)));
    Set<Subject> lost = state.apply(u, QuotaDiff.removeAll(state.actual(u)));
    assertThat(lost).containsExactly(ut);
    assertThat(state.actual(ut).isEmpty()).isTrue();
    assertThat(state.takeCollateral(ut)).isTrue();
    assertThat(state.takeCollateral(ut)).isFalse();
    assertThat(state.actual(other).isEmpty()).isFalse();
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
