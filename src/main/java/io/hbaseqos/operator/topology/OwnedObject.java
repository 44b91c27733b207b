package io.hbaseqos.operator.topology;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.hbaseqos.operator.api.HBaseCluster;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.Ignore;
import io.javaoperatorsdk.operator.processing.dependent.Matcher;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One Kubernetes object of an HBaseCluster's topology, as a JOSDK dependent: its desired state is
 * the object {@link ClusterObjects} builds from the spec and the plan of this reconcile (handed
 * over in the context by {@link TopologyManager}), its actual state the informer's copy. It is
 * written (server-side apply, as {@value ClusterObjects#MANAGED_BY}) only when the content hash
 * ({@value ClusterObjects#HASH}) differs, so a settled cluster writes nothing. Removal is the
 * garbage collector's (owner reference), never the operator's: {@link #delete} does nothing,
 * although JOSDK calls it for a dependent whose reconcile precondition no longer holds.
 */
@Ignore
final class OwnedObject<R extends HasMetadata> extends CRUDKubernetesDependentResource<R, HBaseCluster> {

  /** What {@link TopologyManager} hands the dependents for one reconcile. */
  record Desired(Map<String, HasMetadata> byKey, AtomicInteger written) {
    static final String KEY = "hbaseqos.io/topology-desired";
  }

  private final Function<HBaseCluster, String> objectName;

  /**
   * @param dependentName unique in the workflow
   * @param objectName the object's name for a cluster
   */
  OwnedObject(Class<R> type, String dependentName, Function<HBaseCluster, String> objectName) {
    super(type, dependentName);
    this.objectName = objectName;
  }

  /** What the API server or RBAC refused of an object: an error of the spec or of the installation. */
  static final class Refused extends IllegalArgumentException {
    Refused(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Nothing: an object is removed with its HBaseCluster by the garbage collector, and one the spec
   * stops asking for (a PodDisruptionBudget turned off) is kept. JOSDK calls this for a dependent
   * whose reconcile precondition does not hold, garbage-collected or not; the operator has no
   * right to delete, and a refused delete would fail every reconcile of the cluster.
   */
  @Override
  public void delete(HBaseCluster hc, Context<HBaseCluster> context) {
    // kept: see above
  }

  static String key(HasMetadata o) {
    return o.getKind() + "/" + o.getMetadata().getName();
  }

  private static Desired desiredOf(Context<HBaseCluster> context) {
    return context.managedWorkflowAndDependentResourceContext().getMandatory(Desired.KEY, Desired.class);
  }

  @Override
  protected R desired(HBaseCluster hc, Context<HBaseCluster> context) {
    HasMetadata o = desiredOf(context).byKey().get(kind() + "/" + objectName.apply(hc));
    if (o == null) {
      throw new IllegalStateException("no desired " + kind() + " " + objectName.apply(hc));
    }
    return resourceType().cast(o);
  }

  private String kind() {
    return io.fabric8.kubernetes.api.model.HasMetadata.getKind(resourceType());
  }

  /** The object is known by name: no need to build it to find it among the informer's. */
  @Override
  protected ResourceID targetSecondaryResourceID(HBaseCluster hc, Context<HBaseCluster> context) {
    return new ResourceID(objectName.apply(hc), hc.getMetadata().getNamespace());
  }

  /** As desired when it carries the desired content's hash: what the operator wrote, untouched since. */
  @Override
  public Matcher.Result<R> match(R actual, HBaseCluster hc, Context<HBaseCluster> context) {
    R desired = desired(hc, context);
    return Matcher.Result.computed(Objects.equals(hash(actual), hash(desired)), desired);
  }

  private static String hash(HasMetadata o) {
    return o.getMetadata().getAnnotations() == null ? null : o.getMetadata().getAnnotations().get(ClusterObjects.HASH);
  }

  @Override
  public R create(R desired, HBaseCluster hc, Context<HBaseCluster> context) {
    return apply(desired, context);
  }

  @Override
  public R update(R actual, R desired, HBaseCluster hc, Context<HBaseCluster> context) {
    return apply(desired, context);
  }

  /**
   * Server-side apply of the whole object under the operator's field manager (fields it no longer
   * declares are dropped). An object the API server refuses as invalid, or one the operator may not
   * write, is {@link Refused}: an error of the spec or of the installation.
   */
  private R apply(R desired, Context<HBaseCluster> context) {
    try {
      R written = context.getClient().resource(desired).fieldManager(ClusterObjects.MANAGED_BY).forceConflicts()
          .serverSideApply();
      desiredOf(context).written().incrementAndGet();
      return written;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 422) {
        // invalid: e.g. a volume source of spec.topology.volumes the API server refuses
        throw new Refused("the API server refused " + desired.getKind() + " "
            + desired.getMetadata().getName() + ": " + (e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage() : e.getMessage()), e);
      }
      if (e.getCode() == 403) {
        // RBAC: the chart grants topology's writes only in the namespaces of topology.namespaces
        throw new Refused("the operator may not write " + desired.getKind() + " "
            + desired.getMetadata().getName() + " in namespace " + desired.getMetadata().getNamespace() + " (list the "
            + "namespace in the Helm value topology.namespaces)", e);
      }
      throw e;
    }
  }
}
