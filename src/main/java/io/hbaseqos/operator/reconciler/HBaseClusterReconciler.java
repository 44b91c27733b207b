package io.hbaseqos.operator.reconciler;

import io.hbaseqos.operator.api.AppliedThrottle;
import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.api.DesiredQuotas;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.HBaseClusterStatus;
import io.hbaseqos.operator.api.QuotaSettingsSpec;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.cluster.ClusterState;
import io.hbaseqos.operator.cluster.QuotaSettingsCheck;
import io.hbaseqos.operator.cluster.RefreshPeriodCheck;
import io.hbaseqos.operator.hbase.ClusterInfo;
import io.hbaseqos.operator.hbase.ServerSettings;
import io.hbaseqos.operator.limit.Decision;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.ownership.Ownership;
import io.hbaseqos.operator.quota.Durations;
import io.hbaseqos.operator.quota.RegionServerPolicy;
import io.hbaseqos.operator.quota.RuntimeSetting;
import io.hbaseqos.operator.sync.PolicySync;
import io.hbaseqos.operator.sync.Resync;
import io.hbaseqos.operator.topology.TopologyManager;
import io.hbaseqos.operator.topology.TopologyPolicy;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Connects each HBaseCluster ({@link ClusterConnections}), schedules its {@link Resync} loop, runs
 * its topology, and reports what the loop learned: reachability, version, RegionServers, whether
 * quotas and RPC throttling are on, how many quotas are managed, and the quota table's housekeeping.
 */
@ControllerConfiguration(name = HBaseClusterReconciler.NAME)
public class HBaseClusterReconciler implements Reconciler<HBaseCluster>, Cleaner<HBaseCluster> {
  public static final String NAME = "hbasecluster";

  private final ClusterConnections connections;
  private final Ownership ownership;
  private final Resync resync;
  private final Triggers triggers;
  private final EventRecorder events;
  private final OperatorMetrics metrics;
  private final Clock clock;

  /** @param topologyPolicy where the platform lets clusters run pods, and with which volumes */
  @Inject
  public HBaseClusterReconciler(ClusterConnections connections, Ownership ownership, Resync resync, Triggers triggers,
      EventRecorder events, OperatorMetrics metrics, Clock clock, TopologyPolicy topologyPolicy) {
    this.topologyPolicy = topologyPolicy;
    this.connections = connections;
    this.ownership = ownership;
    this.resync = resync;
    this.triggers = triggers;
    this.events = events;
    this.metrics = metrics;
    this.clock = clock;
  }

  private TopologyManager topology;
  private final TopologyPolicy topologyPolicy;

  @Override
  public List<EventSource<?, HBaseCluster>> prepareEventSources(EventSourceContext<HBaseCluster> context) {
    ResourceTrigger<HBaseCluster> trigger = new ResourceTrigger<>("hbasecluster-trigger");
    triggers.bindClusters(trigger);
    topology = new TopologyManager(context, topologyPolicy.namespaces());
    List<EventSource<?, HBaseCluster>> sources = new ArrayList<>(List.of(trigger));
    sources.addAll(topology.eventSources());
    return sources;
  }

  @Override
  public UpdateControl<HBaseCluster> reconcile(HBaseCluster hc, Context<HBaseCluster> context) {
    UpdateControl<HBaseCluster> done;
    try {
      done = reconcileOnce(hc, context);
    } catch (RuntimeException e) {
      // the framework retries on the wall clock; the operator's own timer retries as well (see Wakeups)
      triggers.clusterFailed(ClusterConnections.key(hc), hc.getMetadata().getUid());
      throw e;
    }
    triggers.clusterSucceeded(hc.getMetadata().getUid());
    return done;
  }

