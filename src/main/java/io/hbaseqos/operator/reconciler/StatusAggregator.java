package io.hbaseqos.operator.reconciler;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.hbaseqos.operator.api.ConditionedStatus;
import io.hbaseqos.operator.api.Conditions;
import io.hbaseqos.operator.limit.Decision;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One reconcile's status of one resource, and the events that go with its conditions. It owns the
 * rules both reconcilers follow: a condition keeps its transition time unless its status flips; an
 * event tied to a condition is recorded only when the condition's reason (or, where the message is
 * what matters, its message) differs from the status last written, never on every retry; and the
 * status is written once, at the end, as the difference from the last written one (nothing when
 * nothing changed, see {@link Statuses}).
 */
final class StatusAggregator<S extends ConditionedStatus> {
  private final CustomResource<?, S> resource;
  private final EventRecorder events;
  /** The status as last written (an empty one before the first write). */
  final S old;
  /** The status being built: a copy of {@link #old} until changed. */
  final S st;
  final Long gen;
  final Instant now;

  StatusAggregator(CustomResource<?, S> resource, Class<S> type, Supplier<S> empty, EventRecorder events,
      Instant now) {
    this.resource = resource;
    this.events = events;
    S written = Statuses.current(resource);
    this.old = written == null ? empty.get() : written;
    this.st = Serialization.unmarshal(Serialization.asJson(old), type);
    this.gen = resource.getMetadata().getGeneration();
    this.now = now;
  }

  void set(String type, boolean status, String reason, String message) {
    Conditions.set(st, type, status, reason, message, gen, now);
  }

  void set(String type, String status, String reason, String message) {
    Conditions.set(st, type, status, reason, message, gen, now);
  }

  void remove(String type) {
    Conditions.remove(st, type);
  }

  /**
   * Whether the status last written was of this generation with the condition True: what it showed
   * as held then was what this generation asks for, so a difference found now was made outside the
   * operator (the drift rule of tenants, namespaces and the cluster-wide policy).
   */
  boolean heldAtThisGeneration(String type) {
    return Objects.equals(old.getObservedGeneration(), gen) && Conditions.isTrue(old, type);
  }

  /** The condition's reason in the status last written (null: no such condition). */
  String reasonWas(String type) {
    return Conditions.reason(old, type);
  }

  /**
   * Sets the condition and records {@code note} when its reason differs from the one last written.
   * Returns whether it did.
   */
  boolean setNotingReason(String type, String status, String reason, String message, Decision.Note note) {
    boolean changed = !Objects.equals(reason, reasonWas(type));
    if (changed && note != null) {
      note(note);
    }
    set(type, status, reason, message);
    return changed;
  }

  boolean setNotingReason(String type, boolean status, String reason, String message, Decision.Note note) {
    return setNotingReason(type, status ? "True" : "False", reason, message, note);
  }

  /**
   * Sets the condition and records {@code note} when its reason or message differs from the one
   * last written (a message that names what failed). Returns whether it did.
   */
  boolean setNotingMessage(String type, boolean status, String reason, String message, Decision.Note note) {
    boolean changed = !Objects.equals(reason, reasonWas(type)) || !Objects.equals(message,
        old.condition(type).map(c -> c.getMessage()).orElse(null));
    if (changed) {
      note(note);
    }
    set(type, status, reason, message);
    return changed;
  }

  /** A condition as a control loop reports it (see {@link Decision.Report}). */
  void apply(Decision.Report r) {
    if (r.status() == null) {
      remove(r.type());
      return;
    }
    String was = reasonWas(r.type());
    boolean same = r.reason().equals(was);
    if (!same && r.onChange() != null) {
      note(r.onChange());
    }
    String oldMessage = old.condition(r.type()).map(c -> c.getMessage()).orElse(null);
    set(r.type(), r.status(), r.reason(), same && r.stableMessage() && oldMessage != null ? oldMessage : r.message());
  }

  void note(Decision.Note n) {
    if (n.warning()) {
      events.warning(resource, n.reason(), n.message());
    } else {
      events.normal(resource, n.reason(), n.message());
    }
  }

  void warning(String reason, String message) {
    events.warning(resource, reason, message);
  }

  void normal(String reason, String message) {
    events.normal(resource, reason, message);
  }

  /** Writes what changed of the status (nothing when nothing did), with the generation observed. */
  /**
   * Writes what changed, unless the fence says this replica no longer leads: a leader that was
   * paused past its lease must not write the status of a reconcile it finished after resuming over
   * the new leader's (status patches carry no resourceVersion), or the new leader would no longer
   * see its own settled status and would report the repair of a stale write as a plain apply.
   */
  void write(KubernetesClient client, io.hbaseqos.operator.cluster.WriteFence fence) {
    try {
      fence.check();
    } catch (io.hbaseqos.operator.cluster.WriteFence.NotLeaderException e) {
      org.jboss.logging.Logger.getLogger(StatusAggregator.class).debugf("status of %s not written: %s",
          resource.getMetadata().getName(), e.getMessage());
      return;
    }
    st.setObservedGeneration(gen);
    Statuses.write(client, resource, old, st);
  }
}
