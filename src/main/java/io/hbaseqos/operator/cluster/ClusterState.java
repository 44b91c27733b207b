package io.hbaseqos.operator.cluster;

import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.hbase.BackendFactory;
import io.hbaseqos.operator.hbase.ClusterInfo;
import io.hbaseqos.operator.hbase.MetricsUnavailableException;
import io.hbaseqos.operator.hbase.QuotaBackend;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.quota.QuotaDiff;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.SpaceUsage;
import io.hbaseqos.operator.quota.NamespaceLimits;
import io.hbaseqos.operator.quota.NamespaceState;
import io.hbaseqos.operator.quota.RegionServerPolicy;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the operator knows about one HBase cluster, and nothing more: its connection (with a bounded
 * call pool, a deadline per call and back-off), a snapshot of {@code hbase:quota} (one scan per
 * resync, kept current by writing through it) and what the last {@code describe} said. A cluster
 * known to be down is not called again before its back-off ends, so reconciles fail fast instead of
 * queueing behind timeouts. Who owns what, and what to write, is decided elsewhere
 * ({@code ownership}, {@code sync}).
 */
public class ClusterState {
  static final Duration MIN_BACKOFF = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(15);
  /** Row locks: writes to one row of hbase:quota (a user's, a table's, a namespace's) never interleave. */
  private static final int ROW_LOCKS = 256;
  /** HBase calls in flight per cluster at most; more wait (each with its own deadline). */
  static final int MAX_CALLS = 8;

  @FunctionalInterface
  interface HBaseCall<T> {
    T call(QuotaBackend backend) throws IOException;
  }

  private final String id;
  private final BackendFactory factory;
  private final OperatorMetrics metrics;
  private final Clock clock;
  private final Duration callTimeout;

  private volatile ConnectionSpec connection;
  private QuotaBackend backend;

  private final Map<Subject, SubjectQuota> snapshot = new ConcurrentHashMap<>();
  private final WriteFence fence;
  private Long connectionGeneration;
  /** The HBase (cluster id) this HBaseCluster manages; null until known. */
  private volatile String manages;
  /** A cluster id the HBaseCluster's owner accepted to move to (annotation), or null. */
  private volatile String moveAccepted;
  /** Why nothing is written: the connection reaches another HBase than the one managed; else null. */
  private volatile String moved;
  private volatile List<io.hbaseqos.operator.quota.UnreadableCell> strayCells = List.of();
  private final Map<Subject, Long> lastWrite = new ConcurrentHashMap<>();
  /** Subjects whose cached state is unknown (a write failed): read again before the next diff. */
  private final Set<Subject> unsure = ConcurrentHashMap.newKeySet();
  /** Subjects with an abandoned write that may still land, until when. */
  private final Map<Subject, Instant> inDoubt = new ConcurrentHashMap<>();
  private final ReentrantLock[] rowLocks = new ReentrantLock[ROW_LOCKS];
  private volatile boolean loaded;
  private volatile ClusterInfo info;
  /** Null until the first bulk read. */
  private volatile Map<Subject, SpaceUsage> spaceUsage;
  /** Every tenant's usage over the last sampling period (null: none sampled yet on this connection). */
  private volatile Map<Subject, io.hbaseqos.operator.usage.Usage> usage;
  private volatile io.hbaseqos.operator.usage.UsageTracker usageTracker = new io.hbaseqos.operator.usage.UsageTracker();
  private volatile io.hbaseqos.operator.usage.CacheTracker cacheTracker = new io.hbaseqos.operator.usage.CacheTracker();
  /** The servers' block cache over the last sampling period (null: none sampled yet on this connection). */
  private volatile io.hbaseqos.operator.usage.BlockCache blockCache;
  private volatile Map<String, NamespaceState> namespaces;
  /** One on-demand namespace listing at a time (reconciles right after a start all ask at once). */
  private final Object listingLock = new Object();

  private int failures;
  private volatile Instant nextAttempt = Instant.EPOCH;
  private volatile String lastError;
  private volatile String lastErrorDetail;
  private boolean probing;
  /** Guards the connection; never held while waiting for HBase. */
  private final Object backendLock = new Object();
  /** Lets one thread do the first scan while the others wait for it. */
  private final Object loadLock = new Object();
  private final ExecutorService executor;