  private UpdateControl<HBaseCluster> reconcileOnce(HBaseCluster hc, Context<HBaseCluster> context) {
    boolean written = Statuses.current(hc) != null;
    StatusAggregator<HBaseClusterStatus> status = new StatusAggregator<>(hc, HBaseClusterStatus.class,
        HBaseClusterStatus::new, events, clock.instant());
    HBaseClusterStatus old = status.old;
    HBaseClusterStatus st = status.st;
    Long gen = status.gen;

    List<String> errors = validate(hc, topologyPolicy);
    if (errors.isEmpty() && hc.getSpec().getTopology() != null) {
      try {
        TopologyManager.Outcome topo = topology.reconcile(hc, context);
        errors.addAll(topo.plan().errors());
        TopologyStatuses.report(hc, status, topo, ownership);
      } catch (IllegalArgumentException e) {
        errors.add("spec.topology: " + e.getMessage());
      }
    } else if (hc.getSpec() != null && hc.getSpec().getTopology() == null && old.getTopology() != null) {
      TopologyStatuses.clear(status);
    }
    if (!errors.isEmpty()) {
      String msg = String.join("; ", errors);
      if (status.setNotingReason(Conditions.READY, false, "InvalidSpec", msg, Decision.Note.warning("InvalidSpec", msg))) {
        metrics.invalidResource("HBaseCluster");
      }
      if (hc.getSpec() != null && hc.getSpec().getConnection() != null
          && hc.getSpec().getConnection().getZookeeperQuorum() != null) {
        // the tenants' quotas are still kept: drift corrected, usage read; nothing removed as unmanaged
        connections.stateFor(hc);
        resync.scheduleRetaining(hc);
        if (status.reasonWas(Conditions.UNMANAGED_REMOVAL) != null) {
          status.set(Conditions.UNMANAGED_REMOVAL, false, "SpecRefused",
              "unmanaged quotas are not removed while the spec is refused (see Ready)");
        }
      }
      return finish(context, status);
    }
    ClusterState state = connections.stateFor(hc);
    resync.schedule(hc);
    String key = state.id();
    if (!state.isAvailable()) {
      status.setNotingReason(Conditions.REACHABLE, false, "Unreachable", state.lastError(),
          Decision.Note.warning("Unreachable", state.lastError() + ": " + state.lastErrorDetail()));
      status.set(Conditions.READY, false, "Unreachable", state.lastError());
      return finish(context, status);
    }
    if (resync.report(key).isEmpty() && written && Objects.equals(old.getObservedGeneration(), gen)) {
      // started (or connected) again and not resynced yet: nothing observed since the status was
      // written, so it stands; the resync asks for a reconcile when it has looked
      return UpdateControl.noUpdate();
    }
    ClusterInfo info = state.info();
    if (info == null) {
      status.set(Conditions.READY, false, "Connecting", "waiting for the first resync of the cluster");
      return finish(context, status);
    }
    status.setNotingReason(Conditions.REACHABLE, true, "Connected", "HBase " + info.version() + " answers",
        Decision.Note.normal("Reachable", "connected to HBase " + info.version() + " with " + info.regionServers()
            + " RegionServer(s)"));
    String moved = state.moved();
    if (moved != null) {
      // status keeps naming the HBase it manages; nothing is written anywhere until this is resolved
      status.setNotingMessage(Conditions.READY, false, "ConnectionMoved", moved,
          Decision.Note.warning("ConnectionMoved", moved));
      return finish(context, status);
    }
    st.setHbaseVersion(info.version());
    st.setClusterId(info.clusterId());
    st.setRegionServers(info.regionServers());
    st.setRpcThrottleEnabled(info.rpcThrottleEnabled());
    st.setQuotasEnabled(info.quotasEnabled());
    st.setBlockCache(io.hbaseqos.operator.usage.CacheReport.next(state.blockCache(), st.getBlockCache()));
    Resync.Report report = resync.report(key).orElse(null);
    if (report != null) {
      st.setManagedQuotas(report.managed());
      st.setUnmanagedQuotas(report.unmanaged());
      reportHousekeeping(hc, status, report);
    }
    boolean expectQuotas = hc.getSpec().getQuotas() == null || !Boolean.FALSE.equals(hc.getSpec().getQuotas().getEnabled());
    if (expectQuotas && !info.quotasEnabled()) {
      String msg = "the cluster has no hbase:quota table: set hbase.quota.enabled=true on the master and every "
          + "RegionServer, then restart them; throttles cannot be set until then";
      status.set(Conditions.QUOTAS_ENABLED, false, "QuotasDisabled", msg);
      status.setNotingReason(Conditions.READY, false, "QuotasDisabled", msg, Decision.Note.warning("QuotasDisabled", msg));
      return finish(context, status);
    }
    status.set(Conditions.QUOTAS_ENABLED, info.quotasEnabled(), info.quotasEnabled() ? "Enabled" : "Disabled",
        info.quotasEnabled() ? "hbase:quota exists" : "quotas are off, as declared");
    if (info.quotasEnabled() && info.permissionProblem() != null) {
      String msg = io.hbaseqos.operator.quota.HBaseRefusals.explain(info.permissionProblem());
      status.setNotingMessage(Conditions.READY, false, "PermissionDenied", msg,
          Decision.Note.warning("PermissionDenied", msg));
      return finish(context, status);
    }
    if (info.quotasEnabled()) {
      Map<String, ServerSettings> servers = connections.gatewayFor(state).serverSettings();
      int mismatches = checkRefreshPeriod(hc, status, servers, info.version())
          + checkQuotaSettings(hc, status, servers, info.version());
      metrics.quotaSettingMismatches(key, mismatches);
      String refused = applyThrottlePolicy(hc, status, state);
      if (refused != null) {
        status.set(Conditions.READY, false, "ThrottlePolicyRefused", refused);
        return finish(context, status);
      }
    }
    String msg = Boolean.TRUE.equals(info.rpcThrottleEnabled()) ? "quotas are managed"
        : "quotas are managed, but RPC throttling is switched off in HBase (switch_rpc_throttle): limits are stored, not enforced";
    status.set(Conditions.READY, true, Boolean.TRUE.equals(info.rpcThrottleEnabled()) ? "Ready" : "ThrottlingDisabled",
        msg);
    return finish(context, status);
  }

