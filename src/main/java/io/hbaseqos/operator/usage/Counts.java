package io.hbaseqos.operator.usage;

/**
 * A subject's cumulative counters on one RegionServer.
 *
 * @param reads reads it counted, including {@code refusedInReads}
 * @param writes writes it counted
 * @param throttled requests it refused with a throttling exception (null: not told apart)
 * @param dataBytes the size of its store files on the server (null: not known, for a user)
 * @param refusedInReads refused requests HBase also counted among the reads (a throttled Get counts twice)
 */
public record Counts(long reads, long writes, Long throttled, Long dataBytes, long refusedInReads) {
  public Counts(long reads, long writes, Long throttled) {
    this(reads, writes, throttled, null, 0);
  }

  public Counts(long reads, long writes, Long throttled, Long dataBytes) {
    this(reads, writes, throttled, dataBytes, 0);
  }
}
