package io.hbaseqos.operator.reconciler;

import io.hbaseqos.operator.api.CalibrationSpec;
import io.hbaseqos.operator.api.TenantQuotaSpec;
import io.hbaseqos.operator.calibration.CalibrationLoops;
import io.hbaseqos.operator.calibration.CounterReading;
import io.hbaseqos.operator.calibration.Observation;
import io.hbaseqos.operator.calibration.RateWindow;
import io.hbaseqos.operator.cluster.ClusterState;
import io.hbaseqos.operator.cluster.Errors;
import io.hbaseqos.operator.hbase.UserOperations;
import io.hbaseqos.operator.metrics.PrometheusClient;
import java.io.IOException;
import java.util.Set;

/**
 * Where a calibrated tenant's observed rate comes from: the adapters behind
 * {@link CalibrationLoops.Source}. Neither runs in the cluster's HBase call pool: the RegionServer
 * counters are read from the info servers over HTTP, so a failing read is the tenant's
 * {@code MetricsUnavailable}, never the cluster's back-off.
 */
final class CalibrationSources {
  private CalibrationSources() {}

  /** Measures one calibration period from HBase's per-user RegionServer metrics or from Prometheus. */
  static CalibrationLoops.Source of(TenantQuotaSpec spec, ClusterState cluster, PrometheusClient prometheus) {
    CalibrationSpec c = spec.getCalibration();
    if (c.getSource() == CalibrationSpec.Source.Prometheus) {
      CalibrationSpec.PrometheusSource p = c.getPrometheus();
      // a query's own window (rate over [1m]) spans writes: its readings are never aligned with one limit
      return (window, t, notBefore) -> {
        try {
          double ops = prometheus.query(p.getUrl(), p.getQuery());
          if (Double.isNaN(ops)) {
            return CalibrationLoops.Measurement.failed("the Prometheus query returned no sample");
          }
          double share = Double.NaN;
          if (p.getThrottledQuery() != null && !p.getThrottledQuery().isBlank()) {
            double throttled = prometheus.query(p.getUrl(), p.getThrottledQuery());
            share = Double.isNaN(throttled) ? 0 : ops + throttled == 0 ? 0 : throttled / (ops + throttled);
          }
          return CalibrationLoops.Measurement.of(new Observation(ops, share));
        } catch (IOException e) {
          return CalibrationLoops.Measurement.failed("Prometheus: " + e.getMessage());
        }
      };
    }
    Set<String> ops = UserOperations.of(c.getOperations());
    String user = spec.getSubject().getUser();
    return (window, t, notBefore) -> {
      try {
        CounterReading reading = cluster.userCounters(user, ops, notBefore);
        RateWindow.Result r = window.next(reading);
        if (r.usable()) {
          // /jmx (where /prometheus is not served) lags: its readings are not aligned with a write
          return reading.sampled() ? CalibrationLoops.Measurement.pointInTime(r.observation())
              : CalibrationLoops.Measurement.of(r.observation());
        }
        return r.baseline() ? CalibrationLoops.Measurement.baselineOnly()
            : CalibrationLoops.Measurement.failed(r.problem());
      } catch (IOException e) {
        return CalibrationLoops.Measurement.failed("RegionServer metrics: " + Errors.rootMessage(e));
      }
    };
  }

}
