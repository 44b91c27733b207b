package io.hbaseqos.operator.qos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The elasticity of latency to load the law measures between two records at different limits. */
class EvidenceTest {
  static Evidence twoEpochs(Map<String, Double> before, double hBefore, Map<String, Double> after, double hAfter,
      double jitter) {
    Evidence e = new Evidence();
    for (int i = 0; i < 3; i++) {
      e.add(hBefore + (i % 2 == 0 ? jitter : -jitter), before);
    }
    e.newEpoch();
    for (int i = 0; i < 3; i++) {
      e.add(hAfter + (i % 2 == 0 ? jitter : -jitter), after);
    }
    return e;
  }

  @Test
  void aLatencyThatRisesInProportionToTheLoadIsElasticityOne() {
    // twice the load, the headroom down by ln 2
    assertThat(twoEpochs(Map.of("t", 1000.0), 0.8, Map.of("t", 2000.0), 0.8 - Math.log(2), 0.01).elasticity())
        .isEqualTo(1.0);
  }

  @Test
  void aSteepPlantIsMeasuredSteepUpToTheSteepestTheLawBelieves() {
    // 1.5 times the load, the headroom down by 3 x ln 1.5
    double steep = twoEpochs(Map.of("t", 1000.0), 1.0, Map.of("t", 1500.0), 1.0 - 3 * Math.log(1.5), 0.01)
        .elasticity();
    assertThat(steep).isCloseTo(3.0, org.assertj.core.data.Offset.offset(0.01));
    assertThat(twoEpochs(Map.of("t", 1000.0), 1.2, Map.of("t", 1414.0), -0.2, 0.01).elasticity())
        .isEqualTo(ProtectionLaw.STEEPEST);
  }

  /** The law sizes its cut by the elasticity: on a plant measured three times steeper, a third of the move. */
  @Test
  void aCutOnAPlantMeasuredSteepIsShallower() {
    double missed = 1.0 - 3 * Math.log(1.5);
    Evidence steep = twoEpochs(Map.of("t", 1000.0), 1.0, Map.of("t", 1500.0), missed, 0.01);
    Evidence flat = twoEpochs(Map.of("t", 1500.0), missed, Map.of("t", 1500.0), missed, 0.01);
    assertThat(flat.elasticity()).isEqualTo(1.0);
    ProtectionLaw.Protected u = ProtectionLawTest.u(50, 10 / Math.exp(missed));
    double steepCut = ProtectionLaw.cut(u, steep);
    double flatCut = ProtectionLaw.cut(u, flat);
    assertThat(Math.log(steepCut)).isCloseTo(Math.log(flatCut) / steep.elasticity(),
        org.assertj.core.data.Offset.offset(0.02));
    assertThat(steepCut).isGreaterThan(flatCut);
  }

  @Test
  void aTenantWhoseLoadDidNotMoveIsBackgroundNotPartOfTheChange() {
    double alone = twoEpochs(Map.of("t", 1000.0), 1.0, Map.of("t", 1500.0), 1.0 - 3 * Math.log(1.5), 0.01)
        .elasticity();
    double withB = twoEpochs(Map.of("t", 1000.0, "b", 3000.0), 1.0, Map.of("t", 1500.0, "b", 3000.0),
        1.0 - 3 * Math.log(1.5), 0.01).elasticity();
    assertThat(withB).isEqualTo(alone);
  }

  @Test
  void aChangeWithinTheNoiseSaysNothingAndTheLawKeepsElasticityOne() {
    // the same change in the means, on readings spread eighty times wider
    assertThat(twoEpochs(Map.of("t", 1000.0), 1.0, Map.of("t", 1500.0), 1.0 - 3 * Math.log(1.5), 0.8).elasticity())
        .isEqualTo(1.0);
    // loads a twentieth apart or less: no measure of a slope
    assertThat(twoEpochs(Map.of("t", 1000.0), 1.0, Map.of("t", 1040.0), 0.2, 0.01).elasticity()).isEqualTo(1.0);
    // a single epoch: nothing to compare
    Evidence one = new Evidence();
    one.add(0.5, Map.of("t", 1000.0));
    one.add(0.5, Map.of("t", 1000.0));
    assertThat(one.elasticity()).isEqualTo(1.0);
  }

  static Evidence record(double... hs) {
    Evidence e = new Evidence();
    for (double h : hs) {
      e.add(h, Map.of("t", 1000.0));
    }
    return e;
  }

  /**
   * A machine that drifts makes consecutive periods alike: eight periods that climb step by step say less of
   * their mean than the same eight in an order that alternates, and the law raises less on them.
   */
  @Test
  void periodsAlikeFromOneToTheNextSayLessThanTheirCount() {
    Evidence drifting = record(0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65);
    Evidence alternating = record(0.30, 0.65, 0.40, 0.55, 0.35, 0.60, 0.45, 0.50);
    assertThat(drifting.periods()).isEqualTo(8);
    assertThat(alternating.periods()).isEqualTo(8);
    assertThat(drifting.mean()).isCloseTo(alternating.mean(), org.assertj.core.data.Offset.offset(1e-9));
    assertThat(drifting.sigma()).isCloseTo(alternating.sigma(), org.assertj.core.data.Offset.offset(1e-9));
    // alternating: no positive correlation to correct for, the standard error of independent periods
    assertThat(alternating.inflation()).isEqualTo(1.0);
    assertThat(alternating.se()).isCloseTo(alternating.sigma() / Math.sqrt(8), org.assertj.core.data.Offset.offset(1e-9));
    assertThat(drifting.inflation()).isGreaterThan(1.5);
    assertThat(drifting.se()).isGreaterThan(1.2 * alternating.se());
    assertThat(ProtectionLaw.raise(drifting, false)).isLessThan(ProtectionLaw.raise(alternating, false));
  }
}
