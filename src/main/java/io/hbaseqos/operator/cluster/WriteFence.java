package io.hbaseqos.operator.cluster;

import java.io.IOException;

/**
 * Whether this process may write to HBase now. With leader election, only the replica that holds
 * the lease writes: a leader paused past its lease (a stopped process, a long GC, a frozen VM) and
 * then resumed must not write the older limits it still holds in memory over the new leader's.
 * Checked on the HBase call thread immediately before each write.
 */
@FunctionalInterface
public interface WriteFence {

  /** Throws {@link NotLeaderException} when this process may not write now. */
  void check() throws NotLeaderException;

  /** No leader election: one operator, which always writes. */
  WriteFence NONE = () -> { };

  /** A write refused because this process does not (or may no longer) hold the lease. */
  final class NotLeaderException extends IOException {
    public NotLeaderException(String message) {
      super(message);
    }
  }
}