  /**
   * The refresh period the RegionServers run with, against the declared one: a condition (True,
   * False with the servers and values, Unknown when /conf cannot be read), the observed value in
   * status, and a Warning event when it turns False. Informational: quotas are still managed.
   * Returns 1 on a mismatch, else 0.
   */
  private int checkRefreshPeriod(HBaseCluster hc, StatusAggregator<HBaseClusterStatus> status,
      Map<String, ServerSettings> servers, String version) {
    QuotaSettingsSpec q = hc.getSpec().getQuotas();
    Duration expected = Durations.parse(q == null ? null : q.getRefreshPeriod(), QuotaSettingsSpec.DEFAULT_REFRESH);
    RefreshPeriodCheck.Result r = RefreshPeriodCheck.check(servers, expected, version);
    status.st.setQuotaRefreshPeriod(r.observed());
    switch (r.outcome()) {
      case MATCHES -> status.set(Conditions.REFRESH_PERIOD, "True", "Matches", r.message());
      case UNKNOWN -> status.set(Conditions.REFRESH_PERIOD, "Unknown", "Unreadable", r.message());
      case MISMATCH -> status.setNotingReason(Conditions.REFRESH_PERIOD, "False", "Mismatch", r.message(),
          Decision.Note.warning("RefreshPeriodMismatch", r.message()));
    }
    return r.outcome() == RefreshPeriodCheck.Outcome.MISMATCH ? 1 : 0;
  }

