package io.hbaseqos.operator.calibration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The calibration law's statistics, each on its own: what LogNewtonLaw builds on. */
class LawStatisticsTest {

  @Test
  void aProvisionalFirstPeriodCountsUntilTheSecondReplacesItAndFeedsNoNoise() {
    AtLimit at = new AtLimit();
    Noise noise = new Noise();
    double before = noise.sigma();
    double u = Math.log(1000);
    at.restart(u, true);
    assertThat(at.takeProvisional(u, false)).as("the period straddling a large move").isTrue();
    at.add(Math.log(500), true, noise);
    assertThat(at.mean()).isEqualTo(Math.log(500));
    assertThat(at.takeProvisional(u, false)).as("only the first period").isFalse();
    at.add(Math.log(900), false, noise);
    assertThat(at.n()).isEqualTo(1);
    assertThat(at.seen()).isEqualTo(2);
    assertThat(at.mean()).isEqualTo(Math.log(900));
    assertThat(noise.sigma()).as("the straddling period is no difference at one limit").isEqualTo(before);
    at.add(Math.log(950), false, noise);
    assertThat(at.mean()).isCloseTo((Math.log(900) + Math.log(950)) / 2, within(1e-12));
    assertThat(at.meanBefore(Math.log(950))).isCloseTo(Math.log(900), within(1e-12));
    assertThat(noise.sigma()).isNotEqualTo(before);

    at.restart(u, true);
    assertThat(at.takeProvisional(u, true)).as("a reading aligned with the write measures the new limit alone")
        .isFalse();
    at.restart(u, true);
    assertThat(at.takeProvisional(Math.log(2000), false)).as("a limit set from outside meanwhile").isFalse();
    assertThat(new AtLimit().isAt(u)).as("nothing measured yet").isFalse();
  }

  @Test
  void theDetectorIgnoresNoiseWithinItsDriftAndFiresOnAStepOfUnderTwoDeviations() {
    double sigma = 0.02;
    ChangeDetector d = new ChangeDetector();
    d.watch(Math.log(1000));
    for (int i = 0; i < 500; i++) {
      double x = Math.log(1000) + (i % 2 == 0 ? 0.7 : -0.7) * sigma;
      assertThat(d.fired(x, d.reference(), sigma)).as("period %d", i).isFalse();
    }
    int firedAt = -1;
    for (int i = 1; i <= 10 && firedAt < 0; i++) {
      firedAt = d.fired(Math.log(1000) - 1.9 * sigma, d.reference(), sigma) ? i : -1;
    }
    // each period adds 1.9 - 0.75 deviations: 4.6 after four, past 5 on the fifth
    assertThat(firedAt).isEqualTo(5);
    d.watch(Math.log(1200));
    assertThat(d.reference()).isEqualTo(Math.log(1200));
    assertThat(d.fired(Math.log(1200), d.reference(), sigma)).as("watching afresh sums nothing old").isFalse();
  }

  @Test
  void theElasticityIsLearntFromThrottledSecantsWeighedByTheirNoise() {
    Elasticity e = new Elasticity();
    assertThat(e.value()).isEqualTo(LogNewtonLaw.MAX_ELASTICITY);
    assertThat(e.learntOrNaN()).isNaN();
    assertThat(e.span(Math.log(2000), true)).as("no move yet").isNaN();
    e.leaving(Math.log(1000), Math.log(800), true);
    assertThat(e.span(Math.log(2000), false)).as("unthrottled at the new limit").isNaN();
    assertThat(e.span(Math.log(1010), true)).as("a move under 2%").isNaN();
    double du = e.span(Math.log(2000), true);
    assertThat(du).isCloseTo(Math.log(2), within(1e-12));
    // a doubling that gained 2^0.3: a quiet secant is believed
    e.learn(Math.log(800) + 0.3 * du, du, 0.001);
    assertThat(e.learnt()).isTrue();
    assertThat(e.value()).isCloseTo(0.3, within(0.01));

    Elasticity noisy = new Elasticity();
    noisy.leaving(Math.log(1000), Math.log(800), true);
    double small = Math.log(1.03);
    noisy.learn(Math.log(800) + 0.3 * small, small, 0.05);
    assertThat(noisy.value()).as("a secant over a 3% move in 5% noise is mostly noise").isGreaterThan(0.95);

    e.noSecantFromHere();
    assertThat(e.span(Math.log(4000), true)).as("the limit left was a hold's, not the law's").isNaN();
    Elasticity resumed = new Elasticity();
    resumed.resume(7);
    assertThat(resumed.learnt()).as("no elasticity is above 1").isFalse();
    resumed.resume(0.4);
    assertThat(resumed.learntOrNaN()).isEqualTo(0.4);
  }

  @Test
  void aHoldThatEndsForReturningDemandClimbsCautiouslyUntilARaisePays() {
    DemandHold h = new DemandHold();
    h.enter(Math.log(300));
    assertThat(h.held()).isTrue();
    assertThat(h.ref()).isEqualTo(Math.log(300));
    h.end();
    assertThat(h.held()).isFalse();
    assertThat(h.cautious()).as("reaching the target is no reason for caution").isFalse();
    h.enter(Math.log(300));
    h.endToClimb();
    assertThat(h.held()).isFalse();
    assertThat(h.cautious()).isTrue();
    h.stayCautiousIf(true);
    assertThat(h.cautious()).as("a raise that returned under half its prediction").isTrue();
    h.stayCautiousIf(false);
    assertThat(h.cautious()).isFalse();
  }
}