  /** The time on the operator's clock (the one its loops and deadlines use). */
  public Instant now() {
    return clock.instant();
  }

  public ClusterState(String id, ConnectionSpec connection, BackendFactory factory, OperatorMetrics metrics, Clock clock) {
    this(id, connection, factory, metrics, clock, DEFAULT_CALL_TIMEOUT);
  }

  public ClusterState(String id, ConnectionSpec connection, BackendFactory factory, OperatorMetrics metrics, Clock clock,
      Duration callTimeout) {
    this(id, connection, factory, metrics, clock, callTimeout, WriteFence.NONE);
  }

  /** @param fence checked on the HBase call thread immediately before every write */
  public ClusterState(String id, ConnectionSpec connection, BackendFactory factory, OperatorMetrics metrics, Clock clock,
      Duration callTimeout, WriteFence fence) {
    this.id = id;
    this.fence = fence;
    this.connection = connection;
    this.factory = factory;
    this.metrics = metrics;
    this.clock = clock;
    this.callTimeout = callTimeout;
    for (int i = 0; i < ROW_LOCKS; i++) {
      rowLocks[i] = new ReentrantLock();
    }
    ThreadPoolExecutor pool = new ThreadPoolExecutor(MAX_CALLS, MAX_CALLS, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "hbaseqos-hbase-" + id);
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    this.executor = pool;
  }

  public String id() {
    return id;
  }

  /** The connection settings in force (the same object until they change). */
  public ConnectionSpec connection() {
    return connection;
  }

  /** Switches to new connection settings; the next call reconnects. Returns true if they changed. */
  public synchronized boolean updateConnection(ConnectionSpec spec) {
    return updateConnection(spec, null);
  }

  /**
   * Switches to the connection settings of the HBaseCluster at {@code generation}, unless settings of
   * a later generation are already in force: a reconcile still holding an older copy of the resource
   * never switches the connection back.
   */
  public synchronized boolean updateConnection(ConnectionSpec spec, Long generation) {
    if (generation != null && connectionGeneration != null && generation < connectionGeneration) {
      return false;
    }
    if (generation != null) {
      connectionGeneration = generation;
    }
    if (sameConnection(connection, spec)) {
      return false;
    }
    connection = spec;
    closeBackend();
    loaded = false;
    info = null;
    moved = null; // known again at the next describe
    snapshot.clear();
    spaceUsage = null;
    usage = null;
    usageTracker = new io.hbaseqos.operator.usage.UsageTracker();
    blockCache = null;
    cacheTracker = new io.hbaseqos.operator.usage.CacheTracker();
    namespaces = null;
    unsure.clear();
    nextAttempt = Instant.EPOCH;
    return true;
  }

  private static boolean sameConnection(ConnectionSpec a, ConnectionSpec b) {
    return Objects.equals(a.getZookeeperQuorum(), b.getZookeeperQuorum())
        && Objects.equals(a.getZnodeParent(), b.getZnodeParent())
        && Objects.equals(a.getClientConfig(), b.getClientConfig());
  }

  public boolean isAvailable() {
    return lastError == null;
  }

  public String lastError() {
    return lastError;
  }

  /** The failure as HBase reported it (for events and logs, not conditions). */
  public String lastErrorDetail() {
    return lastErrorDetail;
  }

  public ClusterInfo info() {
    return info;
  }

  /**
   * The HBase cluster's own id (from its file system) this HBaseCluster manages: what it answered,
   * or what its status recorded; while the connection reaches another HBase, still the managed one.
   * Null before either is known.
   */
  public String identity() {
    String m = manages;
    if (m != null) {
      return m;
    }
    ClusterInfo i = info;
    return i == null ? null : i.clusterId();
  }

  public boolean isLoaded() {
    return loaded;
  }

  /** Learns the cluster's identity and reads the whole quota table once, unless already done. */
  public void ensureLoaded() throws IOException {
    if (!loaded || info == null) {
      synchronized (loadLock) {
        if (info == null) {
          describe();
        }
        if (!loaded) {
          refresh();
        }
      }
    }
  }

