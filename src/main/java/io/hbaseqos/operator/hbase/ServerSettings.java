package io.hbaseqos.operator.hbase;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * The quota properties one RegionServer runs with, read from its info server's {@code /conf} in one
 * request: each key found with its value (a key not in the map is not set, so HBase's default
 * applies), or why the endpoint could not be read.
 */
public record ServerSettings(Map<String, String> values, String error) {
  public static ServerSettings of(Map<String, String> values) {
    return new ServerSettings(Collections.unmodifiableMap(new HashMap<>(values)), null);
  }

  public static ServerSettings unreadable(String error) {
    return new ServerSettings(Map.of(), error);
  }

  public boolean readable() {
    return error == null;
  }
}
