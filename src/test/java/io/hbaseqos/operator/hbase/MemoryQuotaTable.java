package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.SpaceLimit;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code hbase:quota} in memory, with HBase 2.6's row semantics (written from HBase's
 * {@code MasterQuotaManager.setQuota}, {@code GlobalQuotaSettingsImpl.merge},
 * {@code QuotaUtil.delete*Quota} and {@code QuotaRetriever.next}, not from the operator's plan):
 * <ul>
 *   <li>one row per user ({@code u.<user>}), table and namespace; a user's own settings, per-table
 *       and per-namespace settings are cells of the user's row;</li>
 *   <li>each {@code setQuota} merges one setting into its cell; a merged cell with no throttle type
 *       and no bypass field is deleted: a user's own cell by deleting the whole row, the other cells
 *       alone;</li>
 *   <li>a bypass, once set, stays in the cell as a field (false after it is switched off);</li>
 *   <li>a table's or namespace's space limit is a field of the same cell as its throttles;</li>
 *   <li>HBase's own listing ({@link #hbaseListing()}, what {@code Admin.getQuota} and
 *       {@code list_quotas} show) stops at the first row that yields no setting.</li>
 * </ul>
 * {@code QuotaTableContract} runs the same cases against this model and a real HBase, so that the
 * model cannot drift from HBase. It is also the operator's {@link QuotaBackend} for fast tests,
 * with faults to inject.
 */
public final class MemoryQuotaTable implements QuotaBackend {

  /** One cell: the throttle types it holds, its bypass field (null: not stored) and its space limit. */
  /** A cell: settings, or {@code junk}, bytes that are not quota settings (a raw put). */
  private record Cell(Map<ThrottleKind, Limit> throttles, Boolean bypass, SpaceLimit space, byte[] junk) {
    Cell(Map<ThrottleKind, Limit> throttles, Boolean bypass, SpaceLimit space) {
      this(throttles, bypass, space, null);
    }

    boolean holdsNothing() {
      return junk == null && throttles.isEmpty() && !Boolean.TRUE.equals(bypass) && space == null;
    }
  }

  /** Row key to qualifier to cell, both in HBase's byte order (ASCII names sort the same). */
  private final TreeMap<String, TreeMap<String, Cell>> rows = new TreeMap<>();

  public final AtomicInteger scans = new AtomicInteger();
  public final AtomicInteger writes = new AtomicInteger();
  public volatile boolean down;
  /** Runs after a scan has copied the table, before it returns (to race writes against scans). */
  public volatile Runnable duringScan = () -> { };
  /** Runs before each write is applied (to race a concurrent writer, or to make a call slow). */
  public volatile Runnable beforeWrite = () -> { };
  /** Refuses {@link QuotaOp.DropEmptySettings} as a cluster without write access to hbase:quota would. */
  public volatile boolean refuseDrop;
  public volatile String clusterId = "memory-cluster";
  /** The HBase version the model reports (the contract is checked against 2.6.4). */
  public volatile String version = "2.6.4";

  // ---- row layout -----------------------------------------------------------------------

  static String rowKey(Subject s) {
    if (s.user() != null) {
      return "u." + s.user();
    }
    return s.table() != null ? "t." + s.table() : "n." + s.namespace();
  }

  static String qualifier(Subject s) {
    if (s.user() == null || (s.table() == null && s.namespace() == null)) {
      return "s";
    }
    return s.table() != null ? "s." + s.table() : "s." + s.namespace() + ":";
  }

  private static Subject subjectOf(String row, String qualifier) {
    String name = row.substring(2);
    if (row.startsWith("t.")) {
      return Subject.table(name);
    }
    if (row.startsWith("n.")) {
      return Subject.namespace(name);
    }
    if (qualifier.equals("s")) {
      return Subject.user(name);
    }
    String q = qualifier.substring(2);
    return q.endsWith(":") ? new Subject(name, q.substring(0, q.length() - 1), null) : new Subject(name, null, q);
  }

  // ---- HBase's setQuota ------------------------------------------------------------------

