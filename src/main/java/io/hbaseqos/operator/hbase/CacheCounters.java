package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.usage.CacheCounts;
import java.util.Map;

/** A RegionServer's block cache from its metrics ({@code Server} record, {@code blockCache*}). Pure. */
public final class CacheCounters {
  private CacheCounters() {}

  /** Null when the server exports no block cache metrics. */
  public static CacheCounts of(Map<String, Double> values) {
    Double size = values.get(RegionServerMetrics.prometheusName("Server", "blockCacheSize"));
    Double free = values.get(RegionServerMetrics.prometheusName("Server", "blockCacheFreeSize"));
    if (size == null || free == null) {
      return null;
    }
    return new CacheCounts(Math.round(size), Math.round(free),
        Math.round(values.getOrDefault(RegionServerMetrics.prometheusName("Server", "blockCacheHitCount"), 0.0)),
        Math.round(values.getOrDefault(RegionServerMetrics.prometheusName("Server", "blockCacheMissCount"), 0.0)),
        Math.round(values.getOrDefault(RegionServerMetrics.prometheusName("Server", "blockCacheEvictionCount"), 0.0)));
  }
}
