package io.hbaseqos.operator.hbase;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Optional;

/**
 * The JSON an HBase info server's {@code /conf?format=json} returns (Hadoop's
 * {@code Configuration.dumpConfiguration}: {@code {"properties":[{"key":..,"value":..},..]}}).
 * Pure: parsing only.
 */
public final class ServerConf {
  public static final String REFRESH_PERIOD_KEY = "hbase.quota.refresh.period";
  private static final ObjectMapper JSON = new ObjectMapper();

  private ServerConf() {}

  /** The property's value, empty when the dump does not contain it. */
  public static Optional<String> property(String confJson, String key) throws IOException {
    JsonNode root = JSON.readTree(confJson);
    JsonNode props = root == null ? null : root.get("properties");
    if (props == null || !props.isArray()) {
      throw new IOException("not a configuration dump: no 'properties' array");
    }
    for (JsonNode p : props) {
      if (key.equals(p.path("key").asText(null))) {
        JsonNode v = p.get("value");
        return Optional.ofNullable(v == null || v.isNull() ? null : v.asText());
      }
    }
    return Optional.empty();
  }

  /**
   * HBase's built-in {@code hbase.quota.refresh.period} (ms) for a version: 12 h since 2.6.3
   * (HBASE-29387, which also reloads quotas on every setQuota), 5 min before.
   */
  public static long defaultRefreshPeriodMs(String version) {
    int[] v = parseVersion(version);
    boolean since263 = v[0] > 2 || (v[0] == 2 && (v[1] > 6 || (v[1] == 6 && v[2] >= 3)));
    return since263 ? 43_200_000L : 300_000L;
  }

  static int[] parseVersion(String version) {
    int[] out = new int[3];
    if (version == null) {
      return out;
    }
    String[] parts = version.split("[.-]");
    for (int i = 0; i < 3 && i < parts.length; i++) {
      try {
        out[i] = Integer.parseInt(parts[i]);
      } catch (NumberFormatException e) {
        break;
      }
    }
    return out;
  }
}
