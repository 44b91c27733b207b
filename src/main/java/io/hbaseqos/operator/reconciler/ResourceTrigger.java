package io.hbaseqos.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import java.util.Set;

/** Lets the operator's own loops (resync, recovery, ownership changes) ask for a reconcile. */
public class ResourceTrigger<P extends HasMetadata> extends AbstractEventSource<String, P> {

  public ResourceTrigger(String name) {
    super(String.class, name);
  }

  public void trigger(ResourceID id) {
    if (isRunning() && getEventHandler() != null) {
      getEventHandler().handleEvent(new Event(id));
    }
  }

  public void trigger(HasMetadata resource) {
    trigger(ResourceID.fromResource(resource));
  }

  @Override
  public Set<String> getSecondaryResources(P primary) {
    return Set.of();
  }
}