  /** One scan of {@code hbase:quota}; subjects written while it ran keep their written state. */
  public void refresh() throws IOException {
    long started = System.nanoTime();
    io.hbaseqos.operator.hbase.QuotaTableScan scan = call("readAll", QuotaBackend::readAll);
    Map<Subject, SubjectQuota> read = scan.subjects();
    strayCells = scan.stray();
    Set<Subject> all = new HashSet<>(snapshot.keySet());
    all.addAll(read.keySet());
    for (Subject s : all) {
      Long written = lastWrite.get(s);
      if (written != null && written - started > 0) {
        continue; // a write raced the scan: the cache holds the newer truth
      }
      SubjectQuota q = read.get(s);
      if (q == null) {
        snapshot.remove(s);
      } else {
        snapshot.put(s, q);
      }
      unsure.remove(s);
    }
    loaded = true;
  }

  /**
   * The cells of {@code hbase:quota} the last scan found that are not quota settings and name no
   * subject (those that name one are that subject's state, {@link SubjectQuota#unreadable}).
   */
  public List<io.hbaseqos.operator.quota.UnreadableCell> strayCells() {
    return strayCells;
  }

  /** One bulk read of every space quota's usage from HBase's master (see {@link #spaceUsage(Subject)}). */
  public void refreshSpaceUsage() throws IOException {
    spaceUsage = call("spaceUsage", QuotaBackend::spaceUsage);
  }

  /** The subject's space usage as of the last bulk read (null: HBase reported none, or none read yet). */
  public SpaceUsage spaceUsage(Subject subject) {
    Map<Subject, SpaceUsage> read = spaceUsage;
    return read == null ? null : read.get(subject);
  }

  /**
   * Records one sample of every tenant's counters (per subject, per server), taken at {@code at}: the
   * usages since the previous one replace the last ones.
   *
   * @param countsThrottled whether the servers count throttled requests per user and table (2.6.4+)
   */
  public void recordUsage(Instant at, Map<Subject, Map<String, io.hbaseqos.operator.usage.Counts>> counts,
      boolean countsThrottled) {
    usage = Map.copyOf(usageTracker.next(at, counts, countsThrottled));
  }

  /** Records one sample of the servers' block cache metrics, taken at {@code at}. */
  public void recordBlockCache(Instant at, Map<String, io.hbaseqos.operator.usage.CacheCounts> servers) {
    blockCache = servers.isEmpty() ? null : cacheTracker.next(at, servers);
  }

  /** The servers' block cache over the last sampling period (null: not read yet). */
  public io.hbaseqos.operator.usage.BlockCache blockCache() {
    return blockCache;
  }

  /**
   * The key under which every user's requests together are tracked, for a dry run of RegionServer throttles
   * (no user can be named {@code *}: user subjects are refused that character).
   */
  public static final Subject ALL_USERS = new Subject("*", null, null);

  /** The subject's usage over the last sampling period (null: not measured yet, or not measurable). */
  public io.hbaseqos.operator.usage.Usage usage(Subject subject) {
    Map<Subject, io.hbaseqos.operator.usage.Usage> u = usage;
    return u == null ? null : u.get(subject);
  }

  /** Whether space usage has been read since this connection was made. */
  public boolean spaceUsageRead() {
    return spaceUsage != null;
  }

  /**
   * One listing of every namespace: limits on its descriptor, tables and regions (see
   * {@link #namespace(String)}). Made by the resync only when some tenant of the cluster declares
   * namespace limits.
   */
  public void refreshNamespaces() throws IOException {
    ClusterInfo i = info != null ? info : describe(); // regions are counted from the live servers' reports
    namespaces = call("namespaces", b -> b.namespaces(i));
  }

  /**
   * A namespace as of the last listing; listed now if there was none yet. Empty when HBase has no
   * such namespace.
   */
  public java.util.Optional<NamespaceState> namespace(String name) throws IOException {
    Map<String, NamespaceState> listed = namespaces;
    if (listed == null) {
      synchronized (listingLock) {
        if (namespaces == null) {
          refreshNamespaces();
        }
        listed = namespaces;
      }
    }
    return java.util.Optional.ofNullable(listed.get(name));
  }

  /** The cluster-wide throttle policy as HBase holds it now. */
  public RegionServerPolicy readRegionServerPolicy() throws IOException {
    return call("regionServerPolicy", QuotaBackend::readRegionServerPolicy);
  }

