package io.hbaseqos.operator.quota;

/**
 * Every throttle type HBase 2.6 offers ({@code org.apache.hadoop.hbase.quotas.ThrottleType}),
 * with the unit its limit is counted in. Names are identical to HBase's so that they can be
 * mapped one to one and users recognise them.
 */
public enum ThrottleKind {
  REQUEST_NUMBER(Unit.REQUESTS),
  REQUEST_SIZE(Unit.BYTES),
  WRITE_NUMBER(Unit.REQUESTS),
  WRITE_SIZE(Unit.BYTES),
  READ_NUMBER(Unit.REQUESTS),
  READ_SIZE(Unit.BYTES),
  REQUEST_CAPACITY_UNIT(Unit.CAPACITY_UNITS),
  WRITE_CAPACITY_UNIT(Unit.CAPACITY_UNITS),
  READ_CAPACITY_UNIT(Unit.CAPACITY_UNITS),
  ATOMIC_READ_SIZE(Unit.BYTES),
  ATOMIC_REQUEST_NUMBER(Unit.REQUESTS),
  ATOMIC_WRITE_SIZE(Unit.BYTES),
  REQUEST_HANDLER_USAGE_MS(Unit.MILLISECONDS);

  /** What a limit of this type counts. */
  public enum Unit {
    REQUESTS("req"),
    BYTES("B, K, M, G, T or P"),
    CAPACITY_UNITS("CU"),
    MILLISECONDS("ms");

    private final String shellUnits;

    Unit(String shellUnits) {
      this.shellUnits = shellUnits;
    }

    /** The unit suffixes the shell syntax accepts for this unit, for error messages. */
    public String shellUnits() {
      return shellUnits;
    }
  }

  private final Unit unit;

  ThrottleKind(Unit unit) {
    this.unit = unit;
  }

  public Unit unit() {
    return unit;
  }

  private static final HBaseVersion V263 = new HBaseVersion(2, 6, 3);

  /** Types HBase added in 2.6.3 (HBASE-29229, HBASE-29281, HBASE-29231); older servers do not know them. */
  public boolean requiresHBase263() {
    return this == ATOMIC_READ_SIZE || this == ATOMIC_REQUEST_NUMBER || this == ATOMIC_WRITE_SIZE
        || this == REQUEST_HANDLER_USAGE_MS;
  }

  /** The first HBase release with this type, or null for the types every supported release has. */
  public HBaseVersion since() {
    return requiresHBase263() ? V263 : null;
  }

  /** CLUSTER scope is not divided among RegionServers for these types in HBase 2.6 (see docs). */
  public boolean clusterScopeDivided() {
    return !requiresHBase263();
  }
}
