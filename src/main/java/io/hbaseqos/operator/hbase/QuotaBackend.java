package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import java.io.IOException;
import io.hbaseqos.operator.calibration.CounterReading;
import java.util.Map;
import java.util.Set;

/** The operator's only door to an HBase cluster's quotas. One instance per cluster connection. */
public interface QuotaBackend extends AutoCloseable {

  /** Every throttle subject in {@code hbase:quota}, read with one scan. */
  Map<Subject, SubjectQuota> readAll() throws IOException;

  /** The subjects of one user (global, per table, per namespace): used after a user row delete. */
  Map<Subject, SubjectQuota> readUser(String user) throws IOException;

  /** One {@code setQuota} call. */
  void apply(QuotaOp op) throws IOException;

  ClusterInfo describe() throws IOException;

  /**
   * A user's cumulative counters on each live RegionServer, for calibration.
   *
   * @param ops per-user operation metrics to add up ({@code get}, {@code scanTime}, {@code put}, ...)
   */
  CounterReading userCounters(String user, Set<String> ops) throws IOException;

  @Override
  void close();
}
