package io.hbaseqos.operator.ownership;

import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.quota.Subject;
import java.util.Collection;
import java.util.Set;

/**
 * Subjects whose quotas stay in HBase on purpose: a TenantQuota with {@code deletionPolicy:
 * Retain} was deleted. Remembered outside the operator's memory (it must survive restarts), so that
 * {@code unmanagedPolicy: Remove} never removes what a user asked to keep. A new TenantQuota for
 * the subject takes it over; its own deletion decides again.
 */
public interface RetainedSubjects {

  /** Records a retained subject; must be durable before the TenantQuota's finalizer goes. */
  void retain(HBaseCluster cluster, Subject subject);

  /** Forgets a subject (its quotas were removed). */
  void forget(HBaseCluster cluster, Subject subject);

  /** The subjects retained by any of these clusters. */
  Set<Subject> retained(Collection<HBaseCluster> clusters);
}