  /** One {@code Admin.setQuota} as HBase's master applies it (what a shell user does too). */
  public synchronized void setQuota(QuotaOp op) throws IOException {
    Subject s = op.subject();
    String row = rowKey(s);
    String q = qualifier(s);
    Cell cur = rows.getOrDefault(row, new TreeMap<>()).get(q);
    if (cur != null && cur.junk() != null) {
      // the master parses the cell before changing it
      throw new IOException("org.apache.hadoop.hbase.exceptions.DeserializationException: Missing pb magic PBUF prefix");
    }
    Map<ThrottleKind, Limit> throttles = new EnumMap<>(ThrottleKind.class);
    Boolean bypass = null;
    SpaceLimit space = null;
    if (cur != null) {
      throttles.putAll(cur.throttles());
      bypass = cur.bypass();
      space = cur.space();
    }
    if (op instanceof QuotaOp.SetThrottle set) {
      throttles.put(set.kind(), set.limit());
    } else if (op instanceof QuotaOp.RemoveThrottle rm) {
      throttles.remove(rm.kind());
    } else if (op instanceof QuotaOp.SetBypassGlobals b) {
      bypass = b.bypass();
    } else if (op instanceof QuotaOp.SetSpace sp) {
      space = sp.limit();
    } else if (op instanceof QuotaOp.RemoveSpace) {
      space = null;
    } else {
      throw new IllegalArgumentException("not a setQuota: " + op);
    }
    store(row, q, throttles, bypass, space);
  }

  /** {@code unthrottleUser(user)}: every throttle type of the user's own settings at once. */
  public synchronized void unthrottleUser(String user) {
    Cell cur = rows.getOrDefault("u." + user, new TreeMap<>()).get("s");
    store("u." + user, "s", Map.of(), cur == null ? null : cur.bypass(), null);
  }

  private void store(String row, String q, Map<ThrottleKind, Limit> throttles, Boolean bypass, SpaceLimit space) {
    if (throttles.isEmpty() && bypass == null && space == null) { // merge gave null: delete
      if (q.equals("s")) {
        rows.remove(row); // QuotaUtil.delete{User,Table,Namespace}Quota: the whole row
      } else {
        TreeMap<String, Cell> cells = rows.get(row);
        if (cells != null) {
          cells.remove(q);
          if (cells.isEmpty()) {
            rows.remove(row);
          }
        }
      }
      return;
    }
    Map<ThrottleKind, Limit> copy = new EnumMap<>(ThrottleKind.class);
    copy.putAll(throttles);
    rows.computeIfAbsent(row, k -> new TreeMap<>()).put(q, new Cell(copy, bypass, space));
  }

  // ---- reads -----------------------------------------------------------------------------

  /**
   * What {@code Admin.getQuota(new QuotaFilter())} returns, as subjects in order: the retriever
   * parses a row at a time and ends when a row yields no setting.
   */
  public synchronized List<Subject> hbaseListing() {
    List<Subject> out = new ArrayList<>();
    for (var row : rows.entrySet()) {
      List<Subject> settings = new ArrayList<>();
      row.getValue().forEach((q, cell) -> {
        if (!cell.holdsNothing()) {
          settings.add(subjectOf(row.getKey(), q));
        }
      });
      if (settings.isEmpty()) {
        break;
      }
      out.addAll(settings);
    }
    return out;
  }

  /** A raw put of {@code value} into family q, as any client with write access to hbase:quota can make. */
  public synchronized void putRaw(String row, String qualifier, byte[] value) {
    rows.computeIfAbsent(row, k -> new TreeMap<>()).put(qualifier, new Cell(Map.of(), null, null, value.clone()));
  }

  private final List<io.hbaseqos.operator.quota.UnreadableCell> stray = new ArrayList<>();

  private static SubjectQuota of(Subject s, Cell c) {
    return new SubjectQuota(s, c.throttles(), Boolean.TRUE.equals(c.bypass()),
        s.kind() == Subject.Kind.USER && c.bypass() != null, c.space());
  }

