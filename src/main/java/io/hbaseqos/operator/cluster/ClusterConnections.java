package io.hbaseqos.operator.cluster;

import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.gateway.MetricsGateway;
import io.hbaseqos.operator.hbase.BackendFactory;
import io.hbaseqos.operator.metrics.OperatorMetrics;
import io.hbaseqos.operator.metrics.PrometheusClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The operator's connections to HBase, one {@link ClusterState} per HBaseCluster resource
 * ({@code namespace/name}). A state is made the first time anything needs it, from the resource
 * itself: a TenantQuota reconciled (or deleted) before its HBaseCluster was ever reconciled gets
 * the same connection, so no decision waits for, or guesses about, a registry that is still filling.
 */
public class ClusterConnections implements AutoCloseable {
  private final BackendFactory factory;
  private final OperatorMetrics metrics;
  private final Clock clock;
  private final Duration callTimeout;
  private final Map<String, ClusterState> states = new ConcurrentHashMap<>();
  private final Map<String, MetricsGateway> gateways = new ConcurrentHashMap<>();
  private final PrometheusClient prometheus = new PrometheusClient();

  private final WriteFence fence;

  public ClusterConnections(BackendFactory factory, OperatorMetrics metrics, Clock clock, Duration callTimeout) {
    this(factory, metrics, clock, callTimeout, WriteFence.NONE);
  }

  /** @param fence checked before every write to any cluster (leader election: only the lease holder writes) */
  public ClusterConnections(BackendFactory factory, OperatorMetrics metrics, Clock clock, Duration callTimeout,
      WriteFence fence) {
    this.fence = fence;
    this.factory = factory;
    this.metrics = metrics;
    this.clock = clock;
    this.callTimeout = callTimeout;
  }

  /** Checked before every write to HBase, and before a status write (only the leader writes). */
  public WriteFence fence() {
    return fence;
  }

  public static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  public static String key(HBaseCluster hc) {
    return key(hc.getMetadata().getNamespace(), hc.getMetadata().getName());
  }

  /** The cluster's connection state, made on first use; follows a changed connection spec. */
  public ClusterState stateFor(HBaseCluster hc) {
    String key = key(hc);
    ConnectionSpec connection = hc.getSpec().getConnection();
    ClusterState state = states.computeIfAbsent(key, k -> {
      ClusterState s = new ClusterState(k, connection, factory, metrics, clock, callTimeout, fence);
      metrics.clusterUp(k, s::isAvailable);
      return s;
    });
    state.updateConnection(connection, hc.getMetadata().getGeneration());
    state.manages(hc.getStatus() == null ? null : hc.getStatus().getClusterId(),
        hc.getMetadata().getAnnotations() == null ? null
            : hc.getMetadata().getAnnotations().get(ClusterState.MOVE_ANNOTATION));
    return state;
  }

  /**
   * The metric reads of a cluster's state (RegionServer info servers, Prometheus), made for the
   * connection the state holds: a changed
   * connection (a new spec object in the state) gets a new gateway, in one step, and the old one is
   * closed (a read in flight on it fails as the reader's {@code MetricsUnavailable}).
   */
  public MetricsGateway gatewayFor(ClusterState state) {
    ConnectionSpec connection = state.connection();
    return gateways.compute(state.id(), (k, g) -> {
      if (g != null && g.isFor(connection, state)) {
        return g;
      }
      if (g != null) {
        g.close();
      }
      return new MetricsGateway(connection, state, factory.infoServers(connection, metrics.infoServerRequests()),
          state::liveInfoServers, prometheus, clock, state.id());
    });
  }

  public Optional<ClusterState> get(String key) {
    return Optional.ofNullable(states.get(key));
  }

  /** The cluster's identity (HBase's cluster id) once its connection has answered, else null. */
  public String identity(String key) {
    ClusterState s = states.get(key);
    return s == null ? null : s.identity();
  }

  public void remove(String key) {
    ClusterState state = states.remove(key);
    if (state != null) {
      state.close();
    }
    MetricsGateway gateway = gateways.remove(key);
    if (gateway != null) {
      gateway.close();
    }
    metrics.forgetCluster(key);
  }

  @Override
  public void close() {
    states.values().forEach(ClusterState::close);
    states.clear();
    gateways.values().forEach(MetricsGateway::close);
    gateways.clear();
  }
}
