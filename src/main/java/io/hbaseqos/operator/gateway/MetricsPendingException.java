package io.hbaseqos.operator.gateway;

import java.io.IOException;

/**
 * The reading asked for is being taken on the cluster's own threads: the caller comes back when it
 * is woken (or on its own schedule), never waits for it. Not a failure: a loop keeps its period.
 */
public final class MetricsPendingException extends IOException {
  public MetricsPendingException(String message) {
    super(message);
  }
}