  private Map<Subject, SubjectQuota> read(String row) {
    Map<Subject, SubjectQuota> out = new LinkedHashMap<>();
    rows.getOrDefault(row, new TreeMap<>()).forEach((q, c) -> {
      if (c.junk() != null) {
        byte[] r = org.apache.hadoop.hbase.util.Bytes.toBytes(row);
        byte[] qb = org.apache.hadoop.hbase.util.Bytes.toBytes(q);
        Subject named = QuotaCells.subjectOf(r, qb);
        var cell = new io.hbaseqos.operator.quota.UnreadableCell(r, qb, QuotaCells.found(c.junk()), c.junk());
        if (named == null) {
          stray.add(cell);
        } else {
          out.put(named, SubjectQuota.unreadable(named, cell));
        }
        return;
      }
      Subject s = subjectOf(row, q);
      SubjectQuota sq = of(s, c);
      if (!sq.isEmpty()) {
        out.put(s, sq);
      }
    });
    return out;
  }

  /** Tables that exist, with the creation time of their oldest region (ms), as a test sets them. */
  public final Map<String, Long> tables = new java.util.concurrent.ConcurrentHashMap<>();

  @Override
  public TableState table(String table) throws IOException {
    check();
    String name = table.contains(":") ? table : "default:" + table;
    Long created = tables.get(name);
    return new TableState(created != null, created);
  }

  @Override
  public QuotaTableScan readAll() throws IOException {
    check();
    scans.incrementAndGet();
    Map<Subject, SubjectQuota> copy = new LinkedHashMap<>();
    List<io.hbaseqos.operator.quota.UnreadableCell> strays;
    synchronized (this) {
      stray.clear();
      rows.keySet().forEach(r -> copy.putAll(read(r)));
      strays = List.copyOf(stray);
    }
    duringScan.run(); // the scan has read the table but not returned yet
    return new QuotaTableScan(copy, strays);
  }

  @Override
  public synchronized Map<Subject, SubjectQuota> readUser(String user) throws IOException {
    check();
    return read("u." + user);
  }

  @Override
  public synchronized SubjectQuota read(Subject subject) throws IOException {
    check();
    return read(rowKey(subject)).getOrDefault(subject, SubjectQuota.empty(subject));
  }

  // ---- the operator's writes ---------------------------------------------------------------

  @Override
  public void apply(QuotaOp op) throws IOException {
    check();
    beforeWrite.run();
    check();
    writes.incrementAndGet();
    if (op instanceof QuotaOp.DropEmptySettings drop) {
      if (refuseDrop) {
        throw new org.apache.hadoop.hbase.DoNotRetryIOException(
            "org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions (user=operator, "
                + "scope=hbase:quota, action=WRITE)");
      }
      synchronized (this) {
        String row = "u." + drop.subject().user();
        TreeMap<String, Cell> cells = rows.get(row);
        Cell own = cells == null ? null : cells.get("s");
        if (own != null && own.holdsNothing()) {
          cells.remove("s");
          if (cells.isEmpty()) {
            rows.remove(row);
          }
        }
      }
      return;
    }
    if (op instanceof QuotaOp.ClearUnreadable clear) {
      synchronized (this) {
        String row = org.apache.hadoop.hbase.util.Bytes.toString(clear.cell().row());
        String q = org.apache.hadoop.hbase.util.Bytes.toString(clear.cell().qualifier());
        TreeMap<String, Cell> cells = rows.get(row);
        Cell c = cells == null ? null : cells.get(q);
        if (c != null && c.junk() != null && java.util.Arrays.equals(c.junk(), clear.cell().value())) {
          cells.remove(q);
          if (cells.isEmpty()) {
            rows.remove(row);
          }
        } else if (c != null) {
          throw new IOException("the cell " + clear.cell().where() + " changed while it was being deleted");
        }
      }
      return;
    }
    setQuota(op);
  }

  /** Space usage to report, as a test sets it (HBase computes it from store file sizes). */
  public final Map<Subject, io.hbaseqos.operator.quota.SpaceUsage> usage = new java.util.concurrent.ConcurrentHashMap<>();
  public final AtomicInteger usageReads = new AtomicInteger();