  /** One change to the cluster-wide throttle policy. */
  public void apply(RegionServerPolicy.Op op) throws IOException {
    checkNotMoved();
    call("setRegionServerPolicy", fenced(b -> {
      b.apply(op);
      return null;
    }));
    metrics.quotaWrite(id, op.getClass().getSimpleName());
  }

  /** One table's existence and the creation time of its oldest region, read now. */
  public QuotaBackend.TableState table(String table) throws IOException {
    return call("table", b -> b.table(table));
  }

  /** The last namespace listing (null: none made yet). */
  public Map<String, NamespaceState> listedNamespaces() {
    return namespaces;
  }

  /** The limits on one namespace's descriptor, read now (empty: no such namespace). */
  public java.util.Optional<NamespaceLimits> readNamespaceLimits(String name) throws IOException {
    return call("namespaceLimits", b -> b.namespaceLimits(name));
  }

  /**
   * Writes a namespace's limits (false: no such namespace) and records them in the listing, so
   * that status shows them before the next listing.
   */
  public boolean writeNamespaceLimits(String name, NamespaceLimits limits) throws IOException {
    checkNotMoved();
    boolean done = call("setNamespaceLimits", fenced(b -> b.setNamespaceLimits(name, limits)));
    if (done) {
      metrics.quotaWrite(id, "SetNamespaceLimits");
    }
    Map<String, NamespaceState> listed = namespaces;
    if (done && listed != null) {
      Map<String, NamespaceState> next = new java.util.HashMap<>(listed);
      next.put(name, listed.getOrDefault(name, NamespaceState.uncounted(name)).withLimits(limits));
      namespaces = next;
    }
    return done;
  }

  public ClusterInfo describe() throws IOException {
    ClusterInfo i = call("describe", QuotaBackend::describe);
    info = i;
    checkIdentity(i.clusterId());
    return i;
  }

  /**
   * The HBase this HBaseCluster manages (its status's cluster id, from earlier answers), and a
   * cluster id its owner accepted to move to. A state that already knows what it manages keeps it.
   */
  public void manages(String clusterId, String accepted) {
    if (manages == null && clusterId != null && !clusterId.isBlank()) {
      manages = clusterId;
    }
    moveAccepted = accepted == null || accepted.isBlank() ? null : accepted;
    ClusterInfo i = info;
    if (i != null) {
      checkIdentity(i.clusterId());
    }
  }

  /** The HBase this HBaseCluster manages (null until known). */
  public String managedIdentity() {
    return manages;
  }

  private synchronized void checkIdentity(String answered) {
    if (answered == null) {
      return;
    }
    if (manages == null || answered.equals(moveAccepted)) {
      manages = answered;
    }
    moved = manages.equals(answered) ? null : "spec.connection reaches the HBase with cluster id " + answered
        + ", but this HBaseCluster manages the HBase with cluster id " + manages + " (the connection was edited, "
        + "or that HBase re-created): nothing is written, or its "
        + "tenants' quotas would be left behind there and written anew here. Revert spec.connection; or, to move "
        + "on purpose (the quotas on the old HBase stay there), annotate the HBaseCluster "
        + MOVE_ANNOTATION + "=" + answered;
  }

  /** The annotation with which an HBaseCluster's owner accepts that its connection reaches another HBase. */
  public static final String MOVE_ANNOTATION = "hbaseqos.io/move-to-hbase";

  /**
   * Why this cluster writes nothing: its connection reaches another HBase than the one it manages
   * (null when it reaches the right one, or nothing is known yet).
   */
  public String moved() {
    return moved;
  }

  /** A write's HBase call, run only while this replica may write: checked on the call thread, just before. */
  private <T> HBaseCall<T> fenced(HBaseCall<T> write) {
    return b -> {
      fence.check();
      return write.call(b);
    };
  }

  private void checkNotMoved() throws IOException {
    if (manages != null && info == null) {
      describe(); // a new connection: whom it reaches is known before anything is written there
    }
    String m = moved;
    if (m != null) {
      throw new ConnectionMovedException(m);
    }
  }

  /** A write refused because the connection reaches another HBase than the one managed. */
  public static final class ConnectionMovedException extends IOException {
    ConnectionMovedException(String message) {
      super(message);
    }
  }

