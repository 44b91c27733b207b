package io.hbaseqos.operator.support.ycsb;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.security.UserGroupInformation;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * One tenant driving load with YCSB's core workload generator, as its own HBase user (so
 * RegionServers count its operations per user), on a few threads, counting successful operations
 * and recording the latency of each (client retries on throttling included).
 */
public final class TenantLoad implements AutoCloseable, TenantDB.Outcomes {
  private final Connection connection;
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  /** Latencies of successful operations in microseconds, up to 10 minutes. */
  private final Recorder latencies = new Recorder(600_000_000L, 2);
  /** Upper bounds (ms) of the cumulative latency buckets exported in the Prometheus format; +Inf is added. */
  static final double[] BUCKETS_MS = {0.25, 0.5, 1, 1.5, 2, 3, 4, 5, 7.5, 10, 15, 20, 30, 50, 75, 100, 250, 500, 1000};
  private final java.util.concurrent.atomic.AtomicLongArray buckets =
      new java.util.concurrent.atomic.AtomicLongArray(BUCKETS_MS.length + 1);
  private final java.util.concurrent.atomic.DoubleAdder latencySumSeconds = new java.util.concurrent.atomic.DoubleAdder();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();

  private TenantLoad(Connection connection) {
    this.connection = connection;
  }

  /** YCSB properties for a read-only workload over {@code records} rows of {@code table}. */
  public static Properties readWorkload(String table, int records) {
    Properties p = new Properties();
    p.setProperty("table", table);
    p.setProperty("recordcount", String.valueOf(records));
    p.setProperty("operationcount", String.valueOf(Integer.MAX_VALUE));
    p.setProperty("fieldcount", "2");
    p.setProperty("fieldlength", "100");
    p.setProperty("readallfields", "true");
    p.setProperty("readproportion", "1");
    p.setProperty("updateproportion", "0");
    p.setProperty("scanproportion", "0");
    p.setProperty("insertproportion", "0");
    p.setProperty("requestdistribution", "uniform");
    return p;
  }

  /** The same workload scanning {@code length} rows per operation from a random key instead of reading one. */
  public static Properties scanWorkload(Properties read, int length) {
    Properties p = new Properties();
    p.putAll(read);
    p.setProperty("readproportion", "0");
    p.setProperty("scanproportion", "1");
    p.setProperty("minscanlength", String.valueOf(length));
    p.setProperty("maxscanlength", String.valueOf(length));
    return p;
  }

  /** Creates the table (if missing) and loads it with YCSB's insert phase, as the given user. */
  public static void load(Configuration conf, String user, Properties workload) throws Exception {
    load(conf, user, workload, new byte[0][]);
  }

