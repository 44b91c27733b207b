package io.hbaseqos.operator.calibration;

/**
 * What one control period measured, for the limit in force during it.
 *
 * @param ops observed ops/s of the tenant; NaN when the metrics were missing
 * @param throttledShare share of the tenant's attempted requests HBase refused with a throttling
 *     exception (0..1); NaN when unknown
 * @param aligned the period began after the limit in force was: nothing of an earlier limit is in it
 */
public record Observation(double ops, double throttledShare, boolean aligned) {
  public Observation(double ops, double throttledShare) {
    this(ops, throttledShare, false);
  }

  public Observation asAligned() {
    return new Observation(ops, throttledShare, true);
  }

  public static Observation missing() {
    return new Observation(Double.NaN, Double.NaN);
  }
}
