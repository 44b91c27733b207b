package io.hbaseqos.operator.usage;

import java.util.List;

/**
 * The cluster's block cache over the last sampling period: per RegionServer and in total.
 *
 * @param servers each server's, by name
 * @param capacityBytes what the servers' caches can hold together (cached plus free)
 * @param usedBytes what they hold
 * @param hitRatio the share of block requests served from the cache in the period (NaN: none, or the first sample)
 * @param evictionsPerSecond blocks evicted per second in the period (NaN: the first sample)
 */
public record BlockCache(List<Server> servers, long capacityBytes, long usedBytes, double hitRatio,
    double evictionsPerSecond) {

  public record Server(String name, long capacityBytes, long usedBytes, double hitRatio, double evictionsPerSecond) {}
}
