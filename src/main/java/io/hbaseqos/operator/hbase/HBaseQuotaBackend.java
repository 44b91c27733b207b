package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.io.IOException;
import java.time.Clock;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import io.hbaseqos.operator.calibration.CounterReading;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.apache.hadoop.hbase.quotas.QuotaRetriever;
import org.apache.hadoop.hbase.quotas.QuotaScope;
import org.apache.hadoop.hbase.quotas.QuotaSettings;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.QuotaType;
import org.apache.hadoop.hbase.quotas.ThrottleSettings;
import org.apache.hadoop.hbase.quotas.ThrottleType;

/** {@link QuotaBackend} over the HBase Admin API. */
public final class HBaseQuotaBackend implements QuotaBackend {

  private static final TableName QUOTA_TABLE = TableName.valueOf("hbase", "quota");

  private final Connection connection;
  private final InfoServerConf refreshPeriods;
  private final RegionServerJmx jmx;

  private HBaseQuotaBackend(Connection connection, boolean https) {
    this.connection = connection;
    InfoServerHttp http = new InfoServerHttp(https, InfoServerConf.TIMEOUT);
    this.refreshPeriods = new InfoServerConf(ServerConf.REFRESH_PERIOD_KEY, http, Clock.systemUTC());
    this.jmx = new RegionServerJmx(http, Clock.systemUTC());
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
      overrides.forEach(conf::set);
    }
    return conf;
  }

  public static HBaseQuotaBackend connect(Configuration conf) throws IOException {
    return new HBaseQuotaBackend(ConnectionFactory.createConnection(conf), conf.getBoolean("hbase.ssl.enabled", false));
  }

  @Override
  public Map<Subject, SubjectQuota> readAll() throws IOException {
    return read(new QuotaFilter());
  }

  @Override
  public Map<Subject, SubjectQuota> readUser(String user) throws IOException {
    return read(new QuotaFilter().setUserFilter(Pattern.quote(user)));
  }

  private Map<Subject, SubjectQuota> read(QuotaFilter filter) throws IOException {
    // Not Admin.getQuota: its iterator logs and swallows scan failures, so an unreachable cluster
    // would look like an empty hbase:quota (and deletions would "succeed" without removing anything).
    Map<Subject, SubjectQuota> out = new LinkedHashMap<>();
    try (QuotaRetriever retriever = new QuotaRetriever(connection, filter)) {
      for (QuotaSettings s = retriever.next(); s != null; s = retriever.next()) {
        if (s.getRegionServer() != null) {
          continue; // RegionServer-wide throttles are not tenant subjects
        }
        Subject subject = new Subject(s.getUserName(), s.getNamespace(),
            s.getTableName() == null ? null : s.getTableName().getNameAsString());
        SubjectQuota current = out.getOrDefault(subject, SubjectQuota.empty(subject));
        if (s.getQuotaType() == QuotaType.GLOBAL_BYPASS) {
          current = current.withBypass(true);
        } else if (s instanceof ThrottleSettings t) {
          ThrottleKind kind = ThrottleKind.valueOf(t.getThrottleType().name());
          Limit.Scope scope = t.getQuotaScope() == QuotaScope.CLUSTER ? Limit.Scope.CLUSTER : Limit.Scope.MACHINE;
          current = current.with(kind, new Limit(Math.max(1, t.getSoftLimit()), t.getTimeUnit(), scope));
        } else {
          continue; // space quotas are not managed here
        }
        out.put(subject, current);
      }
    }
    return out;
  }

  @Override
  public void apply(QuotaOp op) throws IOException {
    QuotaSettings settings = toSettings(op);
    try (Admin admin = connection.getAdmin()) {
      admin.setQuota(settings);
    }
  }

  static QuotaSettings toSettings(QuotaOp op) {
    Subject s = op.subject();
    if (op instanceof QuotaOp.SetBypassGlobals b) {
      return QuotaSettingsFactory.bypassGlobals(s.user(), b.bypass());
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

  @Override
  public ClusterInfo describe() throws IOException {
    try (Admin admin = connection.getAdmin()) {
      ClusterMetrics m = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.HBASE_VERSION,
          ClusterMetrics.Option.CLUSTER_ID, ClusterMetrics.Option.LIVE_SERVERS));
      boolean quotas = admin.tableExists(QUOTA_TABLE);
      return new ClusterInfo(m.getHBaseVersion(), m.getClusterId(), m.getLiveServerMetrics().size(),
          admin.isRpcThrottleEnabled(), quotas, refreshPeriods.read(infoServers(m)));
    }
  }

  /** Live RegionServers: server name (host,port,startcode) to host and info port. */
  private static Map<String, Map.Entry<String, Integer>> infoServers(ClusterMetrics m) {
    Map<String, Map.Entry<String, Integer>> servers = new LinkedHashMap<>();
    m.getLiveServerMetrics().forEach((name, sm) ->
        servers.put(name.getServerName(), Map.entry(name.getHostname(), sm.getInfoServerPort())));
    return servers;
  }

  @Override
  public CounterReading userCounters(String user, Set<String> ops) throws IOException {
    return jmx.userCounters(() -> {
      try (Admin admin = connection.getAdmin()) {
        return infoServers(admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS)));
      }
    }, user, ops);
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
