package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
import java.io.IOException;
import java.util.List;

/** The contract on the in-memory model of hbase:quota. */
class MemoryQuotaTableTest extends QuotaTableContract {
  final MemoryQuotaTable memory = new MemoryQuotaTable();

  @Override
  protected Table table() {
    return new Table() {
      @Override
      public QuotaBackend operator() {
        return memory;
      }

      @Override
      public void shell(QuotaOp op) throws IOException {
        memory.setQuota(op);
      }

      @Override
      public void putRaw(String row, String qualifier, byte[] value) {
        memory.putRaw(row, qualifier, value);
      }

      @Override
      public void unthrottleUser(String user) {
        memory.unthrottleUser(user);
      }

      @Override
      public List<Subject> listing() {
        return memory.hbaseListing();
      }
    };
  }

  @Override
  protected String user(String name) {
    return "aaa-contract-" + name;
  }
}
