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

  /** Creates the table (if missing) and loads it with YCSB's insert phase, as the given user. */
  public static void load(Configuration conf, String user, Properties workload) throws Exception {
    TableName name = TableName.valueOf(workload.getProperty("table"));
    try (TenantLoad l = new TenantLoad(connect(conf, user)); Admin admin = l.connection.getAdmin()) {
      if (admin.tableExists(name)) {
        return;
      }
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(TenantDB.FAMILY)).build());
      Measurements.setProperties(workload);
      CoreWorkload w = new CoreWorkload();
      w.init(workload);
      TenantDB db = new TenantDB(l.connection, l);
      db.setProperties(workload);
      db.init();
      Object state = w.initThread(workload, 0, 1);
      int records = Integer.parseInt(workload.getProperty("recordcount"));
      for (int i = 0; i < records; i++) {
        w.doInsert(db, state);
      }
      db.cleanup();
      if (l.failed.get() > 0) {
        throw new IllegalStateException(l.failed.get() + " inserts failed");
      }
    }
  }

  /** Starts {@code threads} threads running the workload's transactions as {@code user}. */
  public static TenantLoad start(Configuration conf, String user, Properties workload, int threads) throws Exception {
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
        while (!l.stop.get()) {
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
    } else {
      failed.incrementAndGet();
    }
  }

  /** Latencies (microseconds) of the successful operations since the previous call. */
  public Histogram latencySinceLastCall() {
    return latencies.getIntervalHistogram();
  }

  /** Successful operations so far. */
  public long ok() {
    return ok.get();
  }

  public long failed() {
    return failed.get();
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
