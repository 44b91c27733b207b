package io.hbaseqos.operator.topology;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.hbaseqos.operator.api.HBaseCluster;
import io.hbaseqos.operator.api.RegionServersSpec;
import io.hbaseqos.operator.api.TopologySpec;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Workflow;
import io.javaoperatorsdk.operator.processing.dependent.workflow.WorkflowBuilder;
import io.javaoperatorsdk.operator.processing.dependent.workflow.WorkflowReconcileResult;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * An HBaseCluster's topology on Kubernetes: reads the node pool and the RegionServer pods from the
 * informer caches, plans with {@link TopologyPlanner}, and runs a JOSDK workflow of its own with
 * one dependent per owned object ({@link OwnedObject}: the hbase-site.xml ConfigMap, the two
 * headless Services, the two StatefulSets and their PodDisruptionBudgets). Each dependent writes
 * its object only when the content hash differs, so a settled cluster writes nothing; nothing is
 * written while the topology is paused or its plan refused. It knows nothing of HBase.
 */
public final class TopologyManager {

  /** The outcome of one pass. */
  public record Outcome(TopologyPlanner.Plan plan, Layout.Result layout, List<PoolNode> pool, int written) {}

  private final InformerEventSource<Node, HBaseCluster> nodes;
  private final InformerEventSource<Pod, HBaseCluster> pods;
  private final List<EventSource<?, HBaseCluster>> eventSources;
  private final Workflow<HBaseCluster> workflow;
  /** The dependents in the order a failure is reported: the first refused in this order is named. */
  private final List<OwnedObject<?>> order;

  /**
   * Builds the informers and the workflow.
   *
   * @param namespaces where topology may run (the Helm value topology.namespaces), where the
   *     operator may list and watch the ConfigMaps, Services and PodDisruptionBudgets it writes;
   *     empty: the namespaces the controller watches
   */
  public TopologyManager(EventSourceContext<HBaseCluster> context, Optional<Set<String>> namespaces) {
    SecondaryToPrimaryMapper<Node> everyTopology = node -> context.getPrimaryCache()
        .list(hc -> hc.getSpec() != null && hc.getSpec().getTopology() != null).map(ResourceID::fromResource)
        .collect(Collectors.toSet());
    nodes = new InformerEventSource<>(
        InformerEventSourceConfiguration.from(Node.class, HBaseCluster.class).withName("nodes")
            .withWatchAllNamespaces().withSecondaryToPrimaryMapper(everyTopology)
            .withOnUpdateFilter(TopologyManager::nodeChangeMatters).build(), context);
    pods = informer(context, Pod.class, "pods", Optional.empty());
    InformerEventSource<StatefulSet, HBaseCluster> statefulSets =
        informer(context, StatefulSet.class, "statefulsets", Optional.empty());
    List<EventSource<?, HBaseCluster>> sources = new ArrayList<>(List.of(nodes, pods, statefulSets));
    OwnedObject<ConfigMap> config = new OwnedObject<>(ConfigMap.class, "hbase-site", ClusterObjects::config);
    OwnedObject<Service> rsService = new OwnedObject<>(Service.class, "regionserver-service",
        ClusterObjects::regionServers);
    OwnedObject<Service> masterService = new OwnedObject<>(Service.class, "master-service", ClusterObjects::masters);
    OwnedObject<StatefulSet> rs = new OwnedObject<>(StatefulSet.class, "regionserver-statefulset",
        ClusterObjects::regionServers);
    OwnedObject<StatefulSet> masters = new OwnedObject<>(StatefulSet.class, "master-statefulset",
        ClusterObjects::masters);
    OwnedObject<PodDisruptionBudget> rsBudget = new OwnedObject<>(PodDisruptionBudget.class,
        "regionserver-disruption-budget", ClusterObjects::regionServers);
    OwnedObject<PodDisruptionBudget> masterBudget = new OwnedObject<>(PodDisruptionBudget.class,
        "master-disruption-budget", ClusterObjects::masters);
    rs.setEventSource(statefulSets);
    masters.setEventSource(statefulSets);
    if (namespaces.map(n -> !n.isEmpty()).orElse(true)) {
      // topology may run somewhere: one informer per kind, shared by that kind's dependents
      InformerEventSource<ConfigMap, HBaseCluster> configMaps = informer(context, ConfigMap.class, "configmaps",
          namespaces);
      InformerEventSource<Service, HBaseCluster> services = informer(context, Service.class, "services", namespaces);
      // the disruption controller rewrites a budget's status at every pod's change of readiness:
      // the pods' own informer reports those; a budget's spec or annotations changing matters
      InformerEventSource<PodDisruptionBudget, HBaseCluster> budgets = informer(context, PodDisruptionBudget.class,
          "poddisruptionbudgets", namespaces, (now, before) -> !Objects.equals(now.getMetadata().getGeneration(),
              before.getMetadata().getGeneration()) || !Objects.equals(now.getMetadata().getAnnotations(),
              before.getMetadata().getAnnotations()));
      config.setEventSource(configMaps);
      rsService.setEventSource(services);
      masterService.setEventSource(services);
      rsBudget.setEventSource(budgets);
      masterBudget.setEventSource(budgets);
      sources.addAll(List.of(configMaps, services, budgets));
    }
    eventSources = List.copyOf(sources);
    order = List.of(config, rsService, masterService, rs, masters, rsBudget, masterBudget);
    // the pods mount the ConfigMap and are named through their headless Service; a budget is not
    // written while spec.topology.podDisruptionBudget is off, and one written before is kept
    // (OwnedObject.delete does nothing)
    Condition<PodDisruptionBudget, HBaseCluster> budgetWanted = (dr, hc, ctx) ->
        !Boolean.FALSE.equals(hc.getSpec().getTopology().getPodDisruptionBudget());
    workflow = new WorkflowBuilder<HBaseCluster>().withThrowExceptionFurther(false)
        .addDependentResource(config)
        .addDependentResource(rsService)
        .addDependentResource(masterService)
        .addDependentResourceAndConfigure(rs).dependsOn(config, rsService)
        .addDependentResourceAndConfigure(masters).dependsOn(config, masterService)
        .addDependentResourceAndConfigure(rsBudget).withReconcilePrecondition(budgetWanted)
        .addDependentResourceAndConfigure(masterBudget).withReconcilePrecondition(budgetWanted)
        .build();
  }

