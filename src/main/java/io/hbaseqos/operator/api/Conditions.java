package io.hbaseqos.operator.api;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Kubernetes-convention conditions that change only when their status, reason or message changes. */
public final class Conditions {
  public static final String READY = "Ready";
  public static final String CONFLICT = "Conflict";
  public static final String SYNCED = "Synced";
  public static final String REACHABLE = "Reachable";
  public static final String QUOTAS_ENABLED = "QuotasEnabled";
  public static final String REFRESH_PERIOD = "RefreshPeriodMatches";
  public static final String QUOTA_SETTINGS = "QuotaSettingsMatch";
  public static final String BALANCED = "Balanced";
  /** Whether the table and namespace tenants' store files fit the block cache the topology plan gives. */
  public static final String BLOCK_CACHE_FITS = "BlockCacheFits";
  public static final String REGIONSERVERS_READY = "RegionServersReady";
  public static final String PAUSED = "ReconciliationPaused";
  public static final String CALIBRATED = "Calibrated";
  /** A protected tenant: True while every latency objective is met. */
  public static final String LATENCY_MET = "LatencyObjectivesMet";
  /** A sheddable tenant: True while its limit is below its ceiling for a tenant of higher priority. */
  public static final String SHED = "Shed";
  /** True while HBase enforces a TenantQuota's space violation policy. */
  public static final String SPACE_VIOLATED = "SpaceQuotaViolated";
  public static final String UNMANAGED_REMOVAL = "UnmanagedRemoval";
  public static final String QUOTA_TABLE_HEALTHY = "QuotaTableHealthy";
  public static final String THROTTLE_POLICY = "ThrottlePolicyApplied";

  private Conditions() {}

  /** Sets a condition; keeps lastTransitionTime unless the status flips. */
  public static void set(ConditionedStatus st, String type, boolean status, String reason, String message,
      Long generation, Instant now) {
    set(st, type, status ? "True" : "False", reason, message, generation, now);
  }

  /** As {@link #set(ConditionedStatus, String, boolean, String, String, Long, Instant)}, for True, False or Unknown. */
  public static void set(ConditionedStatus st, String type, String s, String reason, String message,
      Long generation, Instant now) {
    List<Condition> list = st.getConditions() == null ? new ArrayList<>() : new ArrayList<>(st.getConditions());
    Condition old = list.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
    if (old != null && s.equals(old.getStatus()) && Objects.equals(reason, old.getReason())
        && Objects.equals(message, old.getMessage()) && Objects.equals(generation, old.getObservedGeneration())) {
      return;
    }
    String transition = old != null && s.equals(old.getStatus()) ? old.getLastTransitionTime() : now.toString();
    Condition c = new ConditionBuilder().withType(type).withStatus(s).withReason(reason).withMessage(message)
        .withObservedGeneration(generation).withLastTransitionTime(transition).build();
    if (old != null) {
      list.set(list.indexOf(old), c);
    } else {
      list.add(c);
    }
    st.setConditions(list);
  }

  public static void remove(ConditionedStatus st, String type) {
    if (st.getConditions() != null && st.getConditions().stream().anyMatch(c -> type.equals(c.getType()))) {
      List<Condition> list = new ArrayList<>(st.getConditions());
      list.removeIf(c -> type.equals(c.getType()));
      st.setConditions(list);
    }
  }

  public static boolean isTrue(ConditionedStatus st, String type) {
    return st != null && st.condition(type).map(c -> "True".equals(c.getStatus())).orElse(false);
  }

  public static String reason(ConditionedStatus st, String type) {
    return st == null ? null : st.condition(type).map(Condition::getReason).orElse(null);
  }
}
