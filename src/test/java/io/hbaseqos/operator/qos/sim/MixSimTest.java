package io.hbaseqos.operator.qos.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Two protected tenants and two priorities of sheddable ones, on the simulator's plants. */
class MixSimTest {
  static final ProtectionSim.Plant MM1 = new ProtectionSim.Plant("mm1", 7300, 1500, 6000, 0.8, 0.1, 1, 0, 0, 0, 0.9);

  static double unloaded(ProtectionSim.Plant p) {
    return p.p99(p.demandU() / p.capacity());
  }

  @Test
  void theOracleCutsTheLowerPriorityFirstAndTheHigherOnlyOnceTheLowerIsAtItsFloor() {
    double[] drift = MM1.drift(60, 1);
    double[][] noise = MixSim.noise(MM1, 60, 1);
    // 3x U1's unloaded p99: T1 alone gives what is needed, T2 keeps its ceiling
    double[] loose = MixSim.oracle(MM1, 3 * unloaded(MM1), 100, 100_000, drift, noise);
    assertThat(loose[1]).isEqualTo(100_000);
    assertThat(loose[0]).isGreaterThan(100).isLessThan(4000);
    // 1.5x: T1 at its floor is not enough, T2 is cut too
    double[] tight = MixSim.oracle(MM1, 1.5 * unloaded(MM1), 100, 100_000, drift, noise);
    assertThat(tight[0]).isEqualTo(100);
    assertThat(tight[1]).isLessThan(2000);
    assertThat(MixSim.meets(MM1, 1.5 * unloaded(MM1), tight[0], tight[1], drift, noise)).isTrue();
    assertThat(MixSim.meets(MM1, 1.5 * unloaded(MM1), tight[0], tight[1] * 1.2, drift, noise)).isFalse();
  }

  @Test
  void theLawKeepsThePrioritiesAndMeetsBothObjectivesWhereOneLevelSuffices() {
    int met = 0;
    for (long seed = 1; seed <= 30; seed++) {
      MixSim.Result r = MixSim.run(MM1, 3 * unloaded(MM1) / MM1.p0(), 100, 100_000, 60, seed);
      assertThat(r.priorityKept()).as("seed %d: T2 held while T1 could still give", seed).isTrue();
      met += r.met() ? 1 : 0;
    }
    assertThat(met).as("seeds meeting every goal of 30").isGreaterThanOrEqualTo(24);
    // where both levels must be cut the priorities still hold, and the objectives after settling
    MixSim.Result tight = MixSim.run(MM1, 1.5 * unloaded(MM1) / MM1.p0(), 100, 100_000, 60, 1);
    assertThat(tight.priorityKept()).isTrue();
    assertThat(tight.violatedAfter()).isLessThanOrEqualTo(ProtectionSim.Goals.VIOLATED);
  }

  @Test
  void aRunIsSettledOnlyWhenEveryLimitAndEveryProtectedTenantIs() {
    long[][] limits = new long[2][30];
    boolean[][] violated = new boolean[2][30];
    for (int p = 0; p < 30; p++) {
      limits[0][p] = p < 5 ? 4000 : 1000; // settles at 5
      limits[1][p] = p < 12 ? 2000 : 800; // at 10: a tenth of the periods left may be away
      violated[1][p] = p < 8; // U2 misses until 8
    }
    assertThat(MixSim.settle(limits, violated)).isEqualTo(10);
    violated[0][20] = violated[0][21] = violated[0][22] = true; // U1 misses 3 periods late: settled after them
    assertThat(MixSim.settle(limits, violated)).isEqualTo(23);
  }
}
