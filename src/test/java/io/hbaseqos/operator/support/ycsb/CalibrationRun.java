package io.hbaseqos.operator.support.ycsb;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.CalibrationStatus;
import io.hbaseqos.operator.api.TenantQuota;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Follows a calibrated TenantQuota period by period while two tenants drive load: what T's client
 * counted, what U got, and what the loop reports (limit, observed rate, state). Prints one line per
 * period; stops once T's client-side rate has been within the tolerance for {@code hold} periods
 * and the loop says Converged, or after {@code maxPeriods}.
 */
public final class CalibrationRun {
  /** One period: the client-side sample and the TenantQuota's calibration status at its end. */
  public record Row(int period, TwoTenants.Sample sample, Long limit, Double observed, String state, String message) {
    public double errorPct(double target) {
      return (sample.tOps() / target - 1) * 100;
    }
  }

  private CalibrationRun() {}

  public static List<Row> follow(KubernetesClient k8s, String ns, String name, TwoTenants load, double target,
      double tolerancePct, int periodSeconds, int hold, int maxPeriods, PrintStream out) throws InterruptedException {
    List<Row> rows = new ArrayList<>();
    out.printf(Locale.ROOT, "%-6s %9s %7s %9s %9s %10s %-12s %s%n", "period", "T ops/s", "error", "U ops/s",
        "limit", "observed", "state", "T latency ms mean / p99");
    int within = 0;
    boolean converged = false;
    for (int p = 1; p <= maxPeriods && (within < hold || !converged); p++) {
      TwoTenants.Sample s = load.measure(periodSeconds);
      TenantQuota tq = k8s.resources(TenantQuota.class).inNamespace(ns).withName(name).get();
      CalibrationStatus c = tq.getStatus() == null ? null : tq.getStatus().getCalibration();
      Row r = new Row(p, s, c == null ? null : c.getLimit(), c == null ? null : c.getObservedOpsPerSecond(),
          c == null ? "-" : c.getState(), c == null ? "" : c.getMessage());
      rows.add(r);
      converged = "Converged".equals(r.state());
      within = Math.abs(r.errorPct(target)) <= tolerancePct ? within + 1 : 0;
      out.printf(Locale.ROOT, "%-6d %9.0f %+6.1f%% %9.0f %9s %10s %-12s %s%n", p, s.tOps(), r.errorPct(target),
          s.uOps(), r.limit() == null ? "-" : r.limit(),
          r.observed() == null ? "-" : String.format(Locale.ROOT, "%.0f", r.observed()), r.state(), s.tLatencyMs());
    }
    return rows;
  }
}
