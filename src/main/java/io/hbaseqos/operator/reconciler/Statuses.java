package io.hbaseqos.operator.reconciler;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;

/** Status patches that carry only the status: no spec, no resourceVersion (the operator owns status alone). */
final class Statuses {
  private Statuses() {}

  static <S, R extends CustomResource<?, S>> R patchOf(R from, R patch, S status) {
    patch.setMetadata(new ObjectMetaBuilder().withName(from.getMetadata().getName())
        .withNamespace(from.getMetadata().getNamespace()).build());
    patch.setStatus(status);
    return patch;
  }
}
