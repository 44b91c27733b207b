package io.hbaseqos.operator.usage;

/**
 * A subject's cumulative counters on one RegionServer.
 *
 * @param reads reads it counted
 * @param writes writes it counted
 * @param throttled requests it refused with a throttling exception (null: not told apart)
 */
public record Counts(long reads, long writes, Long throttled) {}
