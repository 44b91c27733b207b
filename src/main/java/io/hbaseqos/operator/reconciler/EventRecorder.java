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
 *
 * <p>Repeats are aggregated as Kubernetes does it: the same type, reason and message about the
 * same object within {@link #AGGREGATE_WINDOW} raise the existing Event's {@code count} and
 * {@code lastTimestamp} instead of creating another Event (a cleanup retried every few seconds
 * for an hour is one Event with a count, not hundreds).
 */
public class EventRecorder implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(EventRecorder.class);
  public static final String COMPONENT = "hbase-qos-operator";
  static final int NORMAL_PER_SECOND = 20;
  static final int NORMAL_BURST = 200;
  static final java.time.Duration AGGREGATE_WINDOW = java.time.Duration.ofHours(1);
  private static final int REMEMBERED = 4096;

  /** An Event already created: its name, how often it was raised, when last. */
  private record Sent(String name, int count, java.time.Instant last) {}

  private final java.util.LinkedHashMap<String, Sent> sent = new java.util.LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(java.util.Map.Entry<String, Sent> eldest) {
      return size() > REMEMBERED;
    }
  };

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
    java.time.Instant at = clock.instant();
    String now = at.toString();
    String msg = message.length() > 1000 ? message.substring(0, 1000) : message;
    String key = about.getMetadata().getUid() + "|" + type + "|" + reason + "|" + msg;
    Sent r;
    synchronized (sent) {
      Sent s = sent.get(key);
      r = s != null && s.last().plus(AGGREGATE_WINDOW).isAfter(at) ? new Sent(s.name(), s.count() + 1, at)
          : new Sent(about.getMetadata().getName() + "." + UUID.randomUUID().toString().substring(0, 8), 1, at);
      sent.put(key, r);
    }
    String namespace = about.getMetadata().getNamespace();
    if (r.count() > 1) {
      executor.execute(() -> {
        try {
          client.v1().events().inNamespace(namespace).withName(r.name()).patch(
              io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
              "{\"count\":" + r.count() + ",\"lastTimestamp\":\"" + now + "\"}");
        } catch (RuntimeException e) {
          if (e instanceof io.fabric8.kubernetes.client.KubernetesClientException k && k.getCode() == 403) {
            // the operator's RBAC lacks patch on events: every repeat would be a new Event
            LOG.warnf("could not raise the count of event %s (forbidden): %s", reason, e.getMessage());
          } else {
            LOG.debugf("could not update event %s: %s", reason, e.getMessage()); // expired: created anew next time
          }
          synchronized (sent) {
            sent.remove(key);
          }
        }
      });
      return;
    }
    var event = new EventBuilder()
        .withNewMetadata()
        .withName(r.name())
        .withNamespace(namespace)
        .endMetadata()
        .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(about.getApiVersion()).withKind(about.getKind())
            .withName(about.getMetadata().getName()).withNamespace(namespace)
            .withUid(about.getMetadata().getUid()).build())
        .withType(type).withReason(reason)
        .withMessage(msg)
        .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
        .withNewSource().withComponent(COMPONENT).endSource()
        .withReportingComponent(COMPONENT)
        .build();
    executor.execute(() -> {
      try {
        client.v1().events().inNamespace(namespace).resource(event).create();
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
