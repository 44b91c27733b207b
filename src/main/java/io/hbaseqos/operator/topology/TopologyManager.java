package io.hbaseqos.operator.topology;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.RegionServersSpec;
import io.hbaseqos.operator.api.TopologySpec;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads the node pool and the RegionServer pods from the informer caches, plans with
 * {@link TopologyPlanner}, and writes the objects of {@link ClusterObjects} that differ from what
 * is there (server-side apply, only when the content hash differs: a settled cluster writes
 * nothing).
 */
public final class TopologyManager {

  /** The outcome of one pass. */
  public record Outcome(TopologyPlanner.Plan plan, Layout.Result layout, List<PoolNode> pool, int written) {}

  private final InformerEventSource<Node, HBaseCluster> nodes;
  private final InformerEventSource<Pod, HBaseCluster> pods;
  private final InformerEventSource<StatefulSet, HBaseCluster> statefulSets;
  /** How long a hash seen or written for a ConfigMap, Service or PDB is trusted without a GET. */
  static final Duration VERIFY_EVERY = Duration.ofSeconds(60);

  private record Verified(String hash, long atNanos) {}

  private final Map<String, Verified> verified = new ConcurrentHashMap<>();

  public TopologyManager(InformerEventSource<Node, HBaseCluster> nodes, InformerEventSource<Pod, HBaseCluster> pods,
      InformerEventSource<StatefulSet, HBaseCluster> statefulSets) {
    this.nodes = nodes;
    this.pods = pods;
    this.statefulSets = statefulSets;
  }

  public static TopologyPlanner.Input input(RegionServersSpec rs) {
    return new TopologyPlanner.Input(rs.getReplicasPerNode(), rs.getHeap(), Memory.parse(rs.getNodeReserve()),
        rs.getBlockCacheFraction(), rs.getMemstoreFraction(), rs.getSiteProperties(), rs.getJvmOptions());
  }

  public List<PoolNode> pool(RegionServersSpec rs) {
    Map<String, String> selector = rs.getNodeSelector() == null ? Map.of() : rs.getNodeSelector();
    List<Toleration> tolerations = rs.getTolerations() == null ? List.of() : rs.getTolerations();
    return nodes.list(n -> matches(n, selector)).map(n -> toPoolNode(n, tolerations))
        .sorted(java.util.Comparator.comparing(PoolNode::name)).toList();
  }

  static boolean matches(Node n, Map<String, String> selector) {
    Map<String, String> labels = n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    return selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
  }

