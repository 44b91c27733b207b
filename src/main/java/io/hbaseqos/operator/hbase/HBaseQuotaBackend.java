package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.NamespaceLimits;
import io.hbaseqos.operator.quota.NamespaceState;
import io.hbaseqos.operator.quota.RegionServerPolicy;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.SpaceLimit;
import io.hbaseqos.operator.quota.SpaceUsage;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ClusterConnection;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.quotas.QuotaScope;
import org.apache.hadoop.hbase.quotas.QuotaSettings;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.SpaceViolationPolicy;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.generated.MasterProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.QuotaProtos;
import org.apache.hadoop.hbase.util.Bytes;

/** {@link QuotaBackend} over the HBase Admin API. */
public final class HBaseQuotaBackend implements QuotaBackend {

  private static final TableName QUOTA_TABLE = TableName.valueOf("hbase", "quota");

  private final Connection connection;
  private final Duration writeSettle;

  private HBaseQuotaBackend(Connection connection, Duration writeSettle) {
    this.connection = connection;
    this.writeSettle = writeSettle;
  }

  /**
   * Client settings that make an unreachable cluster fail within seconds instead of retrying for
   * minutes (HBase's defaults), so reconcile threads never pile up behind a dead cluster. An
   * operator-wide {@code siteFile} (may be null) overrides them, and {@code overrides} (the
   * cluster's clientConfig) override everything.
   */
  public static Configuration configuration(String quorum, String znodeParent, java.nio.file.Path siteFile,
      Map<String, String> overrides) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", quorum);
    if (znodeParent != null) {
      conf.set("zookeeper.znode.parent", znodeParent);
    }
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("hbase.client.pause", 200);
    conf.setInt("hbase.rpc.timeout", 10_000);
    conf.setInt("hbase.client.operation.timeout", 20_000);
    conf.setInt("hbase.client.meta.operation.timeout", 20_000);
    conf.setInt("zookeeper.recovery.retry", 1);
    conf.setInt("zookeeper.session.timeout", 20_000);
    if (siteFile != null) {
      Configuration site = new Configuration(false);
      try {
        site.addResource(siteFile.toUri().toURL());
      } catch (java.net.MalformedURLException e) {
        throw new IllegalArgumentException("not a file: " + siteFile, e);
      }
      for (Map.Entry<String, String> e : site) {
        conf.set(e.getKey(), e.getValue());
      }
    }
    if (overrides != null) {
      // a refused key never reaches a connection, also while the HBaseCluster reports it refused
      overrides.forEach((k, v) -> {
        if (ClientConfigKeys.refusal(k, v) == null) {
          conf.set(k, v);
        }
      });
    }
    return conf;
  }

  public static HBaseQuotaBackend connect(Configuration conf) throws IOException {
    // the client retries a call for up to its operation timeout; allow for one more RPC on top
    Duration settle = Duration.ofMillis(conf.getLong("hbase.client.operation.timeout", 1_200_000)
        + conf.getLong("hbase.rpc.timeout", 60_000));
    return new HBaseQuotaBackend(ConnectionFactory.createConnection(conf), settle);
  }

  @Override
  public TableState table(String table) throws IOException {
    TableName name = TableName.valueOf(table);
    try (Admin admin = connection.getAdmin()) {
      if (!admin.tableExists(name)) {
        return new TableState(false, null);
      }
      return new TableState(true, admin.getRegions(name).stream()
          .mapToLong(org.apache.hadoop.hbase.client.RegionInfo::getRegionId).min().stream().boxed().findFirst()
          .orElse(null));
    }
  }

  @Override
  public QuotaTableScan readAll() throws IOException {
    // Not Admin.getQuota / QuotaRetriever: its iterator logs and swallows scan failures (an
    // unreachable cluster would look like an empty hbase:quota), and it stops at the first row
    // that parses to no setting (a user row holding only bypass_globals=false), hiding every row
    // after it. Each cell is parsed for itself here: one that is not quota settings is reported.
    QuotaCells.Parsed out = new QuotaCells.Parsed();
    try (Table t = connection.getTable(QUOTA_TABLE);
        ResultScanner scanner = t.getScanner(new Scan().addFamily(QuotaCells.FAMILY))) {
      for (Result r = scanner.next(); r != null; r = scanner.next()) {
        QuotaCells.parse(r, out);
      }
    }
    return new QuotaTableScan(out.subjects(), out.stray());
  }

  @Override
  public Map<Subject, SubjectQuota> readUser(String user) throws IOException {
    try (Table t = connection.getTable(QUOTA_TABLE)) {
      Result r = t.get(new Get(Bytes.toBytes("u." + user)).addFamily(QuotaCells.FAMILY));
      return r.isEmpty() ? Map.of() : QuotaCells.parse(r);
    }
  }

  @Override
  public SubjectQuota read(Subject subject) throws IOException {
    if (subject.user() != null) {
      return readUser(subject.user()).getOrDefault(subject, SubjectQuota.empty(subject));
    }
    byte[] row = subject.kind() == Subject.Kind.TABLE
        ? Bytes.add(Bytes.toBytes("t."), TableName.valueOf(subject.table()).getName())
        : Bytes.toBytes("n." + subject.namespace());
    try (Table t = connection.getTable(QUOTA_TABLE)) {
      Result r = t.get(new Get(row).addFamily(QuotaCells.FAMILY));
      return r.isEmpty() ? SubjectQuota.empty(subject)
          : QuotaCells.parse(r).getOrDefault(subject, SubjectQuota.empty(subject));
    }
  }

  @Override
  public void apply(QuotaOp op) throws IOException {
    if (op instanceof QuotaOp.DropEmptySettings drop) {
      dropEmptySettings(drop.subject().user());
      return;
    }
    if (op instanceof QuotaOp.ClearUnreadable clear) {
      clearUnreadable(clear.cell());
      return;
    }
    QuotaSettings settings = toSettings(op);
    try (Admin admin = connection.getAdmin()) {
      admin.setQuota(settings);
    }
  }

  /**
   * Deletes the user's own settings cell while it holds nothing (compare-and-delete on its exact
   * bytes, so a setting written meanwhile is never lost). HBase's API cannot remove a cell that
   * stores {@code bypass_globals=false}; the master keeps no state of its own for it, and no
   * RegionServer limit changes (the cell limits nothing). Needs write access to hbase:quota.
   */
  private void dropEmptySettings(String user) throws IOException {
    byte[] row = Bytes.toBytes("u." + user);
    try (Table t = connection.getTable(QUOTA_TABLE)) {
      for (int attempt = 0; attempt < 3; attempt++) {
        byte[] value = t.get(new Get(row).addColumn(QuotaCells.FAMILY, QuotaCells.OWN_SETTINGS))
            .getValue(QuotaCells.FAMILY, QuotaCells.OWN_SETTINGS);
        if (value == null || !QuotaCells.holdsNothing(QuotaCells.quotas(value))) {
          return; // gone already, or a setting was written meanwhile: nothing to drop
        }
        if (t.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(QuotaCells.FAMILY, QuotaCells.OWN_SETTINGS, value)
            .build(new Delete(row).addColumns(QuotaCells.FAMILY, QuotaCells.OWN_SETTINGS))).isSuccess()) {
          return;
        }
      }
      throw new IOException("the settings cell of user " + user + " kept changing while it was being removed");
    }
  }

  /**
   * Deletes one cell that is not quota settings, only while it holds exactly the bytes read (a
   * compare-and-delete: a setting written there meanwhile is never lost). Needs write access to
   * hbase:quota; the master keeps no state of its own for such a cell.
   */
  private void clearUnreadable(io.hbaseqos.operator.quota.UnreadableCell cell) throws IOException {
    byte[] row = cell.row();
    byte[] qualifier = cell.qualifier();
    try (Table t = connection.getTable(QUOTA_TABLE)) {
      boolean deleted = t.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(QuotaCells.FAMILY, qualifier,
          cell.value()).build(new Delete(row).addColumns(QuotaCells.FAMILY, qualifier))).isSuccess();
      if (!deleted && t.exists(new Get(row).addColumn(QuotaCells.FAMILY, qualifier))) {
        throw new IOException("the cell " + cell.where() + " changed while it was being deleted; it is read again");
      }
    }
  }

  static QuotaSettings toSettings(QuotaOp op) {
    Subject s = op.subject();
    if (op instanceof QuotaOp.SetBypassGlobals b) {
      return QuotaSettingsFactory.bypassGlobals(s.user(), b.bypass());
    }
    if (op instanceof QuotaOp.SetSpace sp) {
      SpaceViolationPolicy policy = SpaceViolationPolicy.valueOf(sp.limit().policy().name());
      return switch (s.kind()) {
        case TABLE -> QuotaSettingsFactory.limitTableSpace(TableName.valueOf(s.table()), sp.limit().bytes(), policy);
        case NAMESPACE -> QuotaSettingsFactory.limitNamespaceSpace(s.namespace(), sp.limit().bytes(), policy);
        default -> throw new IllegalArgumentException("HBase has no space quota for " + s);
      };
    }
    if (op instanceof QuotaOp.RemoveSpace) {
      return switch (s.kind()) {
        case TABLE -> QuotaSettingsFactory.removeTableSpaceLimit(TableName.valueOf(s.table()));
        case NAMESPACE -> QuotaSettingsFactory.removeNamespaceSpaceLimit(s.namespace());
        default -> throw new IllegalArgumentException("HBase has no space quota for " + s);
      };
    }
    if (op instanceof QuotaOp.SetThrottle set) {
      ThrottleType type = ThrottleType.valueOf(set.kind().name());
      Limit l = set.limit();
      QuotaScope scope = l.scope() == Limit.Scope.CLUSTER ? QuotaScope.CLUSTER : QuotaScope.MACHINE;
      return switch (s.kind()) {
        case USER -> QuotaSettingsFactory.throttleUser(s.user(), type, l.amount(), l.timeUnit(), scope);
        case USER_TABLE -> QuotaSettingsFactory.throttleUser(s.user(), TableName.valueOf(s.table()), type,
            l.amount(), l.timeUnit(), scope);
        case USER_NAMESPACE -> QuotaSettingsFactory.throttleUser(s.user(), s.namespace(), type, l.amount(),
            l.timeUnit(), scope);
        case TABLE -> QuotaSettingsFactory.throttleTable(TableName.valueOf(s.table()), type, l.amount(),
            l.timeUnit(), scope);
        case NAMESPACE -> QuotaSettingsFactory.throttleNamespace(s.namespace(), type, l.amount(), l.timeUnit(),
            scope);
      };
    }
    ThrottleType type = ThrottleType.valueOf(((QuotaOp.RemoveThrottle) op).kind().name());
    return switch (s.kind()) {
      case USER -> QuotaSettingsFactory.unthrottleUserByThrottleType(s.user(), type);
      case USER_TABLE -> QuotaSettingsFactory.unthrottleUserByThrottleType(s.user(), TableName.valueOf(s.table()), type);
      case USER_NAMESPACE -> QuotaSettingsFactory.unthrottleUserByThrottleType(s.user(), s.namespace(), type);
      case TABLE -> QuotaSettingsFactory.unthrottleTableByThrottleType(TableName.valueOf(s.table()), type);
      case NAMESPACE -> QuotaSettingsFactory.unthrottleNamespaceByThrottleType(s.namespace(), type);
    };
  }

  /**
   * One {@code GetQuotaStates} call to the master: every table's and namespace's space quota
   * snapshot. HBase's Admin API offers this only per table or namespace, and each of those calls
   * fetches all snapshots from the master to return one (so N subjects would cost N full reads).
   */
  @Override
  public Map<Subject, SpaceUsage> spaceUsage() throws IOException {
    if (!(connection instanceof ClusterConnection cc)) {
      throw new IOException("space quota usage needs HBase's own connection implementation");
    }
    MasterProtos.MasterService.BlockingInterface master = cc.getMaster();
    QuotaProtos.GetQuotaStatesResponse states;
    try {
      states = master.getQuotaStates(null, QuotaProtos.GetQuotaStatesRequest.getDefaultInstance());
    } catch (org.apache.hbase.thirdparty.com.google.protobuf.ServiceException e) {
      throw ProtobufUtil.handleRemoteException(e);
    } finally {
      releaseMaster(master);
    }
    Map<Subject, SpaceUsage> out = new LinkedHashMap<>();
    for (QuotaProtos.GetQuotaStatesResponse.TableQuotaSnapshot t : states.getTableSnapshotsList()) {
      out.put(Subject.table(ProtobufUtil.toTableName(t.getTableName()).getNameWithNamespaceInclAsString()),
          usage(t.getSnapshot()));
    }
    for (QuotaProtos.GetQuotaStatesResponse.NamespaceQuotaSnapshot n : states.getNsSnapshotsList()) {
      out.put(Subject.namespace(n.getNamespace()), usage(n.getSnapshot()));
    }
    return out;
  }

  private static SpaceUsage usage(QuotaProtos.SpaceQuotaSnapshot s) {
    QuotaProtos.SpaceQuotaStatus st = s.getQuotaStatus();
    SpaceLimit.Policy policy = st.hasViolationPolicy() ? SpaceLimit.Policy.valueOf(st.getViolationPolicy().name()) : null;
    return new SpaceUsage(s.getQuotaUsage(), s.getQuotaLimit(), st.getInViolation(), policy);
  }

  /** The master stub HBase hands out counts its users; give it back (its type is not public). */
  private static void releaseMaster(Object master) {
    try {
      java.lang.reflect.Method close = master.getClass().getMethod("close");
      close.setAccessible(true);
      close.invoke(master);
    } catch (ReflectiveOperationException | RuntimeException e) {
      // only bookkeeping: the stub is shared and closed with the connection
    }
  }

  @Override
  public Map<String, NamespaceState> namespaces(ClusterInfo info) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      Map<String, Integer> tables = new java.util.HashMap<>();
      for (TableName t : admin.listTableNames()) { // disabled tables too: HBase counts them against maxtables
        tables.merge(t.getNamespaceAsString(), 1, Integer::sum);
      }
      Map<String, NamespaceState> out = new LinkedHashMap<>();
      for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
        out.put(d.getName(), new NamespaceState(d.getName(), NamespaceLimits.of(d.getConfiguration()),
            tables.getOrDefault(d.getName(), 0), info.regionsByNamespace().getOrDefault(d.getName(), 0)));
      }
      return out;
    }
  }

  @Override
  public java.util.Optional<NamespaceLimits> namespaceLimits(String namespace) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      return java.util.Optional.of(NamespaceLimits.of(admin.getNamespaceDescriptor(namespace).getConfiguration()));
    } catch (NamespaceNotFoundException e) {
      return java.util.Optional.empty();
    }
  }

  @Override
  public boolean setNamespaceLimits(String namespace, NamespaceLimits limits) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      NamespaceDescriptor now = admin.getNamespaceDescriptor(namespace);
      NamespaceDescriptor.Builder next = NamespaceDescriptor.create(namespace);
      limits.applyTo(now.getConfiguration()).forEach(next::addConfiguration);
      admin.modifyNamespace(next.build());
      return true;
    } catch (NamespaceNotFoundException e) {
      return false;
    }
  }

  /** HBase's rows for the cluster-wide policy (QuotaTableUtil's keys; only "all" is ever read for servers). */
  private static final byte[] REGION_SERVER_ROW = Bytes.toBytes("r.all");
  private static final byte[] EXCEED_ROW = Bytes.toBytes("exceedThrottleQuota");

  @Override
  public RegionServerPolicy readRegionServerPolicy() throws IOException {
    try (Table t = connection.getTable(QUOTA_TABLE); Admin admin = connection.getAdmin()) {
      Result[] rows = t.get(List.of(new Get(REGION_SERVER_ROW).addColumn(QuotaCells.FAMILY, QuotaCells.OWN_SETTINGS),
          new Get(EXCEED_ROW).addColumn(QuotaCells.FAMILY, QuotaCells.OWN_SETTINGS)));
      byte[] rs = rows[0].getValue(QuotaCells.FAMILY, QuotaCells.OWN_SETTINGS);
      byte[] exceed = rows[1].getValue(QuotaCells.FAMILY, QuotaCells.OWN_SETTINGS);
      // each cell for itself: one that is not settings is reported, and read as its part unset
      List<io.hbaseqos.operator.quota.UnreadableCell> unreadable = new java.util.ArrayList<>();
      Map<io.hbaseqos.operator.quota.ThrottleKind, io.hbaseqos.operator.quota.Limit> throttles = Map.of();
      if (rs != null) {
        try {
          throttles = QuotaCells.throttles(QuotaCells.quotas(rs));
        } catch (IOException | RuntimeException e) {
          unreadable.add(new io.hbaseqos.operator.quota.UnreadableCell(REGION_SERVER_ROW, QuotaCells.OWN_SETTINGS,
              QuotaCells.found(rs), rs));
        }
      }
      boolean exceedOn = false;
      if (exceed != null && exceed.length == 1) {
        exceedOn = Bytes.toBoolean(exceed);
      } else if (exceed != null) {
        unreadable.add(new io.hbaseqos.operator.quota.UnreadableCell(EXCEED_ROW, QuotaCells.OWN_SETTINGS,
            exceed.length + " bytes that are not a switch (HBase stores one byte)", exceed));
      }
      return new RegionServerPolicy(throttles, exceedOn, admin.isRpcThrottleEnabled(), unreadable);
    }
  }

  @Override
  public void apply(RegionServerPolicy.Op op) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      if (op instanceof RegionServerPolicy.Op.SetThrottle set) {
        admin.setQuota(QuotaSettingsFactory.throttleRegionServer("all", ThrottleType.valueOf(set.kind().name()),
            set.limit().amount(), set.limit().timeUnit()));
      } else if (op instanceof RegionServerPolicy.Op.RemoveThrottle remove) {
        admin.setQuota(QuotaSettingsFactory.unthrottleRegionServerByThrottleType("all",
            ThrottleType.valueOf(remove.kind().name())));
      } else if (op instanceof RegionServerPolicy.Op.SwitchExceed exceed) {
        admin.exceedThrottleQuotaSwitch(exceed.enable());
      } else if (op instanceof RegionServerPolicy.Op.SwitchRpcThrottle rpc) {
        admin.switchRpcThrottle(rpc.enable());
      } else if (op instanceof RegionServerPolicy.Op.ClearUnreadable clear) {
        clearUnreadable(clear.cell());
      }
    }
  }

  @Override
  public ClusterInfo describe() throws IOException {
    try (Admin admin = connection.getAdmin()) {
      ClusterMetrics m = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.HBASE_VERSION,
          ClusterMetrics.Option.CLUSTER_ID, ClusterMetrics.Option.LIVE_SERVERS));
      boolean quotas = admin.tableExists(QUOTA_TABLE);
      Boolean rpcThrottle = null;
      String refused = null;
      try {
        rpcThrottle = admin.isRpcThrottleEnabled();
      } catch (IOException e) {
        refused = io.hbaseqos.operator.quota.HBaseRefusals.permissionDenied(e).orElseThrow(() -> e);
      }
      return new ClusterInfo(m.getHBaseVersion(), m.getClusterId(), m.getLiveServerMetrics().size(),
          rpcThrottle, quotas, infoServers(m), regionsByNamespace(m), refused);
    }
  }

  /** Regions online per namespace, from the live RegionServers' reports. */
  private static Map<String, Integer> regionsByNamespace(ClusterMetrics m) {
    Map<String, Integer> regions = new java.util.HashMap<>();
    m.getLiveServerMetrics().values().forEach(sm -> sm.getRegionMetrics().keySet().forEach(r ->
        regions.merge(RegionInfo.getTable(r).getNamespaceAsString(), 1, Integer::sum)));
    return regions;
  }

  /** Live RegionServers: server name (host,port,startcode) to host and info port. */
  private static Map<String, Map.Entry<String, Integer>> infoServers(ClusterMetrics m) {
    Map<String, Map.Entry<String, Integer>> servers = new LinkedHashMap<>();
    m.getLiveServerMetrics().forEach((name, sm) ->
        servers.put(name.getServerName(), Map.entry(name.getHostname(), sm.getInfoServerPort())));
    return servers;
  }

  @Override
  public Duration writeSettleTime() {
    return writeSettle;
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (IOException e) {
      // closing a broken connection: nothing left to release
    }
  }
}
