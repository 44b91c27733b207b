package io.hbaseqos.operator.hbase;

import io.hbaseqos.operator.usage.CacheCounts;
import java.util.Map;

/**
 * A RegionServer's block cache from its metrics ({@code Server} record, {@code blockCache*}). Hits and
 * misses are of data blocks where the server counts them apart ({@code blockCacheDataHitCount}): index and
 * bloom blocks are small and nearly always cached, so over all blocks a table seven times the cache read
 * 70% hits while its data blocks hit 13% ({@code bin/benchmark cache}). Pure.
 */
public final class CacheCounters {
  private CacheCounters() {}

  /** Null when the server exports no block cache metrics. */
  public static CacheCounts of(Map<String, Double> values) {
    Double size = values.get(RegionServerMetrics.prometheusName("Server", "blockCacheSize"));
    Double free = values.get(RegionServerMetrics.prometheusName("Server", "blockCacheFreeSize"));
    if (size == null || free == null) {
      return null;
    }
    Double dataHits = values.get(RegionServerMetrics.prometheusName("Server", "blockCacheDataHitCount"));
    Double dataMisses = values.get(RegionServerMetrics.prometheusName("Server", "blockCacheDataMissCount"));
    boolean data = dataHits != null && dataMisses != null;
    return new CacheCounts(Math.round(size), Math.round(free),
        data ? Math.round(dataHits) : Math.round(values.getOrDefault(RegionServerMetrics.prometheusName("Server",
            "blockCacheHitCount"), 0.0)),
        data ? Math.round(dataMisses) : Math.round(values.getOrDefault(RegionServerMetrics.prometheusName("Server",
            "blockCacheMissCount"), 0.0)),
        Math.round(values.getOrDefault(RegionServerMetrics.prometheusName("Server", "blockCacheEvictionCount"), 0.0)));
  }
}
