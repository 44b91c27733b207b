package io.hbaseqos.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.hbaseqos.operator.ownership.Ownership;
import io.javaoperatorsdk.operator.health.InformerHealthIndicator;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.informer.ManagedInformerEventSource;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Informer caches as {@link Ownership} reads them, with whether they have synced. */
final class Informers {
  private Informers() {}

  /** Whether an informer-backed cache is running and has listed every resource once. */
  static boolean synced(Object cache) {
    return cache instanceof ManagedInformerEventSource<?, ?, ?> m && m.isRunning()
        && !m.informerHealthIndicators().isEmpty()
        && m.informerHealthIndicators().values().stream().allMatch(InformerHealthIndicator::hasSynced);
  }

  /** The namespaces' labels from a cache of Namespaces. */
  static Ownership.NamespaceLabels labels(IndexerResourceCache<Namespace> cache) {
    return new Ownership.NamespaceLabels() {
      @Override
      public boolean synced() {
        return Informers.synced(cache);
      }

      @Override
      public Map<String, String> of(String namespace) {
        return cache.get(new ResourceID(namespace))
            .map(n -> n.getMetadata().getLabels() == null ? Map.<String, String>of() : n.getMetadata().getLabels())
            .orElse(null);
      }
    };
  }

  static <T extends HasMetadata> Ownership.Cache<T> view(IndexerResourceCache<T> cache) {
    return new Ownership.Cache<>() {
      @Override
      public boolean synced() {
        return Informers.synced(cache);
      }

      @Override
      public List<T> byIndex(String index, String key) {
        return cache.byIndex(index, key);
      }

      @Override
      public Stream<T> list() {
        return cache.list();
      }
    };
  }
}