  @Override
  public Map<Subject, io.hbaseqos.operator.quota.SpaceUsage> spaceUsage() throws IOException {
    check();
    usageReads.incrementAndGet();
    return Map.copyOf(usage);
  }

  /** Namespaces the model holds: each descriptor's configuration, as a test sets it. */
  public final Map<String, Map<String, String>> namespaces = new java.util.concurrent.ConcurrentHashMap<>();
  /** Tables and regions (online, reported by describe) per namespace, as a test sets them. */
  public final Map<String, int[]> namespaceCounts = new java.util.concurrent.ConcurrentHashMap<>();
  public final AtomicInteger namespaceListings = new AtomicInteger();
  public final AtomicInteger namespaceWrites = new AtomicInteger();

  @Override
  public Map<String, io.hbaseqos.operator.quota.NamespaceState> namespaces(ClusterInfo info) throws IOException {
    check();
    namespaceListings.incrementAndGet();
    Map<String, io.hbaseqos.operator.quota.NamespaceState> out = new java.util.TreeMap<>();
    namespaces.forEach((ns, conf) -> {
      int[] c = namespaceCounts.getOrDefault(ns, new int[2]);
      out.put(ns, new io.hbaseqos.operator.quota.NamespaceState(ns,
          io.hbaseqos.operator.quota.NamespaceLimits.of(conf), c[0], info.regionsByNamespace().getOrDefault(ns, 0)));
    });
    return out;
  }

  @Override
  public java.util.Optional<io.hbaseqos.operator.quota.NamespaceLimits> namespaceLimits(String namespace)
      throws IOException {
    check();
    Map<String, String> conf = namespaces.get(namespace);
    return conf == null ? java.util.Optional.empty()
        : java.util.Optional.of(io.hbaseqos.operator.quota.NamespaceLimits.of(conf));
  }

  @Override
  public boolean setNamespaceLimits(String namespace, io.hbaseqos.operator.quota.NamespaceLimits limits)
      throws IOException {
    check();
    beforeWrite.run();
    Map<String, String> conf = namespaces.get(namespace);
    if (conf == null) {
      return false;
    }
    namespaceWrites.incrementAndGet();
    namespaces.put(namespace, new java.util.concurrent.ConcurrentHashMap<>(limits.applyTo(conf)));
    return true;
  }

  /** The cluster-wide policy the model holds (RegionServer throttles, the two switches). */
  public volatile io.hbaseqos.operator.quota.RegionServerPolicy regionServerPolicy =
      new io.hbaseqos.operator.quota.RegionServerPolicy(Map.of(), false, true);

  @Override
  public synchronized io.hbaseqos.operator.quota.RegionServerPolicy readRegionServerPolicy() throws IOException {
    check();
    // as HBase stores them: a raw put into a policy row replaces its cell, which then is not settings
    var p = regionServerPolicy;
    List<io.hbaseqos.operator.quota.UnreadableCell> junk = new ArrayList<>();
    byte[] rs = policyJunk(io.hbaseqos.operator.quota.RegionServerPolicy.REGION_SERVER_ROW);
    byte[] exceed = policyJunk(io.hbaseqos.operator.quota.RegionServerPolicy.EXCEED_ROW);
    if (rs != null) {
      junk.add(unreadable(io.hbaseqos.operator.quota.RegionServerPolicy.REGION_SERVER_ROW, QuotaCells.found(rs), rs));
    }
    if (exceed != null && exceed.length != 1) {
      junk.add(unreadable(io.hbaseqos.operator.quota.RegionServerPolicy.EXCEED_ROW, exceed.length
          + " bytes that are not a switch (HBase stores one byte)", exceed));
    }
    return new io.hbaseqos.operator.quota.RegionServerPolicy(rs != null ? Map.of() : p.throttles(),
        exceed != null ? exceed.length == 1 && exceed[0] != 0 : p.exceedThrottle(), p.rpcThrottle(), junk);
  }

