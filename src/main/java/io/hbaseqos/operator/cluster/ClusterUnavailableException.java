package io.hbaseqos.operator.cluster;

import java.io.IOException;
import java.time.Duration;

/** HBase could not be reached, or is known to be down and is not tried again before {@link #retryAfter()}. */
public class ClusterUnavailableException extends IOException {
  private final Duration retryAfter;

  public ClusterUnavailableException(String message, Duration retryAfter, Throwable cause) {
    super(message, cause);
    this.retryAfter = retryAfter;
  }

  public Duration retryAfter() {
    return retryAfter;
  }
}