  public static PoolNode toPoolNode(Node n, List<Toleration> tolerations) {
    boolean cordoned = Boolean.TRUE.equals(n.getSpec() == null ? null : n.getSpec().getUnschedulable());
    boolean ready = n.getStatus() != null && n.getStatus().getConditions() != null && n.getStatus().getConditions()
        .stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    List<Taint> taints = n.getSpec() == null || n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints();
    boolean tolerated = taints.stream().filter(t -> "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
        .filter(t -> !"node.kubernetes.io/unschedulable".equals(t.getKey()))
        .allMatch(t -> tolerations.stream().anyMatch(tol -> tolerates(tol, t)));
    Quantity mem = n.getStatus() == null || n.getStatus().getAllocatable() == null ? null
        : n.getStatus().getAllocatable().get("memory");
    long bytes = mem == null ? 0 : mem.getNumericalAmount().longValue();
    return new PoolNode(n.getMetadata().getName(), bytes, ready && !cordoned && tolerated, cordoned);
  }

  static boolean tolerates(Toleration tol, Taint t) {
    boolean effect = tol.getEffect() == null || tol.getEffect().isEmpty() || tol.getEffect().equals(t.getEffect());
    if ("Exists".equals(tol.getOperator())) {
      return effect && (tol.getKey() == null || tol.getKey().isEmpty() || tol.getKey().equals(t.getKey()));
    }
    return effect && Objects.equals(tol.getKey(), t.getKey()) && Objects.equals(tol.getValue(), t.getValue());
  }

  public List<Layout.PodPlacement> regionServerPods(HBaseCluster hc) {
    String name = hc.getMetadata().getName();
    return pods.list(hc.getMetadata().getNamespace(), p -> p.getMetadata().getLabels() != null
        && name.equals(p.getMetadata().getLabels().get(ClusterObjects.CLUSTER_LABEL))
        && ClusterObjects.REGIONSERVER.equals(p.getMetadata().getLabels().get(ClusterObjects.COMPONENT_LABEL))
        && p.getMetadata().getDeletionTimestamp() == null)
        .map(p -> new Layout.PodPlacement(p.getSpec() == null || p.getSpec().getNodeName() == null ? ""
            : p.getSpec().getNodeName(), podReady(p))).toList();
  }

  static boolean podReady(Pod p) {
    return p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /**
   * Plans, writes what differs (unless paused or the plan is invalid), and reports the layout. An
   * object the API server refuses as invalid is an {@link IllegalArgumentException}: a spec error.
   */
  public Outcome reconcile(KubernetesClient client, HBaseCluster hc) {
    TopologySpec t = hc.getSpec().getTopology();
    int k = t.getRegionServers().getReplicasPerNode();
    List<PoolNode> pool = pool(t.getRegionServers());
    TopologyPlanner.Plan plan = TopologyPlanner.plan(input(t.getRegionServers()), pool);
    int written = 0;
    if (plan.ok() && !Boolean.TRUE.equals(t.getPaused())) {
      for (HasMetadata o : ClusterObjects.desired(hc, plan)) {
        String want = o.getMetadata().getAnnotations().get(ClusterObjects.HASH);
        try {
          if (!Objects.equals(hashOf(client, o, want), want)) {
            client.resource(o).fieldManager(ClusterObjects.MANAGED_BY).forceConflicts().serverSideApply();
            verified.put(key(o), new Verified(want, System.nanoTime()));
            written++;
          }
        } catch (KubernetesClientException e) {
          if (e.getCode() == 422) {
            // invalid: e.g. a volume source of spec.topology.volumes the API server refuses
            throw new IllegalArgumentException("the API server refused " + o.getKind() + " "
                + o.getMetadata().getName() + ": " + (e.getStatus() != null && e.getStatus().getMessage() != null
                    ? e.getStatus().getMessage() : e.getMessage()), e);
          }
          if (e.getCode() == 403) {
            // RBAC: the chart grants topology's writes only in the namespaces of topology.namespaces
            throw new IllegalArgumentException("the operator may not write " + o.getKind() + " "
                + o.getMetadata().getName() + " in namespace " + o.getMetadata().getNamespace() + " (list the "
                + "namespace in the Helm value topology.namespaces)", e);
          }
          throw e;
        }
      }
    }
    int desired = plan.ok() ? plan.replicas() : 0;
    Layout.Result layout = Layout.analyze(pool, k, desired, regionServerPods(hc));
    return new Outcome(plan, layout, pool, written);
  }

  /**
   * The content hash of the object as it is now: from the informer for StatefulSets; for the
   * others (no informer: the operator does not list ConfigMaps or Services) a GET, skipped when
   * this operator wrote or saw that hash less than {@link #VERIFY_EVERY} ago, so the pod events
   * that trigger most reconciles cost no requests.
   */
  private String hashOf(KubernetesClient client, HasMetadata desired, String want) {
    if (desired instanceof StatefulSet) {
      return statefulSets.get(ResourceID.fromResource(desired)).map(TopologyManager::hash).orElse(null);
    }
    Verified v = verified.get(key(desired));
    if (v != null && v.hash().equals(want) && System.nanoTime() - v.atNanos() < VERIFY_EVERY.toNanos()) {
      return want;
    }
    String actual = hash(client.resource(desired).get());
    if (actual != null) {
      verified.put(key(desired), new Verified(actual, System.nanoTime()));
    }
    return actual;
  }

  private static String hash(HasMetadata actual) {
    return actual == null || actual.getMetadata().getAnnotations() == null ? null
        : actual.getMetadata().getAnnotations().get(ClusterObjects.HASH);
  }

  private static String key(HasMetadata o) {
    return o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
  }

  /** Forgets what was verified of a cluster's objects (the cluster is gone). */
  public void forget(HBaseCluster hc) {
    String prefix = "/" + hc.getMetadata().getNamespace() + "/" + hc.getMetadata().getName() + "-";
    verified.keySet().removeIf(k -> k.contains(prefix));
  }
}