  /**
   * The live RegionServers' info servers, for reading their metrics (see {@code MetricsGateway}):
   * right after a start the resync may not have described the cluster yet, then one HBase call, once.
   */
  public Map<String, Map.Entry<String, Integer>> liveInfoServers() throws MetricsUnavailableException {
    ClusterInfo i = info;
    if (i == null) {
      try {
        i = describe();
      } catch (IOException e) {
        throw new MetricsUnavailableException("the live RegionServers are not known yet: " + Errors.rootMessage(e));
      }
    }
    return i.infoServers();
  }

  /** The subject's settings in HBase, as of the snapshot. */
  public SubjectQuota actual(Subject subject) {
    return snapshot.getOrDefault(subject, SubjectQuota.empty(subject));
  }

  public Map<Subject, SubjectQuota> snapshot() {
    return Map.copyOf(snapshot);
  }

  /** Whether the snapshot may be wrong about the subject (a write to it failed): read it before deciding. */
  public boolean isUnsure(Subject subject) {
    return unsure.contains(subject);
  }

  /**
   * How long an abandoned write to the subject may still land in HBase (zero if none): the call
   * missed its deadline but the HBase client goes on retrying it for its operation timeout.
   */
  public Duration inDoubt(Subject subject) {
    Instant until = inDoubt.get(subject);
    if (until == null) {
      return Duration.ZERO;
    }
    Duration d = Duration.between(clock.instant(), until);
    if (d.isNegative() || d.isZero()) {
      inDoubt.remove(subject, until);
      return Duration.ZERO;
    }
    return d;
  }

  /** Reads one subject from HBase now, and keeps the snapshot in step with what was read. */
  public SubjectQuota read(Subject subject) throws IOException {
    SubjectQuota q = call("read", b -> b.read(subject));
    remember(subject, q);
    return q;
  }

  /** Reads every cell of one user's row now, and keeps the snapshot in step with what was read. */
  public Map<Subject, SubjectQuota> readUser(String user) throws IOException {
    Map<Subject, SubjectQuota> row = call("readUser", b -> b.readUser(user));
    for (Subject s : Set.copyOf(snapshot.keySet())) {
      if (user.equals(s.user()) && !row.containsKey(s)) {
        remember(s, SubjectQuota.empty(s));
      }
    }
    row.forEach(this::remember);
    return row;
  }

  private void remember(Subject s, SubjectQuota q) {
    put(s, q);
    unsure.remove(s);
    lastWrite.put(s, System.nanoTime()); // newer than any scan already running
  }

  /**
   * One write, kept in the snapshot. A write that fails leaves the subject unsure; one abandoned at
   * its deadline leaves it in doubt for the client's operation timeout (it may still land).
   */
  public void write(QuotaOp op) throws IOException {
    Subject s = op.subject();
    checkNotMoved();
    try {
      call(op instanceof QuotaOp.DropEmptySettings ? "dropEmptySettings"
          : op instanceof QuotaOp.ClearUnreadable ? "clearUnreadable" : "setQuota", fenced(b -> {
        b.apply(op);
        return null;
      }), () -> inDoubt.put(s, clock.instant().plus(settleTime())));
      metrics.quotaWrite(id, op.getClass().getSimpleName());
      put(s, QuotaDiff.applyTo(actual(s), op));
    } catch (IOException e) {
      unsure.add(s);
      throw e;
    } finally {
      lastWrite.put(s, System.nanoTime());
    }
  }

  private Duration settleTime() {
    synchronized (backendLock) {
      return backend == null ? callTimeout : backend.writeSettleTime();
    }
  }

  /** Runs {@code body} holding the lock of the subject's row in hbase:quota (a user's subjects share one). */
  public <T> T withRowLock(Subject subject, IOSupplier<T> body) throws IOException {
    String row = subject.user() != null ? "u." + subject.user()
        : subject.table() != null ? "t." + subject.table() : "n." + subject.namespace();
    ReentrantLock lock = rowLocks[Math.floorMod(row.hashCode(), ROW_LOCKS)];
    lock.lock();
    try {
      return body.get();
    } finally {
      lock.unlock();
    }
  }

  @FunctionalInterface
  public interface IOSupplier<T> {
    T get() throws IOException;
  }

