package io.hbaseqos.operator.sync;

import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.api.DesiredQuotas;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.QuotaSettingsSpec;
import io.hbaseqos.operator.api.SpaceStatus;
import io.hbaseqos.operator.api.NamespaceStatus;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.usage.UsageReport;
import io.hbaseqos.operator.cluster.ClusterConnections;
import io.hbaseqos.operator.cluster.ClusterState;
import io.hbaseqos.operator.cluster.Errors;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.ownership.Ownership;
import io.hbaseqos.operator.ownership.RetainedSubjects;
import io.hbaseqos.operator.gateway.MetricsPendingException;
import io.hbaseqos.operator.hbase.CacheCounters;
import io.hbaseqos.operator.hbase.ServersSample;
import io.hbaseqos.operator.hbase.TenantCounters;
import io.hbaseqos.operator.quota.Durations;
import io.hbaseqos.operator.quota.HBaseVersion;
import io.hbaseqos.operator.usage.CacheCounts;
import io.hbaseqos.operator.usage.Counts;
import io.hbaseqos.operator.quota.NamespaceState;
import io.hbaseqos.operator.quota.QuotaDiff;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import com.google.re2j.Pattern;
import org.jboss.logging.Logger;

/**
 * One resync loop per HBaseCluster: every resync period it reads {@code hbase:quota} once,
 * compares it with that cluster's TenantQuotas in the informer cache and asks for a reconcile only
 * of those that differ, removes rows that would hide others from HBase's own scanner, and, under
 * {@code unmanagedPolicy: Remove}, removes what no TenantQuota claims once nothing can make that
 * decision wrong. It also reads every space quota's usage from the master in one call, and
 * reconciles the tenants whose usage reads differently. An idle resync costs one scan and one
 * usage read, and writes nothing.
 */
