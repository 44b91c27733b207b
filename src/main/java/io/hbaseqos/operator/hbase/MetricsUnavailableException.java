package io.hbaseqos.operator.hbase;

import java.io.IOException;

/** RegionServer metrics could not be read; the cluster itself may be fine. */
public class MetricsUnavailableException extends IOException {
  public MetricsUnavailableException(String message) {
    super(message);
  }
}
