package io.hbaseqos.operator.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Readiness and the lost lease, without a JVM shutdown or an API server. */
class LeadershipTest {
  final AtomicBoolean shuttingDown = new AtomicBoolean();
  final AtomicInteger exits = new AtomicInteger();

  @Test
  void withoutLeaderElectionTheReplicaIsAlwaysReady() {
    Leadership l = new Leadership(shuttingDown::get, exits::incrementAndGet);
    assertThat(l.ready(false)).isTrue();
  }

  @Test
  void aStandbyIsNotReadyUntilItLeads() {
    Leadership l = new Leadership(shuttingDown::get, exits::incrementAndGet);
    assertThat(l.ready(true)).isFalse();
    l.startedLeading();
    assertThat(l.ready(true)).isTrue();
    assertThat(l.leading()).isTrue();
  }

  @Test
  void aLeaseLostWhileRunningEndsTheProcessAndOneReleasedInAShutdownDoesNot() {
    Leadership l = new Leadership(shuttingDown::get, exits::incrementAndGet);
    l.startedLeading();
    l.stoppedLeading();
    assertThat(exits).hasValue(1);
    assertThat(l.ready(true)).isFalse();
    l.startedLeading();
    shuttingDown.set(true);
    l.stoppedLeading();
    assertThat(exits).as("no exit from inside the shutdown").hasValue(1);
  }

  @Test
  void aRunningJvmIsNotShuttingDown() {
    assertThat(Leadership.jvmShuttingDown()).isFalse();
  }
}
