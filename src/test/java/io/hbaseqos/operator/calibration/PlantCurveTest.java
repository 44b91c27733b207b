package io.hbaseqos.operator.calibration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PlantCurveTest {
  static final PlantCurve CURVE = PlantCurve.parseCsv("limit,ops\n# comment\n100,50\n400,100\n1600,150\n");

  @Test
  void pointsAreExactAndBetweenThemTheCurveIsStraightInLogLog() {
    assertThat(CURVE.ops(100)).isCloseTo(50, within(1e-9));
    assertThat(CURVE.ops(400)).isCloseTo(100, within(1e-9));
    assertThat(CURVE.ops(200)).as("geometric midpoint").isCloseTo(Math.sqrt(50 * 100), within(1e-9));
  }

  @Test
  void belowTheFirstPointTheFirstSlopeContinuesAndFromTheLastOnItIsTheDemand() {
    assertThat(CURVE.ops(25)).isCloseTo(25, within(1e-9)); // slope 0.5 in log-log
    assertThat(CURVE.ops(1600)).isCloseTo(150, within(1e-9));
    assertThat(CURVE.ops(1e9)).isCloseTo(150, within(1e-9));
    assertThat(CURVE.demand()).isCloseTo(150, within(1e-9));
  }

  @Test
  void itIsMonotone() {
    double prev = 0;
    for (double l = 1; l < 1e7; l *= 1.1) {
      double y = CURVE.ops(l);
      assertThat(y).isGreaterThanOrEqualTo(prev);
      prev = y;
    }
  }

  @Test
  void badCurvesAreRefusedWithTheReason() {
    assertThatThrownBy(() -> PlantCurve.parseCsv("limit,ops\n100,50\n")).hasMessageContaining("at least two");
    assertThatThrownBy(() -> PlantCurve.parseCsv("limit,ops\n100,50\n200,40\n")).hasMessageContaining("non-decreasing");
    assertThatThrownBy(() -> PlantCurve.parseCsv("limit,ops\n100,50\nabc\n")).hasMessageContaining("line 3");
    assertThatThrownBy(() -> PlantCurve.parseCsv("limit,ops\n0,50\n100,60\n")).hasMessageContaining("positive");
  }
}
