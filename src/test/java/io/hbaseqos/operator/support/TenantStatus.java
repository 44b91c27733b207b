package io.hbaseqos.operator.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.TenantQuota;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A TenantQuota's status and events as a test reads them from the API server. */
public final class TenantStatus {
  private TenantStatus() {}

  public static TenantQuota get(KubernetesClient k8s, String ns, String name) {
    return k8s.resources(TenantQuota.class).inNamespace(ns).withName(name).get();
  }

  public static Condition condition(KubernetesClient k8s, String ns, String name, String type) {
    TenantQuota tq = get(k8s, ns, name);
    return tq == null || tq.getStatus() == null ? null : tq.getStatus().condition(type).orElse(null);
  }

  /** Waits (30 s at most) until the tenant is Ready at its generation. */
  public static void awaitReady(KubernetesClient k8s, String ns, String name) {
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      TenantQuota tq = get(k8s, ns, name);
      assertThat(tq.getStatus()).isNotNull();
      assertThat(tq.getStatus().getObservedGeneration()).isEqualTo(tq.getMetadata().getGeneration());
      assertThat(condition(k8s, ns, name, "Ready").getStatus()).isEqualTo("True");
    });
  }

  /** Waits (30 s at most) until the tenant's Ready condition has this reason. */
  public static void awaitReason(KubernetesClient k8s, String ns, String name, String reason) {
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(condition(k8s, ns, name, "Ready"))
        .isNotNull().extracting(Condition::getReason).isEqualTo(reason));
  }

  /** The tenant's {@code status.qos} (null: no tenant, status or qos yet). */
  public static io.hbaseqos.operator.api.QosStatus qos(KubernetesClient k8s, String ns, String name) {
    TenantQuota tq = get(k8s, ns, name);
    return tq == null || tq.getStatus() == null ? null : tq.getStatus().getQos();
  }

  /** The tenant's {@code status.usage} (null: no tenant, status or usage yet). */
  public static io.hbaseqos.operator.api.UsageStatus usage(KubernetesClient k8s, String ns, String name) {
    TenantQuota tq = get(k8s, ns, name);
    return tq == null || tq.getStatus() == null ? null : tq.getStatus().getUsage();
  }

  /** The events about one object of the namespace. */
  public static List<Event> events(KubernetesClient k8s, String ns, String name) {
    return k8s.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName())).toList();
  }
}
