package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.support.StandaloneHBase;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.apache.hadoop.hbase.quotas.QuotaSettings;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract on a real HBase 2.6.4: the operator's adapter, and the HBase Admin API as the shell uses it. */
class HBaseQuotaTableContractIT extends QuotaTableContract {
  static HBaseQuotaBackend backend;
  static final String RUN = Long.toString(System.nanoTime() % 1_000_000, 36);

  @BeforeAll
  static void connect() throws IOException {
    backend = HBaseQuotaBackend.connect(HBaseQuotaBackend.configuration(StandaloneHBase.shared().quorum(), "/hbase",
        null, null));
  }

  @AfterAll
  static void close() {
    backend.close();
  }

  @Override
  protected Table table() {
    return new Table() {
      @Override
      public QuotaBackend operator() {
        return backend;
      }

      @Override
      public void shell(QuotaOp op) throws IOException {
        try (Admin admin = StandaloneHBase.shared().admin()) {
          admin.setQuota(HBaseQuotaBackend.toSettings(op));
        }
      }

      @Override
      public void putRaw(String row, String qualifier, byte[] value) throws IOException {
        try (org.apache.hadoop.hbase.client.Table t = StandaloneHBase.shared().connection()
            .getTable(org.apache.hadoop.hbase.TableName.valueOf("hbase", "quota"))) {
          t.put(new org.apache.hadoop.hbase.client.Put(org.apache.hadoop.hbase.util.Bytes.toBytes(row)).addColumn(
              org.apache.hadoop.hbase.util.Bytes.toBytes("q"), org.apache.hadoop.hbase.util.Bytes.toBytes(qualifier),
              value));
        }
      }

      @Override
      public void unthrottleUser(String user) throws IOException {
        try (Admin admin = StandaloneHBase.shared().admin()) {
          admin.setQuota(QuotaSettingsFactory.unthrottleUser(user));
        }
      }

      @Override
      public List<Subject> listing() throws IOException {
        Set<Subject> out = new LinkedHashSet<>();
        try (Admin admin = StandaloneHBase.shared().admin()) {
          for (QuotaSettings s : admin.getQuota(new QuotaFilter())) {
            if (s.getRegionServer() == null) {
              out.add(new Subject(s.getUserName(), s.getNamespace(),
                  s.getTableName() == null ? null : s.getTableName().getNameWithNamespaceInclAsString()));
            }
          }
        }
        return new ArrayList<>(out);
      }
    };
  }

  @Override
  protected String user(String name) {
    return "aaa-contract-" + RUN + "-" + name;
  }
}