  /**
   * The quota settings the RegionServers run with (rate limiter, default user quotas, override key,
   * read accounting, capacity units), against those {@code spec.quotas} declares: a condition only
   * while some are declared, the mismatching keys in status, a Warning event when it turns False.
   * Informational, like the refresh period: quotas are still managed. Returns how many declared
   * keys differ on some RegionServer or are not read by its release.
   */
  private int checkQuotaSettings(HBaseCluster hc, StatusAggregator<HBaseClusterStatus> status,
      Map<String, ServerSettings> servers, String version) {
    HBaseClusterStatus st = status.st;
    List<RuntimeSetting> declared;
    try {
      declared = DesiredQuotas.runtimeSettings(hc.getSpec().getQuotas());
    } catch (DesiredQuotas.Invalid e) {
      return 0; // validate() has reported it
    }
    Optional<QuotaSettingsCheck.Result> checked = QuotaSettingsCheck.check(servers, declared, version,
        hc.getSpec().getTopology() != null);
    if (checked.isEmpty()) {
      st.setQuotaSettingMismatches(null);
      status.remove(Conditions.QUOTA_SETTINGS);
      return 0;
    }
    QuotaSettingsCheck.Result r = checked.get();
    st.setQuotaSettingMismatches(r.mismatches().isEmpty() ? null : r.mismatches());
    switch (r.outcome()) {
      case MATCHES -> status.set(Conditions.QUOTA_SETTINGS, "True", "Matches", r.message());
      case UNKNOWN -> status.set(Conditions.QUOTA_SETTINGS, "Unknown", "Unreadable", r.message());
      case MISMATCH, UNSUPPORTED -> {
        String reason = r.outcome() == QuotaSettingsCheck.Outcome.MISMATCH ? "Mismatch" : "UnsupportedByHBase";
        status.setNotingReason(Conditions.QUOTA_SETTINGS, "False", reason, r.message(),
            Decision.Note.warning("QuotaSettings" + reason, r.message()));
      }
    }
    return r.mismatches().size();
  }

  /**
   * Makes HBase hold the declared cluster-wide policy (RegionServer throttles, exceed-throttle,
   * RPC throttling) and reports it. Read once per reconcile (after each resync) only when a policy
   * is declared; written only where HBase differs. Returns why HBase refused a change, or null.
   */
  private String applyThrottlePolicy(HBaseCluster hc, StatusAggregator<HBaseClusterStatus> status, ClusterState state) {
    HBaseClusterStatus old = status.old;
    HBaseClusterStatus st = status.st;
    RegionServerPolicy desired;
    try {
      desired = DesiredQuotas.throttlePolicy(hc.getSpec());
    } catch (DesiredQuotas.Invalid e) {
      return null; // validate() has reported it
    }
    boolean dryRun = hc.getSpec().getThrottlePolicy() != null && hc.getSpec().getThrottlePolicy().dryRun();
    resync.sampleAllUsers(ClusterConnections.key(hc), dryRun);
    if (desired.throttles() == null && desired.exceedThrottle() == null && desired.rpcThrottle() == null) {
      st.setRegionServerThrottles(null);
      st.setExceedThrottleEnabled(null);
      st.setThrottlePolicyDryRun(null);
      status.remove(Conditions.THROTTLE_POLICY);
      return null;
    }
    if (dryRun) {
      return throttlePolicyDryRun(status, state, desired);
    }
    st.setThrottlePolicyDryRun(null);
    try {
      // as for a tenant: seen holding exactly this at this generation, a difference now is drift
      boolean settled = status.heldAtThisGeneration(Conditions.THROTTLE_POLICY)
          && (desired.throttles() == null || AppliedThrottle.listOf(desired.throttles()).equals(
              old.getRegionServerThrottles() == null ? List.of() : old.getRegionServerThrottles()))
          && (desired.exceedThrottle() == null || desired.exceedThrottle().equals(old.getExceedThrottleEnabled()))
          && (desired.rpcThrottle() == null || desired.rpcThrottle().equals(old.getRpcThrottleEnabled()));
      PolicySync.Outcome out = PolicySync.sync(state, desired, settled);
      RegionServerPolicy actual = out.now();
      switch (out.result()) {
        case DRIFT_CORRECTED -> {
          metrics.driftCorrected(state.id());
          status.warning("DriftCorrected", "restored the cluster-wide throttle policy to " + desired.describe()
              + " (found " + out.found().describe() + ", changed outside the operator)");
        }
        case WRITTEN -> status.normal("ThrottlePolicyApplied", desired.describe());
        case UNCHANGED -> { }
      }
      for (RegionServerPolicy.Op op : out.written()) {
        if (op instanceof RegionServerPolicy.Op.ClearUnreadable c) {
          status.warning("UnreadableCellCleared", "removed " + c.cell().describe() + ": it was not quota settings, and "
              + "HBase cannot write the declared policy over it");
        }
      }
      showPolicy(st, actual);
      status.set(Conditions.THROTTLE_POLICY, true, "Applied", "HBase holds " + desired.describe()
          + leftUnreadable(actual));
      return null;
    } catch (IOException e) {
      return policyProblem(status, "Refused", "HBase refused the cluster-wide throttle policy: ", e);
    }
  }

