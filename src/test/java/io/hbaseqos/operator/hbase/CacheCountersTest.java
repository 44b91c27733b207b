package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.usage.CacheCounts;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CacheCountersTest {
  static Map<String, Double> server(boolean dataApart) {
    Map<String, Double> m = new HashMap<>();
    m.put("server_block_cache_size", 50.0);
    m.put("server_block_cache_free_size", 10.0);
    m.put("server_block_cache_hit_count", 700.0);
    m.put("server_block_cache_miss_count", 300.0);
    m.put("server_block_cache_eviction_count", 5.0);
    if (dataApart) {
      m.put("server_block_cache_data_hit_count", 130.0);
      m.put("server_block_cache_data_miss_count", 870.0);
    }
    return m;
  }

  @Test
  void hitsAreOfDataBlocksWhereTheServerCountsThemApart() {
    assertThat(CacheCounters.of(server(true))).isEqualTo(new CacheCounts(50, 10, 130, 870, 5));
    assertThat(CacheCounters.of(server(false))).as("all blocks otherwise").isEqualTo(new CacheCounts(50, 10, 700, 300,
        5));
    assertThat(CacheCounters.of(Map.of())).isNull();
  }
}
