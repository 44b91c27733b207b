package io.hbaseqos.operator.calibration;

/**
 * What one control period measured, for the limit in force during it.
 *
 * @param ops observed ops/s of the tenant; NaN when the metrics were missing
 * @param throttledShare share of the tenant's attempted requests HBase refused with a throttling
 *     exception (0..1); NaN when unknown
 */
public record Observation(double ops, double throttledShare) {
  public static Observation missing() {
    return new Observation(Double.NaN, Double.NaN);
  }
}