  /** The policy's cells that are not settings and stay (their part is not declared), in words; "" when none. */
  private static String leftUnreadable(RegionServerPolicy held) {
    if (held.unreadable().isEmpty()) {
      return "";
    }
    return "; " + held.unreadable().stream().map(c -> c.describe() + " is not quota settings and is left, since the "
        + "spec does not declare that part (to delete it: " + c.shellDelete() + ")")
        .collect(java.util.stream.Collectors.joining("; "));
  }

  /** Status names the cluster-wide policy HBase holds. */
  private static void showPolicy(HBaseClusterStatus st, RegionServerPolicy held) {
    st.setRegionServerThrottles(AppliedThrottle.listOf(held.throttles() == null ? java.util.Map.of() : held.throttles()));
    st.setExceedThrottleEnabled(held.exceedThrottle());
    st.setRpcThrottleEnabled(held.rpcThrottle());
  }

  /** ThrottlePolicyApplied False, with a Warning when the message changes; the message. */
  private static String policyProblem(StatusAggregator<HBaseClusterStatus> status, String reason, String what,
      IOException e) {
    String msg = what + io.hbaseqos.operator.cluster.Errors.rootMessage(e);
    status.setNotingMessage(Conditions.THROTTLE_POLICY, false, reason, msg,
        Decision.Note.warning("ThrottlePolicy" + reason, msg));
    return msg;
  }

  /**
   * throttlePolicy.enforcement DryRun: what HBase holds is read and shown, nothing of the policy is
   * written, and the RegionServer throttles are held against every user's requests together.
   */
  private String throttlePolicyDryRun(StatusAggregator<HBaseClusterStatus> status, ClusterState state,
      RegionServerPolicy desired) {
    try {
      RegionServerPolicy found = state.readRegionServerPolicy();
      List<RegionServerPolicy.Op> ops = RegionServerPolicy.plan(desired, found);
      showPolicy(status.st, found);
      status.st.setThrottlePolicyDryRun(io.hbaseqos.operator.usage.DryRunPrediction.nextForAllUsers(
          desired.throttles() == null ? java.util.Map.of() : desired.throttles(), desired.describe(),
          state.usage(ClusterState.ALL_USERS), status.old.getThrottlePolicyDryRun(), state.now()));
      String msg = "dry run: nothing is written to HBase; " + (ops.isEmpty() ? "HBase holds the policy already"
          : "Enforce would make " + ops.size() + " change(s) for " + desired.describe()) + " (HBase holds "
          + found.describe() + ")" + (found.unreadable().isEmpty() ? "" : "; not quota settings: " + found.unreadable()
              .stream().map(io.hbaseqos.operator.quota.UnreadableCell::describe)
              .collect(java.util.stream.Collectors.joining("; ")));
      status.setNotingMessage(Conditions.THROTTLE_POLICY, false, "DryRun", msg,
          Decision.Note.normal("ThrottlePolicyDryRun", msg));
      return null;
    } catch (IOException e) {
      policyProblem(status, "Unreadable", "could not read the cluster-wide throttle policy: ", e);
      return null; // a read that failed refuses nothing
    }
  }

