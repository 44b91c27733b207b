package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.api.CalibrationSpec;
import java.util.Set;

/**
 * The per-user RegionServer metrics ({@code User_<user>_metric_<op>_num_ops}) that count a
 * tenant's operations. Batch (multi) writes are not counted per user by HBase; use the
 * Prometheus source for tenants that write in batches.
 */
public final class UserOperations {
  public static final Set<String> READS = Set.of("get", "scanTime");
  public static final Set<String> WRITES = Set.of("put", "delete", "increment", "append");
  public static final Set<String> ALL = Set.of("get", "scanTime", "put", "delete", "increment", "append");

  private UserOperations() {}

  /** The counters of the operations a spec names (null: all). */
  public static Set<String> of(CalibrationSpec.Operations ops) {
    return switch (ops == null ? CalibrationSpec.Operations.all : ops) {
      case reads -> READS;
      case writes -> WRITES;
      case all -> ALL;
    };
  }
}
