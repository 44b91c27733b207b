package io.hbaseqos.operator.reconciler;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Kubernetes Events for the operator's resources. Sent from one background thread with a bounded
 * queue: a slow API server delays events, never reconciles, and a flood of them is dropped.
 * Normal events (applies, connections) share a budget of {@value #NORMAL_PER_SECOND}/s with a
 * burst of {@value #NORMAL_BURST}: a first sync of thousands of TenantQuotas would otherwise
 * create one Event each, a third of the API server's writes. Warnings are never budgeted. Every
 * event is logged; dropped ones are counted ({@code hbaseqos_events_dropped_total}).
 */
public class EventRecorder implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(EventRecorder.class);
  public static final String COMPONENT = "hbase-qos-operator";
  static final int NORMAL_PER_SECOND = 20;
  static final int NORMAL_BURST = 200;

  private final KubernetesClient client;
  private final Clock clock;
  private final Runnable onDrop;
  private final TokenBucket normalBudget = new TokenBucket(NORMAL_PER_SECOND, NORMAL_BURST, System::nanoTime);
  private final ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
      new ArrayBlockingQueue<>(10_000), r -> {
        Thread t = new Thread(r, "hbaseqos-events");
        t.setDaemon(true);
        return t;
      }, (r, e) -> dropped());

  /** @param onDrop called for every event not sent (budget spent or queue full) */
  public EventRecorder(KubernetesClient client, Clock clock, Runnable onDrop) {
    this.client = client;
    this.clock = clock;
    this.onDrop = onDrop;
  }

  private void dropped() {
    onDrop.run();
  }

  public void normal(HasMetadata about, String reason, String message) {
    emit(about, "Normal", reason, message);
  }

  public void warning(HasMetadata about, String reason, String message) {
    emit(about, "Warning", reason, message);
  }

  private void emit(HasMetadata about, String type, String reason, String message) {
    LOG.infof("%s %s/%s %s: %s", about.getKind(), about.getMetadata().getNamespace(), about.getMetadata().getName(),
        reason, message);
    if ("Normal".equals(type) && !normalBudget.tryTake()) {
      dropped();
      return;
    }
    String now = clock.instant().toString();
    var event = new EventBuilder()
        .withNewMetadata()
        .withName(about.getMetadata().getName() + "." + UUID.randomUUID().toString().substring(0, 8))
        .withNamespace(about.getMetadata().getNamespace())
        .endMetadata()
        .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(about.getApiVersion()).withKind(about.getKind())
            .withName(about.getMetadata().getName()).withNamespace(about.getMetadata().getNamespace())
            .withUid(about.getMetadata().getUid()).build())
        .withType(type).withReason(reason)
        .withMessage(message.length() > 1000 ? message.substring(0, 1000) : message)
        .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
        .withNewSource().withComponent(COMPONENT).endSource()
        .withReportingComponent(COMPONENT)
        .build();
    executor.execute(() -> {
      try {
        client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
      } catch (RuntimeException e) {
        LOG.debugf("could not record event %s: %s", reason, e.getMessage());
      }
    });
  }

  @Override
  public void close() {
    executor.shutdown();
  }
}