  /** The same, the table split at {@code splits} (its regions spread over the RegionServers). */
  public static void load(Configuration conf, String user, Properties workload, byte[][] splits) throws Exception {
    TableName name = TableName.valueOf(workload.getProperty("table"));
    try (TenantLoad l = new TenantLoad(connect(conf, user)); Admin admin = l.connection.getAdmin()) {
      if (admin.tableExists(name)) {
        return;
      }
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(TenantDB.FAMILY)).build(), splits);
    }
    insert(conf, user, workload);
  }

  /**
   * YCSB's insert phase into an existing table: {@code insertcount} rows from {@code insertstart}
   * when the workload sets them (a slice, for loaders in parallel), otherwise {@code recordcount}.
   */
  public static void insert(Configuration conf, String user, Properties workload) throws Exception {
    try (TenantLoad l = new TenantLoad(connect(conf, user))) {
      Measurements.setProperties(workload);
      CoreWorkload w = new CoreWorkload();
      w.init(workload);
      TenantDB db = new TenantDB(l.connection, l);
      db.setProperties(workload);
      db.init();
      Object state = w.initThread(workload, 0, 1);
      int records = Integer.parseInt(workload.getProperty("insertcount", workload.getProperty("recordcount")));
      for (int i = 0; i < records; i++) {
        w.doInsert(db, state);
      }
      db.cleanup();
      if (l.failed.get() > 0) {
        throw new IllegalStateException(l.failed.get() + " inserts failed");
      }
    }
  }

  /**
   * Creates the table and loads it with YCSB's insert phase on {@code threads} threads, each its own
   * slice of the key space (YCSB's {@code insertstart} / {@code insertcount}), then flushes and
   * major-compacts it: its rows are in store files, one per region.
   */
  public static void loadInParallel(Configuration conf, Properties w, int threads) throws Exception {
    TableName name = TableName.valueOf(w.getProperty("table"));
    int rows = Integer.parseInt(w.getProperty("recordcount"));
    int per = (rows + threads - 1) / threads;
    load(conf, "loader", slice(w, 0, 0));
    List<Thread> loaders = new ArrayList<>();
    Exception[] failed = new Exception[1];
    for (int i = 0; i < threads; i++) {
      int start = i * per;
      int count = Math.min(per, rows - start);
      if (count <= 0) {
        continue;
      }
      Thread t = new Thread(() -> {
        try {
          insert(conf, "loader", slice(w, start, count));
        } catch (Exception e) {
          failed[0] = e;
        }
      });
      t.start();
      loaders.add(t);
    }
    for (Thread t : loaders) {
      t.join();
    }
    if (failed[0] != null) {
      throw failed[0];
    }
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      admin.flush(name);
      admin.majorCompact(name);
      Thread.sleep(2000);
      while (admin.getCompactionState(name) != org.apache.hadoop.hbase.client.CompactionState.NONE) {
        Thread.sleep(1000);
      }
    }
  }

  private static Properties slice(Properties w, int start, int count) {
    Properties p = new Properties();
    p.putAll(w);
    p.setProperty("insertstart", String.valueOf(start));
    p.setProperty("insertcount", String.valueOf(count));
    return p;
  }

  /** Starts {@code threads} threads running the workload's transactions as {@code user}, as fast as they can. */
  public static TenantLoad start(Configuration conf, String user, Properties workload, int threads) throws Exception {
    return start(conf, user, workload, threads, 0);
  }

  /**
   * Starts {@code threads} threads running the workload's transactions as {@code user}, together at
   * most {@code opsPerSecond} (0: as fast as they can), as an interactive application issues its
   * requests at its own pace: a thread that falls behind its schedule starts over from now, it does
   * not catch up in a burst.
   */
  public static TenantLoad start(Configuration conf, String user, Properties workload, int threads,
      double opsPerSecond) throws Exception {
    long interval = opsPerSecond > 0 ? Math.round(threads * 1e9 / opsPerSecond) : 0;
    TenantLoad l = new TenantLoad(connect(conf, user));
    Measurements.setProperties(workload);
    CoreWorkload w = new CoreWorkload();
    w.init(workload);
    for (int i = 0; i < threads; i++) {
      int id = i;
      TenantDB db = new TenantDB(l.connection, l);
      db.setProperties(workload);
      db.init();
      Object state = w.initThread(workload, id, threads);
      Thread t = new Thread(() -> {
        long next = System.nanoTime() + interval * id / threads;
        while (!l.stop.get()) {
          if (interval > 0) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
              java.util.concurrent.locks.LockSupport.parkNanos(wait);
              next += interval;
            } else {
              next = System.nanoTime() + interval;
            }
          }
          w.doTransaction(db, state);
        }
        db.cleanup();
      }, "ycsb-" + user + "-" + id);
      t.setDaemon(true);
      t.start();
      l.threads.add(t);
    }
    return l;
  }

  private static Connection connect(Configuration conf, String user) throws IOException {
    return ConnectionFactory.createConnection(conf, User.create(UserGroupInformation.createRemoteUser(user)));
  }

  @Override
  public void record(boolean success, long nanos) {
    if (success) {
      ok.incrementAndGet();
      latencies.recordValue(Math.max(1, Math.min(600_000_000L, nanos / 1000)));
      double ms = nanos / 1e6;
      int b = 0;
      while (b < BUCKETS_MS.length && ms > BUCKETS_MS[b]) {
        b++;
      }
      buckets.incrementAndGet(b);
      latencySumSeconds.add(nanos / 1e9);
    } else {
      failed.incrementAndGet();
    }
  }

  /** Latencies (microseconds) of the successful operations since the previous call. */
  public Histogram latencySinceLastCall() {
    return latencies.getIntervalHistogram();
  }

  /** The client's own rate of successful operations over the next {@code seconds}. */
  public double rate(int seconds) throws InterruptedException {
    long ok0 = ok();
    long t0 = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    return (ok() - ok0) / ((System.nanoTime() - t0) / 1e9);
  }

  /** Successful operations so far. */
  public long ok() {
    return ok.get();
  }

  public long failed() {
    return failed.get();
  }

  /**
   * The latency of successful operations as a cumulative Prometheus histogram
   * ({@code <name>_bucket{<labels>,le="..."}}, {@code _sum}, {@code _count}), in seconds.
   */
  public String latencyHistogram(String name, String labels) {
    StringBuilder b = new StringBuilder();
    long cumulative = 0;
    for (int i = 0; i <= BUCKETS_MS.length; i++) {
      cumulative += buckets.get(i);
      String le = i < BUCKETS_MS.length ? String.valueOf(BUCKETS_MS[i] / 1000) : "+Inf";
      b.append(name).append("_bucket{").append(labels).append(",le=\"").append(le).append("\"} ").append(cumulative)
          .append('\n');
    }
    b.append(name).append("_sum{").append(labels).append("} ").append(latencySumSeconds.sum()).append('\n');
    b.append(name).append("_count{").append(labels).append("} ").append(cumulative).append('\n');
    return b.toString();
  }

  @Override
  public void close() throws Exception {
    stop.set(true);
    for (Thread t : threads) {
      t.join(10_000);
    }
    connection.close();
  }
}