  /**
   * What the resync's housekeeping found: {@code UnmanagedRemoval} under {@code unmanagedPolicy:
   * Remove} (held until nothing can make a removal wrong), and {@code QuotaTableHealthy} (False when
   * a row that hides others could not be removed, or a removal failed).
   */
  private void reportHousekeeping(HBaseCluster hc, StatusAggregator<HBaseClusterStatus> status, Resync.Report report) {
    boolean remove = hc.getSpec().getQuotas() != null
        && hc.getSpec().getQuotas().getUnmanagedPolicy() == QuotaSettingsSpec.UnmanagedPolicy.Remove;
    if (!remove) {
      status.remove(Conditions.UNMANAGED_REMOVAL);
    } else if (report.removalHeld() != null) {
      String msg = "unmanaged quotas are not removed while " + report.removalHeld();
      status.setNotingReason(Conditions.UNMANAGED_REMOVAL, false, "Held", msg,
          Decision.Note.normal("UnmanagedRemovalHeld", msg));
    } else {
      status.set(Conditions.UNMANAGED_REMOVAL, true, "Active",
          "quotas no TenantQuota claims on this HBase are removed (except unmanagedIgnore and retained ones)");
    }
    if (report.problem() == null && report.unreadable().isEmpty()) {
      status.set(Conditions.QUOTA_TABLE_HEALTHY, true, "Healthy", "every row of hbase:quota holds a setting");
    } else if (report.problem() == null) {
      String msg = unreadableMessage(report, remove);
      status.setNotingMessage(Conditions.QUOTA_TABLE_HEALTHY, false, "UnreadableCells", msg,
          Decision.Note.warning("UnreadableQuotaCells", msg));
    } else {
      status.setNotingMessage(Conditions.QUOTA_TABLE_HEALTHY, false, "Problem", report.problem(),
          Decision.Note.warning("QuotaTableProblem", report.problem()));
    }
  }

  /**
   * The cells of hbase:quota that are not quota settings, named (the first three) with what becomes
   * of them: a claimed subject's is repaired by its tenant, an unclaimed one is removed only under
   * Remove, one naming no subject is left to an admin, with the shell command.
   */
  static String unreadableMessage(Resync.Report report, boolean remove) {
    java.util.List<io.hbaseqos.operator.quota.UnreadableCell> cells = report.unreadable();
    StringBuilder sb = new StringBuilder("hbase:quota holds ").append(cells.size())
        .append(cells.size() == 1 ? " cell" : " cells").append(" that HBase cannot read as quota settings, and ")
        .append("HBase's own quota reads of their rows fail: ");
    sb.append(cells.stream().limit(3).map(io.hbaseqos.operator.quota.UnreadableCell::describe)
        .collect(java.util.stream.Collectors.joining("; ")));
    if (cells.size() > 3) {
      sb.append("; and ").append(cells.size() - 3).append(" more");
    }
    sb.append(". A TenantQuota's own cell is deleted and rewritten by its reconcile; ")
        .append(remove ? "an unclaimed one is removed (unmanagedPolicy Remove)"
            : "an unclaimed one is left alone under unmanagedPolicy Retain")
        .append(". To delete one by hand: ").append(cells.get(0).shellDelete());
    return sb.toString();
  }