public final class Resync implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Resync.class);
  static final Duration DEFAULT_PERIOD = Duration.ofSeconds(60);

  /** How the resync reaches the reconcilers and reports: a small port, implemented outside this package. */
  public interface Listener {
    void reconcileTenant(TenantQuota tq);

    void reconcileCluster(String clusterKey);

    /** An event on the HBaseCluster resource. */
    void clusterEvent(String clusterKey, boolean warning, String reason, String message);
  }

  /** Settings the resync loop takes from the HBaseCluster spec. */
  /**
   * @param ignore quotas Remove never takes
   * @param include when not empty, the only quotas Remove takes
   */
  public record Policy(Duration period, QuotaSettingsSpec.UnmanagedPolicy unmanaged, List<Pattern> ignore,
      List<Pattern> include) {
    public Policy(Duration period, QuotaSettingsSpec.UnmanagedPolicy unmanaged, List<Pattern> ignore) {
      this(period, unmanaged, ignore, List.of());
    }

    public static Policy of(QuotaSettingsSpec q) {
      QuotaSettingsSpec s = q == null ? new QuotaSettingsSpec() : q;
      return new Policy(Durations.parse(s.getResyncPeriod(), DEFAULT_PERIOD),
          s.getUnmanagedPolicy() == null ? QuotaSettingsSpec.UnmanagedPolicy.Retain : s.getUnmanagedPolicy(),
          compile(s.getUnmanagedIgnore()), compile(s.getUnmanagedInclude()));
    }

    private static List<Pattern> compile(List<String> patterns) {
      return patterns == null ? List.of() : patterns.stream().map(Pattern::compile).toList();
    }

    /** Whether Remove may take the quota of {@code rendered} (a subject as unmanagedIgnore sees it). */
    public boolean removable(String rendered) {
      return ignore.stream().noneMatch(p -> p.matcher(rendered).find())
          && (include.isEmpty() || include.stream().anyMatch(p -> p.matcher(rendered).find()));
    }
  }

  /**
   * What the last resync found, for the HBaseCluster's status.
   *
   * @param removalHeld under unmanagedPolicy Remove: why nothing was removed (null when removal ran)
   * @param problem an empty row HBase refused to have removed, or a removal that failed
   * @param unreadable cells of hbase:quota that are not quota settings, still there after this pass:
   *     a claimed subject's is repaired by its tenant's reconcile, an unclaimed one is removed only
   *     under unmanagedPolicy Remove, one that names no subject is never touched
   */
  public record Report(int managed, int unmanaged, String removalHeld, String problem,
      List<io.hbaseqos.operator.quota.UnreadableCell> unreadable) {
    public Report {
      unreadable = List.copyOf(unreadable);
    }

    public Report(int managed, int unmanaged, String removalHeld, String problem) {
      this(managed, unmanaged, removalHeld, problem, List.of());
    }
  }

  private final ClusterConnections connections;
  private final Ownership ownership;
  private final QuotaSync sync;
  private final RetainedSubjects retained;
  private final OperatorMetrics metrics;
  private volatile Listener listener;

  private record Loop(Duration period, ScheduledFuture<?> future) {}

  private final Map<String, Loop> loops = new ConcurrentHashMap<>();
  private final Map<String, Policy> policies = new ConcurrentHashMap<>();
  private final Map<String, Report> reports = new ConcurrentHashMap<>();
  private final Set<String> running = ConcurrentHashMap.newKeySet();
  private final java.util.function.Predicate<String> clusterExists;
  private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(1, r -> {
    Thread t = new Thread(r, "hbaseqos-resync-timer");
    t.setDaemon(true);
    return t;
  });
  /** Resyncs run here, at most one per cluster at a time, so a slow cluster never delays another. */
  private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "hbaseqos-resync");
    t.setDaemon(true);
    return t;
  });

  /**
   * @param clusterExists whether the API server holds the HBaseCluster of a key (asked only when the
   *     informer no longer lists it; an error must answer true)
   */
  public Resync(ClusterConnections connections, Ownership ownership, QuotaSync sync, RetainedSubjects retained,
      OperatorMetrics metrics, java.util.function.Predicate<String> clusterExists) {
    this.clusterExists = clusterExists;
    this.connections = connections;
    this.ownership = ownership;
    this.sync = sync;
    this.retained = retained;
    this.metrics = metrics;
  }

  public void bind(Listener listener) {
    this.listener = listener;
  }

  /** Clusters whose RegionServers are sampled for all users together (a dry run of their throttle policy). */
  private final Set<String> sampleAllUsers = ConcurrentHashMap.newKeySet();

  /** Whether the cluster's samples also track every user's requests together ({@link ClusterState#ALL_USERS}). */
  public void sampleAllUsers(String key, boolean on) {
    if (on) {
      sampleAllUsers.add(key);
    } else {
      sampleAllUsers.remove(key);
    }
  }

  /** Starts or updates the resync loop of a cluster (the first resync runs at once). */
  public void schedule(HBaseCluster hc) {
    schedule(ClusterConnections.key(hc), Policy.of(hc.getSpec().getQuotas()));
  }

  /**
   * Keeps the cluster's resync going while its spec cannot be taken whole (a field the operator
   * refuses, or a topology it cannot plan): tenants' drift is still corrected and space usage still
   * read, but nothing is removed as unmanaged, whatever an earlier spec said, until the spec is valid
   * again. The period is the declared one if it can be read, else the one in force (60 s at first).
   */
  public void scheduleRetaining(HBaseCluster hc) {
    String key = ClusterConnections.key(hc);
    Policy before = policies.get(key);
    Duration period = before == null ? DEFAULT_PERIOD : before.period();
    QuotaSettingsSpec q = hc.getSpec().getQuotas();
    try {
      Duration declared = Durations.parse(q == null ? null : q.getResyncPeriod(), DEFAULT_PERIOD);
      if (declared.compareTo(Duration.ofSeconds(1)) >= 0) {
        period = declared;
      }
    } catch (IllegalArgumentException e) {
      // the period is the field refused: the one in force stays
    }
    schedule(key, new Policy(period, QuotaSettingsSpec.UnmanagedPolicy.Retain, List.of()));
  }

  private void schedule(String key, Policy policy) {
    policies.put(key, policy);
    loops.compute(key, (k, loop) -> {
      if (loop != null && loop.period().equals(policy.period())) {
        return loop;
      }
      if (loop != null) {
        loop.future().cancel(false);
      }
      long ms = policy.period().toMillis();
      return new Loop(policy.period(), timer.scheduleWithFixedDelay(() -> resyncAsync(k), 0, ms, TimeUnit.MILLISECONDS));
    });
  }

  public void cancel(String key) {
    Loop loop = loops.remove(key);
    if (loop != null) {
      loop.future().cancel(false);
    }
    policies.remove(key);
    reports.remove(key);
    usageRecorded.remove(key);
  }

  public Optional<Report> report(String key) {
    return Optional.ofNullable(reports.get(key));
  }

  private void resyncAsync(String key) {
    if (running.add(key)) {
      try {
        workers.execute(() -> {
          try {
            resync(key);
          } finally {
            running.remove(key);
          }
        });
      } catch (RuntimeException e) {
        running.remove(key);
      }
    }
  }

  /** Runs one resync of a cluster now (also used by tests and benchmarks). */
  public void resync(String key) {
    ClusterState state = connections.get(key).orElse(null);
    Policy policy = policies.get(key);
    if (state == null || policy == null) {
      return;
    }
    if (ownership.clusterGone(key) && !clusterExists.test(key)) {
      // gone without its cleanup (its finalizer taken off by hand): the cleanup would have stopped this loop, and a
      // policy nobody declares any more (Remove above all) must not go on acting on HBase
      LOG.warnf("HBaseCluster %s is gone without its cleanup (was its finalizer removed by hand?): its resync stops "
          + "and its connection to HBase closes", key);
      cancel(key);
      connections.remove(key);
      return;
    }
    boolean wasAvailable = state.isAvailable() && state.isLoaded();
    try {
      state.describe();
      if (state.moved() != null) {
        // the connection reaches another HBase than the one managed: no scan, no drift, no removal
        reports.put(key, new Report(0, 0, null, state.moved()));
        notifyCluster(key);
        return;
      }
      state.refresh();
    } catch (IOException e) {
      LOG.debugf("resync of %s failed: %s", key, e.getMessage());
      notifyCluster(key);
      return;
    } catch (RuntimeException e) {
      LOG.warnf(e, "resync of %s failed", key);
      return;
    }
    String usageProblem = null;
    try {
      state.refreshSpaceUsage();
    } catch (IOException | RuntimeException e) {
      usageProblem = "could not read space quota usage from the HBase master: " + Errors.rootMessage(e);
      LOG.debugf("%s: %s", key, usageProblem);
    }
    if (ownership.tenantsOf(key).stream().anyMatch(DesiredQuotas::managesNamespaceLimits)) {
      try {
        state.refreshNamespaces();
      } catch (IOException | RuntimeException e) {
        String p = "could not list the namespaces of HBase: " + Errors.rootMessage(e);
        usageProblem = usageProblem == null ? p : usageProblem;
        LOG.debugf("%s: %s", key, p);
      }
    }
    Map<Subject, SubjectQuota> snapshot = state.snapshot();
    Map<TenantQuota, SubjectQuota> measured = askTenants(key, state, snapshot, wasAvailable);
    String problem = repairEmptyRows(key, state, snapshot);
    String held = null;
    if (policy.unmanaged() == QuotaSettingsSpec.UnmanagedPolicy.Remove) {
      held = ownership.removalHeld(key).orElse(null);
      if (held == null) {
        String failed = removeUnmanaged(key, state, snapshot, policy);
        problem = problem != null ? problem : failed;
      }
    }
    if (connections.get(key).orElse(null) != state) {
      // the cluster was removed (or its connection replaced) while this pass ran: asking for its gateway would make
      // one again for a state nobody holds, and its reads would empty the latency windows every other cluster on
      // that HBase judges
      return;
    }
    // the RegionServers' info servers last: a port that hangs (its breaker lets a probe through every
    // 30 s) delays their readings, never drift correction or removal
    // each step on its own: a failure is logged and the pass still reports what it found
    io.hbaseqos.operator.gateway.MetricsGateway gateway = connections.gatewayFor(state);
    io.hbaseqos.operator.hbase.ClusterInfo info = state.info();
    if (info != null) {
      try {
        gateway.readServerSettings(info.infoServers());
      } catch (RuntimeException e) {
        LOG.warnf("resync of %s: reading the RegionServers' quota settings failed: %s", key, Errors.rootMessage(e));
      }
    }
    Runnable compare = () -> {
      try {
        askTenantsWhoseRatesMoved(state, snapshot, measured);
      } catch (RuntimeException e) {
        LOG.warnf("resync of %s: comparing the tenants' usage with their status failed: %s", key,
            Errors.rootMessage(e));
      }
    };
    // a sample still being taken is recorded and compared when it is there, on a worker of its own; the pass goes
    // on. The cluster, which this pass reports on at its end, reports the block cache of that sample then.
    Runnable[] woken = new Runnable[1];
    Runnable wake = () -> resume(key, state, woken[0]);
    woken[0] = () -> {
      if (sampleUsage(key, state, gateway, wake, true) == Sampled.RECORDED) {
        compare.run();
        notifyCluster(key);
      }
    };
    if (sampleUsage(key, state, gateway, wake, false) != Sampled.PENDING) {
      compare.run();
    }
    Set<Subject> claimed = ownership.claimed(key);
    int managed = 0;
    int unmanaged = 0;
    List<io.hbaseqos.operator.quota.UnreadableCell> unreadable = new java.util.ArrayList<>();
    for (var e : state.snapshot().entrySet()) {
      if (!e.getValue().hasSettings()) {
        continue;
      }
      if (e.getValue().unreadable() != null) {
        unreadable.add(e.getValue().unreadable());
      }
      if (claimed.contains(e.getKey())) {
        managed++;
      } else {
        unmanaged++;
      }
    }
    unreadable.addAll(state.strayCells());
    if (!unreadable.isEmpty()) {
      LOG.warnf("%s: hbase:quota holds %d cell(s) that are not quota settings: %s", key, unreadable.size(),
          unreadable.stream().limit(5).map(io.hbaseqos.operator.quota.UnreadableCell::describe).toList());
    }
    reports.put(key, new Report(managed, unmanaged, held, problem != null ? problem : usageProblem, unreadable));
    notifyCluster(key);
  }

  /**
   * Reconciles the tenants that differ from HBase, are not settled, follow an outage, or whose
   * space usage reads differently now (violation state, limit or whole percentage). Returns the
   * owned tenants with a status, with what they want, for {@link #askTenantsWhoseRatesMoved}.
   */
  private Map<TenantQuota, SubjectQuota> askTenants(String key, ClusterState state,
      Map<Subject, SubjectQuota> snapshot, boolean wasAvailable) {
    java.time.Instant now = state.now();
    Map<TenantQuota, SubjectQuota> measured = new java.util.HashMap<>();
    for (TenantQuota tq : ownership.tenantsOf(key)) {
      if (tq.getMetadata().getDeletionTimestamp() != null) {
        continue; // its cleanup is under way
      }
      var st = tq.getStatus();
      boolean settled = st != null && Objects.equals(st.getObservedGeneration(), tq.getMetadata().getGeneration())
          && Conditions.isTrue(st, Conditions.READY);
      boolean differs;
      boolean usageMoved = false;
      SubjectQuota desired = null;
      try {
        desired = DesiredQuotas.from(tq.getSpec());
        SubjectQuota actual = snapshot.getOrDefault(desired.subject(), SubjectQuota.empty(desired.subject()));
        // a dry run writes nothing: what HBase holds is never a difference to correct, only one to show
        differs = tq.getSpec().dryRun() ? st != null && !Objects.equals(st.getSummary(), actual.describe())
            : !QuotaDiff.matches(desired, actual);
        if (actual.space() != null && st != null) {
          usageMoved = !SpaceStatus.of(actual.space(), state.spaceUsage(desired.subject()),
              desired.subject().kind() == Subject.Kind.TABLE, null, now).sameReading(st.getSpace());
        }
      } catch (DesiredQuotas.Invalid e) {
        differs = false; // holds what HBase has until its spec is fixed
      }
      if (DesiredQuotas.managesNamespaceLimits(tq) && !usageMoved && !differs && !tq.getSpec().dryRun()) {
        usageMoved = namespaceMoved(state, tq);
      }
      boolean owns = ownership.owns(tq);
      if (!wasAvailable || !settled || (differs && owns) || (usageMoved && owns)) {
        notifyTenant(tq);
      }
      if (owns && desired != null && st != null) {
        measured.put(tq, desired);
      }
    }
    return measured;
  }

  /**
   * After the RegionServers were sampled: reconciles the tenants whose ops/s, throttled share or
   * spread moved materially since their status was written, or whose dry-run prediction did (a
   * change of spread moves it with the same totals). A tenant asked before the sample may have been
   * reconciled before it too: it is asked again (a reconcile still pending takes both as one).
   */
  private void askTenantsWhoseRatesMoved(ClusterState state, Map<Subject, SubjectQuota> snapshot,
      Map<TenantQuota, SubjectQuota> measured) {
    java.time.Instant now = state.now();
    measured.forEach((tq, desired) -> {
      var st = tq.getStatus();
      SubjectQuota actual = snapshot.getOrDefault(desired.subject(), SubjectQuota.empty(desired.subject()));
      boolean moved = UsageReport.next(state.usage(desired.subject()), actual, state.blockCache(), st.getUsage(),
          now) != st.getUsage();
      if (!moved && tq.getSpec().dryRun()) {
        boolean measurable = TenantCounters.measurable(desired.subject());
        moved = io.hbaseqos.operator.usage.DryRunPrediction.next(desired, measurable
            ? state.usage(desired.subject()) : null, measurable, st.getDryRun(), now) != st.getDryRun();
      }
      if (moved) {
        notifyTenant(tq);
      }
    });
  }

  /**
   * Every tenant's counters and the block cache on every RegionServer, from the cluster's sample
   * (the one per period that the loops read too; with the per-table metrics while a table or
   * namespace tenant needs them), kept in the cluster's state as each tenant's usage and the
   * cluster's block cache since the last sample recorded. Off the reconcile path and off this pass:
   * the sample is taken on the cluster's metrics sampler, and a pass never waits for it (a hung
   * info port delays only the sample).
   * Tenants are asked to write their status only when it moved materially (see
   * {@link #askTenantsWhoseRatesMoved}).
   *
   * A sample that cannot be read is logged at debug and leaves the gauges unknown.
   *
   * @param gateway the cluster's metrics as the pass found them (a woken sample is taken from the same)
   * @param wake what runs once a sample that was not there yet is
   * @param woken this is that run: it takes the sample its wake was for, however long its read took
   *     (and waits for the next one when that lacks what usage asked for)
   */
  private Sampled sampleUsage(String key, ClusterState state, io.hbaseqos.operator.gateway.MetricsGateway gateway,
      Runnable wake, boolean woken) {
    Map<TenantQuota, Subject> tenants = new java.util.HashMap<>();
    for (TenantQuota tq : ownership.tenantsOf(key)) {
      try {
        Subject s = DesiredQuotas.from(tq.getSpec()).subject();
        if (TenantCounters.measurable(s) && ownership.owns(tq)) {
          tenants.put(tq, s);
        }
      } catch (DesiredQuotas.Invalid e) {
        // nothing to measure until its spec is fixed
      }
    }
    Set<Subject> subjects = new HashSet<>(tenants.values());
    boolean allUsers = sampleAllUsers.contains(key);
    if (subjects.isEmpty() && !allUsers) {
      // no tenant to measure: the RegionServers are not read (each read resets their latency histograms
      // for whoever else reads them), and the block cache is reported with the first tenant
      return Sampled.NOTHING_NEW;
    }
    try {
      boolean tables = subjects.stream().anyMatch(s -> s.kind() != Subject.Kind.USER);
      ServersSample sample;
      try {
        sample = woken ? gateway.lastUsageSample(tables, wake) : gateway.usageSample(tables, wake);
      } catch (MetricsPendingException e) {
        return Sampled.PENDING;
      }
      if (sample == null || sample.servers().isEmpty()) {
        // no sample yet (or none with what usage needs), or no live RegionServer with an info server: nothing measured
        return Sampled.NOTHING_NEW;
      }
      // a pass and the wake of the one before may both find the same sample: it is recorded once, in order
      boolean[] recorded = {false};
      usageRecorded.compute(key, (k, last) -> {
        if (last != null && !sample.at().isAfter(last)) {
          return last;
        }
        record(state, sample, subjects, allUsers);
        tenants.forEach((tq, s) -> metrics.usage(tq.getMetadata().getNamespace(), tq.getMetadata().getName(),
            state.usage(s)));
        recorded[0] = true;
        return sample.at();
      });
      return recorded[0] ? Sampled.RECORDED : Sampled.NOTHING_NEW;
    } catch (IOException | RuntimeException e) {
      // the gauges say unknown rather than the last values (an alert must not fire on frozen data)
      tenants.forEach((tq, s) -> metrics.usage(tq.getMetadata().getNamespace(), tq.getMetadata().getName(), null));
      LOG.debugf("%s: could not read the tenants' usage from the RegionServers' metrics: %s", key,
          Errors.rootMessage(e));
      return Sampled.NOTHING_NEW;
    }
  }

  /** What a usage sample came to. */
  private enum Sampled {
    /** Being taken: the wake records it. */
    PENDING,
    /** A sample not recorded before was recorded now. */
    RECORDED,
    /** None needed, none there, the same sample as before, or a failure (the gauges say unknown). */
    NOTHING_NEW
  }

  /** When each cluster's last usage sample was taken (a sample is recorded once). */
  private final Map<String, java.time.Instant> usageRecorded = new ConcurrentHashMap<>();

  /**
   * Runs what waited for a usage sample on a resync worker (the sampler's thread only wakes), unless
   * the cluster's resync was cancelled or its state replaced meanwhile (checked again on the worker).
   */
  private void resume(String key, ClusterState state, Runnable then) {
    java.util.function.BooleanSupplier current = () -> policies.containsKey(key)
        && connections.get(key).orElse(null) == state;
    if (!current.getAsBoolean()) {
      return;
    }
    try {
      workers.execute(() -> {
        if (current.getAsBoolean()) {
          then.run();
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // the operator is stopping
    }
  }

  /** The sample as each subject's usage and the servers' block cache, in the cluster's state. */
  private static void record(ClusterState state, ServersSample sample, Set<Subject> subjects, boolean allUsers) {
    Map<Subject, Map<String, Counts>> counts = new java.util.HashMap<>();
    for (Subject s : subjects) {
      Map<String, Counts> perServer = new java.util.LinkedHashMap<>();
      sample.servers().forEach((server, values) -> perServer.put(server, TenantCounters.of(s, values)));
      counts.put(s, perServer);
    }
    if (allUsers) {
      Map<String, Counts> perServer = new java.util.LinkedHashMap<>();
      sample.servers().forEach((server, values) -> perServer.put(server, TenantCounters.allUsers(values)));
      counts.put(ClusterState.ALL_USERS, perServer);
    }
    io.hbaseqos.operator.hbase.ClusterInfo info = state.info();
    boolean countsThrottled = info != null && HBaseVersion.countsRefusals(info.version());
    state.recordUsage(sample.at(), counts, countsThrottled);
    Map<String, CacheCounts> caches = new java.util.LinkedHashMap<>();
    sample.servers().forEach((server, values) -> {
      CacheCounts c = CacheCounters.of(values);
      if (c != null) {
        caches.put(server, c);
      }
    });
    state.recordBlockCache(sample.at(), caches);
  }

  /**
   * Whether the namespace listing reads differently from the tenant's status: limits changed
   * outside the operator, counts in use, or the namespace created or dropped.
   */
  private static boolean namespaceMoved(ClusterState state, TenantQuota tq) {
    String ns = tq.getSpec() == null || tq.getSpec().getSubject() == null ? null
        : tq.getSpec().getSubject().getNamespace();
    NamespaceStatus st = tq.getStatus() == null ? null : tq.getStatus().getNamespace();
    if (ns == null || tq.getSpec().getNamespaceLimits() == null) {
      return st != null; // a declaration taken back: its limits are still to be removed
    }
    Map<String, NamespaceState> listing = state.listedNamespaces();
    if (listing == null) {
      return false; // no listing yet: nothing to compare
    }
    NamespaceState listed = listing.get(ns);
    return !(listed == null ? NamespaceStatus.missing(ns) : NamespaceStatus.of(listed)).sameReading(st);
  }

  /**
   * A user row whose only cell holds nothing (bypass_globals=false, left by a bypass switched
   * off) stops HBase's quota scanner: every later row vanishes from Admin.getQuota and list_quotas.
   * Such rows are removed whatever the unmanaged policy: they hold no setting to keep.
   */
  private String repairEmptyRows(String key, ClusterState state, Map<Subject, SubjectQuota> snapshot) {
    Set<String> usersWithSettings = new HashSet<>();
    snapshot.forEach((s, q) -> {
      if (s.user() != null && !q.isEmptyCell()) {
        usersWithSettings.add(s.user());
      }
    });
    String problem = null;
    for (var e : snapshot.entrySet()) {
      Subject s = e.getKey();
      if (s.kind() != Subject.Kind.USER || !e.getValue().isEmptyCell() || usersWithSettings.contains(s.user())) {
        continue;
      }
      try {
        QuotaSync.Outcome out = sync.remove(state, s);
        if (out.leftBehind() != null) {
          problem = out.leftBehind();
        } else if (out.wrote()) {
          metrics.emptyRowRemoved(key);
          notifyEvent(key, false, "EmptyQuotaRowRemoved", "removed the row of user " + s.user() + " from hbase:quota: it "
              + "held only bypass_globals=false, which stops HBase's own quota listing at that row");
        }
      } catch (IOException ex) {
        problem = "could not remove the empty quota row of user " + s.user() + ": " + Errors.rootMessage(ex);
      }
    }
    return problem;
  }

  private String removeUnmanaged(String key, ClusterState state, Map<Subject, SubjectQuota> snapshot, Policy policy) {
    Set<Subject> claimed = ownership.claimed(key);
    Set<Subject> keep;
    try {
      List<String> keys = ownership.sameHBase(key);
      keep = retained.retained(keys.stream().map(ownership::hbaseIdentity).filter(Objects::nonNull).toList(),
          keys.stream().map(ownership::cluster).flatMap(Optional::stream).toList());
    } catch (RuntimeException e) {
      return "could not read the retained quotas (" + e.getMessage() + "): nothing unmanaged was removed";
    }
    for (SubjectQuota q : snapshot.values()) {
      String rendered = q.subject().toString();
      if (!q.hasSettings() || claimed.contains(q.subject()) || keep.contains(q.subject())
          || !policy.removable(rendered)) {
        continue;
      }
      try {
        QuotaSync.Outcome out = sync.remove(state, q.subject());
        if (out.wrote()) {
          LOG.infof("removed unmanaged quota %s (%s) from %s", rendered, out.found().describe(), key);
          notifyEvent(key, false, "UnmanagedQuotaRemoved", "removed " + rendered + " (" + out.found().describe()
              + "): no TenantQuota claims it and unmanagedPolicy is Remove");
        }
      } catch (IOException e) {
        return "could not remove unmanaged quota " + rendered + ": " + Errors.rootMessage(e);
      }
    }
    return null;
  }

  private void notifyTenant(TenantQuota tq) {
    Listener l = listener;
    if (l != null) {
      l.reconcileTenant(tq);
    }
  }

  private void notifyCluster(String key) {
    Listener l = listener;
    if (l != null) {
      l.reconcileCluster(key);
    }
  }

  private void notifyEvent(String key, boolean warning, String reason, String message) {
    Listener l = listener;
    if (l != null) {
      l.clusterEvent(key, warning, reason, message);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    workers.shutdownNow();
  }
}
