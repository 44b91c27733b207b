package io.hbaseqos.operator.support.ycsb;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;

/**
 * The project's small YCSB binding: single Gets, Scans and Puts (no client-side batching, so every
 * operation is one RPC HBase counts per user) over a connection owned by one tenant. Counts only
 * successful operations; a throttled operation that runs out of retries is an error, not an op.
 */
public final class TenantDB extends DB {
  static final byte[] FAMILY = Bytes.toBytes("f");
  /** Where outcomes go: success or not, and how long the operation took (retries included). */
  interface Outcomes {
    void record(boolean success, long nanos);
  }

  private final Connection connection;
  private final Outcomes outcomes;
  private Table table;
  private long started;

  TenantDB(Connection connection, Outcomes outcomes) {
    this.connection = connection;
    this.outcomes = outcomes;
  }

  @Override
  public void init() {
    try {
      table = connection.getTable(TableName.valueOf(getProperties().getProperty("table", "usertable")));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void cleanup() {
    try {
      table.close();
    } catch (IOException e) {
      // the connection is closed by its owner
    }
  }

  private void begin() {
    started = System.nanoTime();
  }

  private Status done(boolean success) {
    outcomes.record(success, System.nanoTime() - started);
    return success ? Status.OK : Status.ERROR;
  }

  @Override
  public Status read(String t, String key, Set<String> fields, Map<String, ByteIterator> result) {
    begin();
    try {
      Result r = table.get(new Get(Bytes.toBytes(key)).addFamily(FAMILY));
      r.getFamilyMap(FAMILY).forEach((q, v) -> result.put(Bytes.toString(q), new ByteArrayByteIterator(v)));
      return done(true);
    } catch (IOException e) {
      return done(false);
    }
  }

  @Override
  public Status scan(String t, String start, int count, Set<String> fields, Vector<HashMap<String, ByteIterator>> out) {
    begin();
    try (ResultScanner s = table.getScanner(new Scan().withStartRow(Bytes.toBytes(start)).addFamily(FAMILY)
        .setLimit(count).setCaching(count))) {
      for (Result r : s) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        r.getFamilyMap(FAMILY).forEach((q, v) -> row.put(Bytes.toString(q), new ByteArrayByteIterator(v)));
        out.add(row);
      }
      return done(true);
    } catch (IOException | RuntimeException e) {
      return done(false);
    }
  }

  @Override
  public Status update(String t, String key, Map<String, ByteIterator> values) {
    return insert(t, key, values);
  }

  @Override
  public Status insert(String t, String key, Map<String, ByteIterator> values) {
    begin();
    try {
      Put p = new Put(Bytes.toBytes(key));
      values.forEach((k, v) -> p.addColumn(FAMILY, Bytes.toBytes(k), v.toArray()));
      table.put(p);
      return done(true);
    } catch (IOException e) {
      return done(false);
    }
  }

  @Override
  public Status delete(String t, String key) {
    begin();
    try {
      table.delete(new Delete(Bytes.toBytes(key)));
      return done(true);
    } catch (IOException e) {
      return done(false);
    }
  }

}
