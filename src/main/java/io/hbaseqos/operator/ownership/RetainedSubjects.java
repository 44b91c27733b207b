package io.hbaseqos.operator.ownership;

import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.quota.Subject;
import java.util.Collection;
import java.util.Set;

/**
 * Subjects whose quotas stay in HBase on purpose: a TenantQuota with {@code deletionPolicy:
 * Retain} was deleted. Remembered outside the operator's memory (it must survive restarts), and
 * outside the namespaces of the tenant and of the HBaseCluster (it must survive their deletion),
 * keyed by the HBase they are in, so that {@code unmanagedPolicy: Remove} of any HBaseCluster on
 * that HBase never removes what a user asked to keep. A new TenantQuota for the subject takes it
 * over; its own deletion decides again.
 */
public interface RetainedSubjects {

  /**
   * Records a retained subject; must be durable before the TenantQuota's finalizer goes.
   *
   * @param hbase the identity of the HBase (its cluster id), or null while it was never reached
   * @param cluster the HBaseCluster the tenant referenced
   */
  void retain(String hbase, HBaseCluster cluster, Subject subject);

  /** Forgets a subject (its quotas were removed). */
  void forget(String hbase, HBaseCluster cluster, Subject subject);

  /** The subjects retained on these HBases, or by any of these clusters. */
  Set<Subject> retained(Collection<String> hbases, Collection<HBaseCluster> clusters);
}
