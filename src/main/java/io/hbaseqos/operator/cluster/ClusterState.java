package io.hbaseqos.operator.cluster;

import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.hbase.BackendFactory;
import io.hbaseqos.operator.hbase.ClusterInfo;
import io.hbaseqos.operator.hbase.QuotaBackend;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.quota.QuotaDiff;
import io.hbaseqos.operator.quota.QuotaOp;
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

/**
 * What the operator knows about one HBase cluster: its connection, a snapshot of its
 * {@code hbase:quota} table (read in one scan per resync and kept current by writing through it),
 * and its health. A cluster known to be down is not called again before its back-off ends, so
 * reconciles fail fast instead of queueing behind timeouts.
 */
public class ClusterState {
  static final Duration MIN_BACKOFF = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);
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

  private volatile ConnectionSpec connection;
  private QuotaBackend backend;

  private final Map<Subject, SubjectQuota> snapshot = new ConcurrentHashMap<>();
  private final Map<Subject, Long> lastWrite = new ConcurrentHashMap<>();
  private final Set<Subject> collateral = ConcurrentHashMap.newKeySet();
  private volatile boolean loaded;
  private volatile ClusterInfo info;

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

  public ClusterState(String id, ConnectionSpec connection, BackendFactory factory, OperatorMetrics metrics, Clock clock) {
    this.id = id;
    this.connection = connection;
    this.factory = factory;
    this.metrics = metrics;
    this.clock = clock;
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

  /** Switches to new connection settings; the next call reconnects. Returns true if they changed. */
  public synchronized boolean updateConnection(ConnectionSpec spec) {
    if (sameConnection(connection, spec)) {
      return false;
    }
    connection = spec;
    closeBackend();
    loaded = false;
    snapshot.clear();
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

  public boolean isLoaded() {
    return loaded;
  }

  /** Reads the whole quota table once, unless a snapshot is already loaded. */
  public void ensureLoaded() throws IOException {
    if (!loaded) {
      synchronized (loadLock) {
        if (!loaded) {
          refresh();
        }
      }
    }
  }

  /** One scan of {@code hbase:quota}; subjects written while it ran keep their written state. */
  public void refresh() throws IOException {
    long started = System.nanoTime();
    Map<Subject, SubjectQuota> read = call("readAll", QuotaBackend::readAll);
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
    }
    loaded = true;
  }

  public ClusterInfo describe() throws IOException {
    ClusterInfo i = call("describe", QuotaBackend::describe);
    info = i;
    return i;
  }

  /** A user's counters on each live RegionServer (see {@link QuotaBackend#userCounters}). */
  public io.hbaseqos.operator.calibration.CounterReading userCounters(String user, Set<String> ops)
      throws IOException {
    return call("userCounters", b -> b.userCounters(user, ops));
  }

  /** The subject's throttles in HBase, as of the snapshot. */
  public SubjectQuota actual(Subject subject) {
    return snapshot.getOrDefault(subject, SubjectQuota.empty(subject));
  }

  public Map<Subject, SubjectQuota> snapshot() {
    return Map.copyOf(snapshot);
  }

  /**
   * Applies writes for one subject, keeping the snapshot current. Returns the subjects of the same
   * user whose settings HBase deleted as a side effect (a user-global row delete), which their
   * owners must write again.
   */
  public Set<Subject> apply(Subject subject, List<QuotaOp> ops) throws IOException {
    if (ops.isEmpty()) {
      return Set.of();
    }
    SubjectQuota before = actual(subject);
    boolean dropsRow = QuotaDiff.mayDropUserRow(ops, before);
    SubjectQuota state = before;
    try {
      for (QuotaOp op : ops) {
        call("setQuota", b -> {
          b.apply(op);
          return null;
        });
        metrics.quotaWrite(id, op.getClass().getSimpleName());
        state = QuotaDiff.applyTo(state, op);
        put(subject, state);
      }
    } finally {
      lastWrite.put(subject, System.nanoTime());
    }
    if (!dropsRow) {
      return Set.of();
    }
    // HBase deleted the whole user row: re-read that user and report what went with it.
    Map<Subject, SubjectQuota> now = call("readUser", b -> b.readUser(subject.user()));
    Set<Subject> lost = new HashSet<>();
    for (Subject s : Set.copyOf(snapshot.keySet())) {
      if (subject.user().equals(s.user()) && !s.equals(subject) && !now.containsKey(s)) {
        snapshot.remove(s);
        lastWrite.put(s, System.nanoTime());
        lost.add(s);
      }
    }
    collateral.addAll(lost);
    return lost;
  }

  /** True once for a subject whose settings were lost through another subject's write (not drift). */
  public boolean takeCollateral(Subject subject) {
    return collateral.remove(subject);
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
      T result = future.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      metrics.hbaseCall(id, name, System.nanoTime() - t0, true);
      succeeded();
      return result;
    } catch (TimeoutException e) {
      future.cancel(true);
      metrics.hbaseCall(id, name, System.nanoTime() - t0, false);
      throw failed(new TimeoutException("no answer within " + CALL_TIMEOUT.toSeconds() + " s"), probe);
    } catch (InterruptedException e) {
      future.cancel(true);
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
        || e instanceof io.hbaseqos.operator.hbase.MetricsUnavailableException;
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
