package io.hbaseqos.operator.sync;

import io.hbaseqos.operator.cluster.ClusterState;
import io.hbaseqos.operator.quota.RegionServerPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The one place that writes the cluster-wide throttle policy (RegionServer throttles, exceed-throttle,
 * the RPC throttle switch), with the drift rule {@link QuotaSync} applies to a tenant: a difference
 * found while the caller had seen HBase hold exactly the desired policy is drift, any other is a write.
 * The policy is read from HBase before each sync (it is small, and not in the quota table's
 * snapshot), and written in the order {@link RegionServerPolicy#plan} gives, which never passes
 * through a state HBase refuses.
 */
public final class PolicySync {
  private PolicySync() {}

  /**
   * @param found what HBase held before
   * @param now what it holds after
   * @param written the changes made, in order
   */
  public record Outcome(QuotaSync.Result result, RegionServerPolicy found, RegionServerPolicy now,
      List<RegionServerPolicy.Op> written) {}

  /**
   * Brings HBase to the desired policy.
   *
   * @param settled the caller had seen HBase hold exactly {@code desired}: a difference now is drift
   */
  public static Outcome sync(ClusterState cluster, RegionServerPolicy desired, boolean settled) throws IOException {
    RegionServerPolicy found = cluster.readRegionServerPolicy();
    List<RegionServerPolicy.Op> ops = RegionServerPolicy.plan(desired, found);
    RegionServerPolicy now = found;
    List<RegionServerPolicy.Op> written = new ArrayList<>();
    for (RegionServerPolicy.Op op : ops) {
      cluster.apply(op);
      now = now.after(op);
      written.add(op);
    }
    QuotaSync.Result result = written.isEmpty() ? QuotaSync.Result.UNCHANGED
        : settled ? QuotaSync.Result.DRIFT_CORRECTED : QuotaSync.Result.WRITTEN;
    return new Outcome(result, found, now, List.copyOf(written));
  }
}
