package io.hbaseqos.operator.support;

import java.security.PrivilegedExceptionAction;
import java.util.Base64;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The secured suite's HBase shell: a client of its own JVM (on HBase's own classpath), logged in
 * from a keytab, so that the test JVM's Hadoop login state stays untouched for the other suites.
 * {@code ready}: hbase:quota is available; {@code dump}: every cell of hbase:quota as
 * {@code row TAB family:qualifier TAB base64(value)}; {@code grant USER ACTIONS [TABLE]}: global (or
 * table) permissions ({@code ACTIONS} as in the shell, e.g. {@code RWXCA}); {@code revoke USER}: the
 * global ones.
 * Arguments: principal keytab command [args]; the client's hbase-site.xml on the classpath.
 */
public final class SecureClientMain {
  private SecureClientMain() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    UserGroupInformation.setConfiguration(conf);
    UserGroupInformation ugi = UserGroupInformation.loginUserFromKeytabAndReturnUGI(args[0], args[1]);
    int rc = ugi.doAs((PrivilegedExceptionAction<Integer>) () -> {
      try (Connection c = ConnectionFactory.createConnection(conf)) {
        switch (args[2]) {
          case "ready" -> {
            return c.getAdmin().isTableAvailable(TableName.valueOf("hbase", "quota")) ? 0 : 1;
          }
          case "dump" -> {
            try (Table t = c.getTable(TableName.valueOf("hbase", "quota"));
                ResultScanner s = t.getScanner(new Scan())) {
              for (Result r : s) {
                for (Cell cell : r.rawCells()) {
                  System.out.println(Bytes.toStringBinary(CellUtil.cloneRow(cell)) + "\t"
                      + Bytes.toStringBinary(CellUtil.cloneFamily(cell)) + ":"
                      + Bytes.toStringBinary(CellUtil.cloneQualifier(cell)) + "\t"
                      + Base64.getEncoder().encodeToString(CellUtil.cloneValue(cell)));
                }
              }
            }
            return 0;
          }
          case "grant" -> {
            Permission.Action[] actions = args[4].chars().mapToObj(ch -> Permission.Action.valueOf(
                switch (ch) {
                  case 'R' -> "READ";
                  case 'W' -> "WRITE";
                  case 'X' -> "EXEC";
                  case 'C' -> "CREATE";
                  default -> "ADMIN";
                })).toArray(Permission.Action[]::new);
            try {
              if (args.length > 5) {
                AccessControlClient.grant(c, TableName.valueOf(args[5]), args[3], null, null, actions);
              } else {
                AccessControlClient.grant(c, args[3], actions);
              }
            } catch (Throwable e) {
              throw new java.io.IOException(e);
            }
            return 0;
          }
          case "revoke" -> {
            try {
              AccessControlClient.revoke(c, args[3], Permission.Action.values());
            } catch (Throwable e) {
              throw new java.io.IOException(e);
            }
            return 0;
          }
          default -> {
            System.err.println("unknown command " + args[2]);
            return 2;
          }
        }
      }
    });
    System.out.flush();
    System.exit(rc);
  }
}
