package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
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
      public void shell(QuotaOp op) {
        memory.setQuota(op);
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
