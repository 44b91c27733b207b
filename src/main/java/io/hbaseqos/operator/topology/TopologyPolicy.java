package io.hbaseqos.operator.topology;

import io.hbaseqos.operator.api.PodVolume;
import io.hbaseqos.operator.api.TopologySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the platform lets HBaseClusters ask of the operator's pods, from the operator's installation
 * (Helm values {@code topology.namespaces} and {@code topology.allowHostPath}): the namespaces where
 * it may run RegionServers and masters (where its ServiceAccount may write StatefulSets), and whether
 * their pods may mount host paths. Pure.
 *
 * @param namespaces where topology is allowed; empty: wherever the operator's RBAC lets it write
 * @param allowHostPath whether {@code spec.topology.volumes} may hold a {@code hostPath} (a pod with
 *     one is refused by the {@code restricted} and {@code baseline} Pod Security Standards)
 */
public record TopologyPolicy(Optional<Set<String>> namespaces, boolean allowHostPath) {
  /** No namespace restriction beyond RBAC, no host paths: an operator started without the chart. */
  public static final TopologyPolicy DEFAULT = new TopologyPolicy(Optional.empty(), false);

  public TopologyPolicy {
    namespaces = namespaces.map(n -> Set.copyOf(new TreeSet<>(n)));
  }

  /** Refusals of an HBaseCluster's topology in {@code namespace}, each as "field: reason". */
  public List<String> refusals(String namespace, TopologySpec t) {
    List<String> errors = new ArrayList<>();
    if (t == null) {
      return errors;
    }
    if (namespaces.isPresent() && !namespaces.get().contains(namespace)) {
      errors.add("spec.topology: this operator does not run HBase in namespace " + namespace + " (the platform lists "
          + "the namespaces it may in the Helm value topology.namespaces"
          + (namespaces.get().isEmpty() ? ", empty here" : ": " + String.join(", ", new TreeSet<>(namespaces.get())))
          + ")");
    }
    List<PodVolume> volumes = t.getVolumes() == null ? List.of() : t.getVolumes();
    for (int i = 0; i < volumes.size(); i++) {
      if (!allowHostPath && volumes.get(i).source().containsKey("hostPath")) {
        errors.add("spec.topology.volumes[" + i + "].hostPath: this operator's installation does not allow host paths "
            + "(Helm value topology.allowHostPath); use a persistentVolumeClaim");
      }
    }
    return errors;
  }
}