  private byte[] policyJunk(String row) {
    Cell c = rows.getOrDefault(row, new TreeMap<>()).get("s");
    return c == null ? null : c.junk();
  }

  private static io.hbaseqos.operator.quota.UnreadableCell unreadable(String row, String found, byte[] value) {
    return new io.hbaseqos.operator.quota.UnreadableCell(org.apache.hadoop.hbase.util.Bytes.toBytes(row),
        org.apache.hadoop.hbase.util.Bytes.toBytes("s"), found, value);
  }

  @Override
  public synchronized void apply(io.hbaseqos.operator.quota.RegionServerPolicy.Op op) throws IOException {
    check();
    beforeWrite.run();
    writes.incrementAndGet();
    String rsRow = io.hbaseqos.operator.quota.RegionServerPolicy.REGION_SERVER_ROW;
    String exceedRow = io.hbaseqos.operator.quota.RegionServerPolicy.EXCEED_ROW;
    if (op instanceof io.hbaseqos.operator.quota.RegionServerPolicy.Op.ClearUnreadable clear) {
      String row = org.apache.hadoop.hbase.util.Bytes.toString(clear.cell().row());
      byte[] now = policyJunk(row);
      if (now == null || !java.util.Arrays.equals(now, clear.cell().value())) {
        throw new IOException("the cell " + clear.cell().where() + " changed while it was being deleted; it is read "
            + "again");
      }
      rows.get(row).remove("s");
      var p = regionServerPolicy;
      regionServerPolicy = new io.hbaseqos.operator.quota.RegionServerPolicy(row.equals(rsRow) ? Map.of()
          : p.throttles(), row.equals(exceedRow) ? false : p.exceedThrottle(), p.rpcThrottle());
      return;
    }
    // HBase's own calls parse the cell they change first
    boolean throttleOp = op instanceof io.hbaseqos.operator.quota.RegionServerPolicy.Op.SetThrottle
        || op instanceof io.hbaseqos.operator.quota.RegionServerPolicy.Op.RemoveThrottle;
    if (throttleOp && policyJunk(rsRow) != null) {
      throw new IOException("org.apache.hadoop.hbase.exceptions.DeserializationException: Missing pb magic PBUF prefix");
    }
    // the switch's cell is read by a switch (a write of the throttles with exceed off does not read it)
    byte[] exceedJunk = policyJunk(exceedRow);
    if (op instanceof io.hbaseqos.operator.quota.RegionServerPolicy.Op.SwitchExceed && exceedJunk != null
        && exceedJunk.length != 1) {
      throw new IOException("java.lang.IllegalArgumentException: Array has wrong size: " + exceedJunk.length);
    }
    var next = regionServerPolicy.after(op);
    // as HBase checks: exceed switched on, or a RegionServer throttle changed while it is on
    boolean checked = op instanceof io.hbaseqos.operator.quota.RegionServerPolicy.Op.SwitchExceed e ? e.enable()
        : !(op instanceof io.hbaseqos.operator.quota.RegionServerPolicy.Op.SwitchRpcThrottle) && next.exceedThrottle();
    String refusal = checked ? io.hbaseqos.operator.quota.RegionServerPolicy.exceedRefusal(next.throttles()) : null;
    if (refusal != null) {
      throw new IOException(refusal);
    }
    regionServerPolicy = next;
    if (op instanceof io.hbaseqos.operator.quota.RegionServerPolicy.Op.SwitchExceed && exceedJunk != null) {
      rows.get(exceedRow).remove("s"); // the switch's put replaces the cell
    }
  }

  @Override
  public ClusterInfo describe() throws IOException {
    check();
    Map<String, Integer> regions = new java.util.HashMap<>();
    namespaceCounts.forEach((ns, c) -> regions.put(ns, c[1]));
    return new ClusterInfo(version, clusterId, 1, true, true, Map.of(), regions, null);
  }

  @Override
  public Duration writeSettleTime() {
    return Duration.ofSeconds(20);
  }

  private void check() throws IOException {
    if (down) {
      throw new ConnectException("Connection refused");
    }
  }

  @Override
  public void close() {}
}
