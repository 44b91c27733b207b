package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.NamespaceLimits;
import io.hbaseqos.operator.quota.NamespaceState;
import io.hbaseqos.operator.quota.RegionServerPolicy;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.SpaceUsage;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * The operator's only door to an HBase cluster's quotas. One instance per cluster connection.
 * Reads are raw reads of {@code hbase:quota}: every cell is read for itself, so a row holding no
 * setting never hides the rows after it (HBase's own {@code QuotaRetriever} stops there), and a
 * user's own cell reports whether it stores a bypass ({@link SubjectQuota#bypassStored()}).
 */
public interface QuotaBackend extends AutoCloseable {

  /**
   * Every throttle subject in {@code hbase:quota} (empty and unreadable cells included), read with
   * one scan; a cell that is not quota settings never fails the scan.
   */
  QuotaTableScan readAll() throws IOException;

  /** Every cell of one user's row: the user's own settings, per table and per namespace. */
  Map<Subject, SubjectQuota> readUser(String user) throws IOException;

  /** One subject's settings as HBase holds them now ({@link SubjectQuota#empty} if none). */
  SubjectQuota read(Subject subject) throws IOException;

  /** One write: a {@code setQuota} call, or the conditional delete of an empty or unreadable cell. */
  void apply(QuotaOp op) throws IOException;

  /**
   * Every space quota's usage as HBase's master last computed it (tables and namespaces), in one
   * call. Empty when no space quota exists or the master computes none ({@code hbase.quota.enabled}
   * false).
   */
  Map<Subject, SpaceUsage> spaceUsage() throws IOException;

  /**
   * Every namespace with the table and region maximums on its descriptor, its tables and its
   * regions online: one namespace listing and one table listing; the regions are counted from
   * {@code info}, the cluster's last {@link #describe()}.
   */
  Map<String, NamespaceState> namespaces(ClusterInfo info) throws IOException;

  /** The limits on one namespace's descriptor, read now; empty when the namespace does not exist. */
  java.util.Optional<NamespaceLimits> namespaceLimits(String namespace) throws IOException;

  /**
   * Sets (or removes, where null) both maximums on a namespace's descriptor, keeping its other
   * settings: the descriptor is read, changed and written back. False when the namespace does not
   * exist.
   */
  boolean setNamespaceLimits(String namespace, NamespaceLimits limits) throws IOException;

  /**
   * The cluster-wide policy as HBase holds it: the RegionServer throttles ({@code r.all} row),
   * the exceed-throttle switch ({@code exceedThrottleQuota} row) and the RPC throttle switch.
   */
  RegionServerPolicy readRegionServerPolicy() throws IOException;

  /** One change to the cluster-wide policy. */
  void apply(RegionServerPolicy.Op op) throws IOException;

  ClusterInfo describe() throws IOException;

  /**
   * Whether a table exists, and when its oldest region now online was created (HBase's region id is
   * its creation time, in ms): a table dropped and created again has only regions newer than that.
   *
   * @param created null when the table does not exist
   */
  record TableState(boolean exists, Long created) {}

  /** One table's state, read now: one existence check and, if it exists, one region listing. */
  TableState table(String table) throws IOException;

  /**
   * How long a write whose call was abandoned may still land in HBase: the client keeps retrying
   * it for up to its operation timeout after the operator stopped waiting.
   */
  Duration writeSettleTime();

  @Override
  void close();
}
