package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import java.io.IOException;
import java.util.Map;

/** The operator's only door to an HBase cluster's quotas. One instance per cluster connection. */
public interface QuotaBackend extends AutoCloseable {

  /** Every throttle subject in {@code hbase:quota}, read with one scan. */
  Map<Subject, SubjectQuota> readAll() throws IOException;

  /** The subjects of one user (global, per table, per namespace): used after a user row delete. */
  Map<Subject, SubjectQuota> readUser(String user) throws IOException;

  /** One {@code setQuota} call. */
  void apply(QuotaOp op) throws IOException;

  ClusterInfo describe() throws IOException;

  @Override
  void close();
}
