package io.hbaseqos.operator.support;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/** Node objects for topology tests: plain ones whose status the test sets, or kwok-managed ones. */
public final class Nodes {
  public static final String KWOK_ANNOTATION = "kwok.x-k8s.io/node";

  private Nodes() {}

  static Node node(String name, String pool, String memory, boolean kwok) {
    NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name)
        .withLabels(Map.of("hbaseqos.io/test-pool", pool, "kubernetes.io/hostname", name, "type", "kwok"))
        .withAnnotations(kwok ? Map.of(KWOK_ANNOTATION, "fake") : Map.of()).endMetadata();
    if (kwok) {
      b.withNewSpec().addNewTaint().withKey("kwok.x-k8s.io/node").withValue("fake").withEffect("NoSchedule").endTaint()
          .endSpec();
    }
    return b.withNewStatus()
        .withAllocatable(Map.of("memory", new Quantity(memory), "cpu", new Quantity("32"), "pods", new Quantity("110")))
        .withCapacity(Map.of("memory", new Quantity(memory), "cpu", new Quantity("32"), "pods", new Quantity("110")))
        .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady").endCondition()
        .endStatus().build();
  }

  /** A Ready node with the given allocatable memory; the API server keeps the status the test sets. */
  public static void createReady(KubernetesClient k8s, String name, String pool, String memory) {
    Node n = node(name, pool, memory, false);
    created(k8s, n);
  }

  /** A node kwok pretends to run: it keeps it Ready and runs the pods scheduled to it. */
  public static void createKwok(KubernetesClient k8s, String name, String pool, String memory) {
    Node n = node(name, pool, memory, true);
    created(k8s, n);
  }

  /**
   * Creates the node, sets its status, and removes the not-ready taint the API server's
   * TaintNodesByCondition admission adds (the node lifecycle controller would, once Ready).
   */
  private static void created(KubernetesClient k8s, Node n) {
    Node created = k8s.nodes().resource(n).create();
    created.setStatus(n.getStatus());
    k8s.nodes().resource(created).updateStatus();
    k8s.nodes().withName(n.getMetadata().getName()).edit(x -> {
      if (x.getSpec().getTaints() != null) {
        x.getSpec().getTaints().removeIf(t -> t.getKey().startsWith("node.kubernetes.io/"));
      }
      return x;
    });
  }

  public static void deletePool(KubernetesClient k8s, String pool) {
    k8s.nodes().withLabel("hbaseqos.io/test-pool", pool).delete();
  }
}
