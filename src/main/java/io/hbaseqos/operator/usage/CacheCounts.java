package io.hbaseqos.operator.usage;

/**
 * One RegionServer's block cache as its metrics say: the bytes cached and free now, and cumulative
 * hits, misses and evictions.
 */
public record CacheCounts(long usedBytes, long freeBytes, long hits, long misses, long evictions) {}
