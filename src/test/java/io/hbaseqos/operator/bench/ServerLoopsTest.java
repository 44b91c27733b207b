package io.hbaseqos.operator.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class ServerLoopsTest {
  private static final Map<Integer, Double> U_ON_2 = Map.of(1, 0.01, 2, 0.12, 3, 0.00, 4, 0.02);

  @Test
  void tIsOnTheLoopThatRoseMostOverUAlone() {
    ServerLoops.Placement p = ServerLoops.place(U_ON_2, Map.of(1, 0.02, 2, 0.13, 3, 0.35, 4, 0.02));

    assertThat(p).isEqualTo(new ServerLoops.Placement(2, 3));
    assertThat(p.shared()).isFalse();
  }

  @Test
  void aThrottledTLighterThanUIsStillFoundByItsRiseNotByTheBusiestLoop() {
    ServerLoops.Placement p = ServerLoops.place(U_ON_2, Map.of(1, 0.01, 2, 0.12, 3, 0.00, 4, 0.07));

    assertThat(p.tLoop()).isEqualTo(4);
    assertThat(p.shared()).isFalse();
  }

  @Test
  void tOnUsLoopIsShared() {
    ServerLoops.Placement p = ServerLoops.place(U_ON_2, Map.of(1, 0.01, 2, 0.40, 3, 0.01, 4, 0.02));

    assertThat(p.shared()).isTrue();
    assertThat(p).hasToString("T on U's loop 2");
  }

  @Test
  void nothingToSayWithoutReadingsOrWithoutARise() {
    assertThat(ServerLoops.place(Map.of(), Map.of(1, 0.3))).isNull();
    assertThat(ServerLoops.place(U_ON_2, Map.of())).isNull();
    assertThat(ServerLoops.place(U_ON_2, Map.of(1, 0.0, 2, 0.10, 3, 0.0, 4, 0.0))).isNull();
  }

  @Test
  void ratesAreOverLoopsReadTwice() {
    assertThat(ServerLoops.rate(Map.of(1, 1.0, 2, 2.0), Map.of(1, 1.5, 2, 4.0, 3, 9.0), 5))
        .containsExactlyInAnyOrderEntriesOf(Map.of(1, 0.1, 2, 0.4));
  }

  @Test
  void readsTheCpuOfThreadsNamedAsTheRegionServersLoopsAndNothingOfAnAbsentProcess() throws Exception {
    assertThat(new ServerLoops(-1).cpu()).isEmpty();
    ServerLoops self = new ServerLoops(ProcessHandle.current().pid());
    assertThat(self.cpu()).isEmpty();

    AtomicBoolean run = new AtomicBoolean(true);
    CountDownLatch idleStarted = new CountDownLatch(1);
    Thread busy = new Thread(() -> {
      while (run.get()) {
        Thread.onSpinWait();
      }
    }, "RS-EventLoopGroup-1-1");
    Thread idle = new Thread(() -> {
      idleStarted.countDown();
      while (run.get()) {
        LockSupport.parkNanos(10_000_000L);
      }
    }, "RS-EventLoopGroup-1-2");
    busy.start();
    idle.start();
    try {
      idleStarted.await();
      Thread.sleep(1000);
      Map<Integer, Double> cpu = self.cpu();
      assertThat(cpu).containsOnlyKeys(1, 2);
      assertThat(cpu.values()).anySatisfy(v -> assertThat(v).isGreaterThan(0.2))
          .anySatisfy(v -> assertThat(v).isLessThan(0.1));
    } finally {
      run.set(false);
      busy.join();
      idle.join();
    }
  }
}
