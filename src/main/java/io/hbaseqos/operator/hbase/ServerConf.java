package io.hbaseqos.operator.hbase;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hbaseqos.operator.quota.RuntimeKey;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The JSON an HBase info server's {@code /conf?format=json} returns (Hadoop's
 * {@code Configuration.dumpConfiguration}: {@code {"properties":[{"key":..,"value":..},..]}}).
 * Pure: parsing only.
 */
public final class ServerConf {
  public static final String REFRESH_PERIOD_KEY = "hbase.quota.refresh.period";
  /** Every property the operator reads from a RegionServer: the refresh period and the quota runtime keys. */
  public static final Set<String> QUOTA_KEYS = Stream.concat(Stream.of(REFRESH_PERIOD_KEY),
      Arrays.stream(RuntimeKey.values()).map(RuntimeKey::key)).collect(Collectors.toUnmodifiableSet());
  private static final ObjectMapper JSON = new ObjectMapper();

  private ServerConf() {}

  /** The values of those of {@code keys} the dump contains (a key it lacks is not in the map). */
  public static Map<String, String> properties(String confJson, Set<String> keys) throws IOException {
    JsonNode root = JSON.readTree(confJson);
    JsonNode props = root == null ? null : root.get("properties");
    if (props == null || !props.isArray()) {
      throw new IOException("not a configuration dump: no 'properties' array");
    }
    Map<String, String> out = new HashMap<>();
    for (JsonNode p : props) {
      String key = p.path("key").asText(null);
      if (key != null && keys.contains(key)) {
        JsonNode v = p.get("value");
        if (v != null && !v.isNull()) {
          out.put(key, v.asText());
        }
      }
    }
    return out;
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
