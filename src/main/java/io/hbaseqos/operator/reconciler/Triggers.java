package io.hbaseqos.operator.reconciler;

import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.ownership.Ownership;
import io.hbaseqos.operator.sync.Resync;
import io.javaoperatorsdk.operator.processing.event.ResourceID;

/**
 * How the resync loops reach the reconcilers: they ask for a reconcile through each controller's
 * {@link ResourceTrigger}, and report on the HBaseCluster with an event.
 */
public final class Triggers implements Resync.Listener, AutoCloseable {
  private final EventRecorder events;
  private final Ownership ownership;
  private volatile ResourceTrigger<TenantQuota> tenants;
  private volatile ResourceTrigger<HBaseCluster> clusters;
  /** Reconciles asked for later, on the monotonic clock (see {@link Wakeups}). */
  private final Wakeups later = new Wakeups();

  public Triggers(EventRecorder events, Ownership ownership) {
    this.events = events;
    this.ownership = ownership;
  }

  void bindTenants(ResourceTrigger<TenantQuota> trigger) {
    this.tenants = trigger;
  }

  void bindClusters(ResourceTrigger<HBaseCluster> trigger) {
    this.clusters = trigger;
  }

  @Override
  public void reconcileTenant(TenantQuota tq) {
    ResourceTrigger<TenantQuota> t = tenants;
    if (t != null) {
      t.trigger(tq);
    }
  }

  /**
   * What wakes a TenantQuota whose metric reading is being taken: a reconcile of it. Equal for the
   * same TenantQuota, so a reading wakes each asker once.
   */
  Runnable wake(TenantQuota tq) {
    return new Wake(this, ResourceID.fromResource(tq));
  }

  /** Reconciles the TenantQuota after {@code delay} (null: cancels what was asked before), on the monotonic clock. */
  void reconcileAfter(TenantQuota tq, java.time.Duration delay) {
    later.after("tq/" + tq.getMetadata().getUid(), delay, wake(tq));
  }

  /**
   * A reconcile of the TenantQuota failed with an exception: it runs again on the monotonic clock,
   * later after each failure in a row (see {@link Wakeups#afterFailure}).
   */
  void tenantFailed(TenantQuota tq) {
    String key = "tq/" + tq.getMetadata().getUid();
    later.after(key, later.failed(key), wake(tq));
  }

  /** A reconcile of the TenantQuota succeeded: its failures in a row are forgotten. */
  void tenantSucceeded(TenantQuota tq) {
    later.succeeded("tq/" + tq.getMetadata().getUid());
  }

  /** A reconcile of the HBaseCluster failed with an exception: as {@link #tenantFailed}. */
  void clusterFailed(String key, String uid) {
    String k = "hc/" + uid;
    later.after(k, later.failed(k), () -> reconcileCluster(key));
  }

  /** A reconcile of the HBaseCluster succeeded: the wake its failures asked for is dropped, with their count. */
  void clusterSucceeded(String uid) {
    if (later.succeeded("hc/" + uid)) {
      later.cancel("hc/" + uid);
    }
  }

  /** Reconciles the HBaseCluster {@code key} after {@code delay} (null: cancels), on the monotonic clock. */
  void reconcileClusterAfter(String key, String uid, java.time.Duration delay) {
    later.after("hc/" + uid, delay, () -> reconcileCluster(key));
  }

  private record Wake(Triggers triggers, ResourceID id) implements Runnable {
    @Override
    public void run() {
      ResourceTrigger<TenantQuota> t = triggers.tenants;
      if (t != null) {
        t.trigger(id);
      }
    }
  }

  @Override
  public void reconcileCluster(String key) {
    ResourceTrigger<HBaseCluster> t = clusters;
    if (t != null) {
      int i = key.indexOf('/');
      t.trigger(new ResourceID(key.substring(i + 1), key.substring(0, i)));
    }
  }

  /** Stops the timer of the wakes asked for later. */
  @Override
  public void close() {
    later.close();
  }

  @Override
  public void clusterEvent(String key, boolean warning, String reason, String message) {
    ownership.cluster(key).ifPresent(hc -> {
      if (warning) {
        events.warning(hc, reason, message);
      } else {
        events.normal(hc, reason, message);
      }
    });
  }
}
