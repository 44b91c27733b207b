package io.hbaseqos.operator.sync;

import io.hbaseqos.operator.cluster.ClusterState;
import io.hbaseqos.operator.quota.NamespaceLimits;
import io.hbaseqos.operator.quota.NamespaceState;
import java.io.IOException;
import java.util.Optional;

/**
 * Keeps a namespace's table and region maximums on its descriptor. They are not quota-table rows:
 * the namespace listing of the last resync is the snapshot, and the descriptor is read again just
 * before any write (HBase replaces the whole descriptor, so its other settings are carried over).
 */
public final class NamespaceSync {

  public enum Result { UNCHANGED, WRITTEN, DRIFT_CORRECTED, NAMESPACE_MISSING }

  /**
   * @param found the limits HBase held before (null when the namespace is missing)
   * @param state the namespace after the sync, with the counts of the last listing (null when missing)
   */
  public record Outcome(Result result, NamespaceLimits found, NamespaceState state) {}

  private NamespaceSync() {}

  /**
   * Makes HBase hold {@code desired} for {@code namespace}. With {@code settled} (this exact
   * declaration was applied before) and a listing that agrees, nothing is read or written; a
   * difference found then is drift.
   */
  public static Outcome sync(ClusterState cluster, String namespace, NamespaceLimits desired, boolean settled)
      throws IOException {
    Optional<NamespaceState> listed = cluster.namespace(namespace);
    if (settled && listed.isPresent() && listed.get().limits().equals(desired)) {
      return new Outcome(Result.UNCHANGED, desired, listed.get());
    }
    Optional<NamespaceLimits> now = cluster.readNamespaceLimits(namespace);
    if (now.isEmpty()) {
      return new Outcome(Result.NAMESPACE_MISSING, null, null);
    }
    if (now.get().equals(desired)) {
      return new Outcome(Result.UNCHANGED, now.get(), counted(cluster, namespace, desired));
    }
    if (!cluster.writeNamespaceLimits(namespace, desired)) {
      return new Outcome(Result.NAMESPACE_MISSING, null, null);
    }
    return new Outcome(settled ? Result.DRIFT_CORRECTED : Result.WRITTEN, now.get(),
        counted(cluster, namespace, desired));
  }

  /**
   * Removes both maximums (a deletion, or a declaration taken back). Tolerates a namespace that is
   * already gone. True when it wrote.
   */
  public static boolean remove(ClusterState cluster, String namespace) throws IOException {
    Optional<NamespaceLimits> now = cluster.readNamespaceLimits(namespace);
    if (now.isEmpty() || now.get().isNone()) {
      return false;
    }
    return cluster.writeNamespaceLimits(namespace, NamespaceLimits.NONE);
  }

  /** The namespace holding {@code limits}, with the counts of the last listing. */
  private static NamespaceState counted(ClusterState cluster, String namespace, NamespaceLimits limits)
      throws IOException {
    return cluster.namespace(namespace).orElse(NamespaceState.uncounted(namespace)).withLimits(limits);
  }
}