  private void put(Subject s, SubjectQuota q) {
    if (q.isEmpty()) {
      snapshot.remove(s);
    } else {
      snapshot.put(s, q);
    }
  }

  /**
   * Runs one HBase call with a hard deadline, on this cluster's own small thread pool. While the
   * cluster is known to be down, calls fail at once except one probe per back-off interval, so a
   * dead cluster costs one blocked thread, not one per reconcile.
   */
  <T> T call(String name, HBaseCall<T> call) throws IOException {
    return call(name, call, () -> { });
  }

  private <T> T call(String name, HBaseCall<T> call, Runnable onAbandoned) throws IOException {
    boolean probe = false;
    synchronized (this) {
      Instant now = clock.instant();
      if (lastError != null) {
        if (now.isBefore(nextAttempt) || probing) {
          throw new ClusterUnavailableException(lastError, retryAfter(), null);
        }
        probing = true;
        probe = true;
      }
    }
    long t0 = System.nanoTime();
    Future<T> future;
    try {
      future = executor.submit(() -> call.call(backend()));
    } catch (RejectedExecutionException e) {
      endProbe(probe);
      throw new ClusterUnavailableException("HBase cluster " + id + " is closed", MAX_BACKOFF, e);
    }
    try {
      T result = future.get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
      metrics.hbaseCall(id, name, System.nanoTime() - t0, true);
      succeeded();
      return result;
    } catch (TimeoutException e) {
      future.cancel(true);
      onAbandoned.run();
      metrics.hbaseCall(id, name, System.nanoTime() - t0, false);
      throw failed(new TimeoutException("no answer within " + callTimeout.toMillis() + " ms"), probe);
    } catch (InterruptedException e) {
      future.cancel(true);
      onAbandoned.run();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (ExecutionException ee) {
      Throwable e = ee.getCause();
      metrics.hbaseCall(id, name, System.nanoTime() - t0, false);
      if (isRequestError(e)) {
        throw e instanceof IOException io ? io : new IOException(e);
      }
      throw failed(e, probe);
    } finally {
      endProbe(probe);
    }
  }

  private synchronized void endProbe(boolean probe) {
    if (probe) {
      probing = false;
    }
  }

  private QuotaBackend backend() throws IOException {
    synchronized (backendLock) {
      if (backend == null) {
        backend = factory.open(connection);
      }
      return backend;
    }
  }

  /** HBase answered but refused the request: the cluster is fine, the request is not. */
  private static boolean isRequestError(Throwable e) {
    String n = e.getClass().getName();
    return n.endsWith("DoNotRetryIOException") || e instanceof IllegalArgumentException
        || e instanceof WriteFence.NotLeaderException
        || e instanceof io.hbaseqos.operator.hbase.MetricsUnavailableException
        || io.hbaseqos.operator.quota.HBaseRefusals.permissionDenied(e).isPresent();
  }

  private synchronized void succeeded() {
    failures = 0;
    lastError = null;
  }

  private synchronized ClusterUnavailableException failed(Throwable e, boolean probe) {
    // calls that were already in flight when the cluster went down do not lengthen the back-off
    if (probe || lastError == null) {
      failures++;
    }
    long seconds = Math.min(MAX_BACKOFF.toSeconds(), MIN_BACKOFF.toSeconds() << Math.min(failures - 1, 10));
    Duration backoff = Duration.ofSeconds(seconds);
    nextAttempt = clock.instant().plus(backoff);
    // The message goes into status conditions: keep it stable across retries (no timings, no ports).
    lastError = "HBase cluster " + id + " is unreachable (" + Errors.rootCause(e).getClass().getSimpleName()
        + "); retrying with back-off";
    lastErrorDetail = Errors.rootMessage(e);
    return new ClusterUnavailableException(lastError, backoff, e);
  }

  /** Time until the next call is allowed (zero if the cluster is not in back-off). */
  public Duration retryAfter() {
    Duration d = Duration.between(clock.instant(), nextAttempt);
    return d.isNegative() ? Duration.ZERO : d;
  }

  private void closeBackend() {
    synchronized (backendLock) {
      if (backend != null) {
        backend.close();
        backend = null;
      }
    }
  }

  public void close() {
    executor.shutdownNow();
    closeBackend();
  }
}