  static List<String> validate(HBaseCluster hc, TopologyPolicy topologyPolicy) {
    List<String> errors = new ArrayList<>();
    if (hc.getSpec() == null || hc.getSpec().getConnection() == null
        || hc.getSpec().getConnection().getZookeeperQuorum() == null) {
      errors.add("spec.connection.zookeeperQuorum: is required");
      return errors;
    }
    errors.addAll(io.hbaseqos.operator.hbase.ClientConfigKeys.refusals(hc.getSpec().getConnection().getClientConfig()));
    try {
      DesiredQuotas.throttlePolicy(hc.getSpec());
    } catch (DesiredQuotas.Invalid e) {
      errors.add(e.getMessage());
    }
    try {
      DesiredQuotas.runtimeSettings(hc.getSpec().getQuotas());
    } catch (DesiredQuotas.Invalid e) {
      errors.add(e.getMessage());
    }
    QuotaSettingsSpec q = hc.getSpec().getQuotas();
    if (q != null) {
      duration(errors, "spec.quotas.resyncPeriod", q.getResyncPeriod(), Duration.ofSeconds(1));
      duration(errors, "spec.quotas.refreshPeriod", q.getRefreshPeriod(), Duration.ofMillis(1));
      patterns(errors, "spec.quotas.unmanagedIgnore", q.getUnmanagedIgnore());
      patterns(errors, "spec.quotas.unmanagedInclude", q.getUnmanagedInclude());
    }
    errors.addAll(io.hbaseqos.operator.topology.TopologyChecks.refusals(hc.getSpec().getTopology()));
    errors.addAll(topologyPolicy.refusals(hc.getMetadata().getNamespace(), hc.getSpec().getTopology()));
    return errors;
  }

  /** RE2 patterns of at most {@link QuotaSettingsSpec#UNMANAGED_IGNORE_SIZE} characters. */
  private static void patterns(List<String> errors, String field, List<String> patterns) {
    List<String> list = patterns == null ? List.of() : patterns;
    for (int i = 0; i < list.size(); i++) {
      String f = field + "[" + i + "]";
      if (list.get(i) == null || list.get(i).length() > QuotaSettingsSpec.UNMANAGED_IGNORE_SIZE) {
        errors.add(f + ": at most " + QuotaSettingsSpec.UNMANAGED_IGNORE_SIZE + " characters");
        continue;
      }
      try {
        com.google.re2j.Pattern.compile(list.get(i));
      } catch (com.google.re2j.PatternSyntaxException e) {
        errors.add(f + ": not a regular expression in RE2 syntax: " + e.getDescription());
      }
    }
  }

  private static void duration(List<String> errors, String field, String value, Duration min) {
    try {
      Duration d = Durations.parse(value, min);
      if (d.compareTo(min) < 0) {
        errors.add(field + ": must be at least " + min.toMillis() + "ms");
      } else if (d.compareTo(Duration.ofHours(24)) > 0) {
        errors.add(field + ": must be at most 24h");
      }
    } catch (IllegalArgumentException e) {
      errors.add(field + ": " + e.getMessage());
    }
  }

  private UpdateControl<HBaseCluster> finish(Context<HBaseCluster> context, StatusAggregator<HBaseClusterStatus> status) {
    status.write(context.getClient(), connections.fence());
    return UpdateControl.noUpdate();
  }

  @Override
  public DeleteControl cleanup(HBaseCluster hc, Context<HBaseCluster> context) {
    String key = ClusterConnections.key(hc);
    int remaining = ownership.tenantsOf(key).size();
    if (remaining > 0) {
      events.normal(hc, "WaitingForTenants", remaining + " TenantQuota(s) still reference this cluster; "
          + "it is removed once their throttles are cleaned up");
      // the operator's own timer, on the monotonic clock; the framework's as well (see Wakeups)
      triggers.reconcileClusterAfter(key, hc.getMetadata().getUid(), java.time.Duration.ofSeconds(5));
      return DeleteControl.noFinalizerRemoval().rescheduleAfter(5_000);
    }
    triggers.reconcileClusterAfter(key, hc.getMetadata().getUid(), null);
    resync.cancel(key);
    connections.remove(key);
    return DeleteControl.defaultDelete();
  }
}