  /** The informers to register with the controller: nodes, pods and one per kind of owned object. */
  public List<EventSource<?, HBaseCluster>> eventSources() {
    return eventSources;
  }

  /** An informer of the operator's objects (by label), each mapped to its cluster by the cluster label. */
  private static <R extends HasMetadata> InformerEventSource<R, HBaseCluster> informer(
      EventSourceContext<HBaseCluster> context, Class<R> type, String name, Optional<Set<String>> namespaces) {
    return informer(context, type, name, namespaces, null);
  }

  private static <R extends HasMetadata> InformerEventSource<R, HBaseCluster> informer(
      EventSourceContext<HBaseCluster> context, Class<R> type, String name, Optional<Set<String>> namespaces,
      OnUpdateFilter<R> onUpdate) {
    SecondaryToPrimaryMapper<R> byLabel = o -> o.getMetadata().getLabels() == null
        || o.getMetadata().getLabels().get(ClusterObjects.CLUSTER_LABEL) == null ? Set.of()
        : Set.of(new ResourceID(o.getMetadata().getLabels().get(ClusterObjects.CLUSTER_LABEL),
            o.getMetadata().getNamespace()));
    InformerEventSourceConfiguration.Builder<R> b = InformerEventSourceConfiguration.from(type, HBaseCluster.class)
        .withName(name).withLabelSelector("app.kubernetes.io/managed-by=" + ClusterObjects.MANAGED_BY)
        .withSecondaryToPrimaryMapper(byLabel);
    // namespaces of their own (where the chart grants list and watch), not the controller's, whatever those become
    namespaces.ifPresent(n -> b.withNamespaces(n).withFollowControllerNamespacesChanges(false));
    if (onUpdate != null) {
      b.withOnUpdateFilter(onUpdate);
    }
    return new InformerEventSource<>(b.build(), context);
  }

  /** Node status heartbeats change nothing the planner reads; labels, taints, cordon, readiness and memory do. */
  static boolean nodeChangeMatters(Node now, Node before) {
    return !Objects.equals(now.getMetadata().getLabels(), before.getMetadata().getLabels())
        || !Objects.equals(now.getSpec(), before.getSpec())
        || !Objects.equals(toPoolNode(now, List.of()), toPoolNode(before, List.of()));
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
   * Plans, runs the workflow unless paused or the plan is refused, and reports the layout. An
   * object the API server refuses as invalid, or one the operator may not write, is an
   * {@link IllegalArgumentException}: a spec error.
   */
  public Outcome reconcile(HBaseCluster hc, Context<HBaseCluster> context) {
    TopologySpec t = hc.getSpec().getTopology();
    int k = t.getRegionServers().getReplicasPerNode();
    List<PoolNode> pool = pool(t.getRegionServers());
    TopologyPlanner.Plan plan = TopologyPlanner.plan(input(t.getRegionServers()), pool);
    int written = 0;
    if (plan.ok() && !Boolean.TRUE.equals(t.getPaused())) {
      Map<String, HasMetadata> desired = new LinkedHashMap<>();
      ClusterObjects.desired(hc, plan).forEach(o -> desired.put(OwnedObject.key(o), o));
      OwnedObject.Desired handed = new OwnedObject.Desired(desired, new AtomicInteger());
      context.managedWorkflowAndDependentResourceContext().put(OwnedObject.Desired.KEY, handed);
      WorkflowReconcileResult result = workflow.reconcile(hc, context);
      if (result.erroredDependentsExist()) {
        throw firstError(result.getErroredDependents());
      }
      written = handed.written().get();
    }
    int desiredReplicas = plan.ok() ? plan.replicas() : 0;
    Layout.Result layout = Layout.analyze(pool, k, desiredReplicas, regionServerPods(hc));
    return new Outcome(plan, layout, pool, written);
  }

  /**
   * What the API server or RBAC refused first, in the order of {@link #order} (so the same object is
   * named on every retry); else the first other failure, as it was thrown.
   */
  private RuntimeException firstError(Map<DependentResource, Exception> errors) {
    for (OwnedObject<?> d : order) {
      if (errors.get(d) instanceof OwnedObject.Refused refused) {
        return refused;
      }
    }
    Exception e = order.stream().map(errors::get).filter(Objects::nonNull).findFirst()
        .orElseGet(() -> errors.values().iterator().next());
    return e instanceof RuntimeException re ? re : new IllegalStateException(e);
  }
}
