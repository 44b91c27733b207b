package io.hbaseqos.operator.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.shaded.protobuf.generated.QuotaProtos;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * {@code hbase:quota} as it is stored, read with a plain scan of the table (not through
 * {@code Admin.getQuota}, whose scanner stops at a row without settings, and not through the
 * operator's code): every cell of family {@code q} as {@code "<row> <qualifier>"} to a short text
 * of what it holds, such as {@code "READ_NUMBER=20/SECONDS"}, {@code "bypass=false"} or {@code ""}
 * for a cell that holds nothing.
 */
public final class QuotaTableRaw {
  private QuotaTableRaw() {}

  public static Map<String, String> read(StandaloneHBase hbase) {
    try {
      return read(hbase.connection());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The same, through any connection (an HBase that runs in a pod, say). */
  public static Map<String, String> read(org.apache.hadoop.hbase.client.Connection connection) {
    Map<String, String> out = new TreeMap<>();
    try (Table t = connection.getTable(TableName.valueOf("hbase", "quota"));
        ResultScanner scanner = t.getScanner(new Scan().addFamily(Bytes.toBytes("q")))) {
      for (Result r : scanner) {
        for (Cell c : r.rawCells()) {
          String key = Bytes.toStringBinary(CellUtil.cloneRow(c)) + " " + Bytes.toStringBinary(CellUtil.cloneFamily(c)) + ":"
              + Bytes.toStringBinary(CellUtil.cloneQualifier(c));
          out.put(key, describe(CellUtil.cloneValue(c)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** A raw put into family q of hbase:quota, outside HBase's quota API (what a stray tool can do). */
  public static void put(StandaloneHBase hbase, String row, String qualifier, byte[] value) {
    try (Table t = hbase.connection().getTable(TableName.valueOf("hbase", "quota"))) {
      t.put(new org.apache.hadoop.hbase.client.Put(Bytes.toBytes(row)).addColumn(Bytes.toBytes("q"),
          Bytes.toBytes(qualifier), value));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A raw delete of one cell of family q of hbase:quota. */
  public static void delete(StandaloneHBase hbase, String row, String qualifier) {
    try (Table t = hbase.connection().getTable(TableName.valueOf("hbase", "quota"))) {
      t.delete(new org.apache.hadoop.hbase.client.Delete(Bytes.toBytes(row)).addColumns(Bytes.toBytes("q"),
          Bytes.toBytes(qualifier)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Only the cells of subjects whose row key contains {@code marker} (a test's own users or tables). */
  public static Map<String, String> read(StandaloneHBase hbase, String marker) {
    Map<String, String> all = read(hbase);
    all.keySet().removeIf(k -> !k.contains(marker));
    return all;
  }

  /** The user's row ({@code u.<user>}) as {@link #describe} writes it; null when HBase holds none. */
  public static String userRow(StandaloneHBase hbase, String user) {
    return read(hbase, user).get("u." + user + " q:s");
  }

  /**
   * The per-second limit of throttle {@code field} ({@code req_num}, {@code read_num}, ...) HBase
   * holds for a user; null when it holds none.
   */
  public static Long userLimit(StandaloneHBase hbase, String user, String field) {
    String v = userRow(hbase, user);
    if (v == null || !v.contains(field + "=")) {
      return null;
    }
    return Long.parseLong(v.replaceAll(".*" + field + "=([0-9]+)/SECONDS.*", "$1"));
  }

  static String describe(byte[] value) throws IOException {
    if (value.length == 1) {
      return String.valueOf(Bytes.toBoolean(value)); // the exceed-throttle switch's row
    }
    if (value.length < 4 || !Bytes.toString(value, 0, 4).equals("PBUF")) {
      return "?" + Bytes.toStringBinary(value);
    }
    QuotaProtos.Quotas q = QuotaProtos.Quotas.parseFrom(Arrays.copyOfRange(value, 4, value.length));
    List<String> parts = new ArrayList<>();
    if (q.hasThrottle()) {
      q.getThrottle().getAllFields().forEach((field, v) -> {
        QuotaProtos.TimedQuota tq = (QuotaProtos.TimedQuota) v;
        parts.add(field.getName() + "=" + tq.getSoftLimit() + "/" + tq.getTimeUnit()
            + (tq.getScope() == QuotaProtos.QuotaScope.CLUSTER ? "/cluster" : ""));
      });
    }
    if (q.hasBypassGlobals()) {
      parts.add("bypass=" + q.getBypassGlobals());
    }
    if (q.hasSpace()) {
      parts.add("space=" + q.getSpace().getSoftLimit());
    }
    parts.sort(null);
    return String.join(",", parts);
  }
}
