package io.hbaseqos.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hbaseqos.operator.api.BlockCacheStatus;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CacheTrackerTest {
  static final Instant T0 = Instant.parse("2026-11-26T12:00:00Z");

  static Map<String, CacheCounts> servers(CacheCounts a, CacheCounts b) {
    Map<String, CacheCounts> m = new LinkedHashMap<>();
    m.put("rs1", a);
    m.put("rs2", b);
    return m;
  }

  @Test
  void sizesAreAsReadAndHitsAndEvictionsOverThePeriod() {
    CacheTracker t = new CacheTracker();
    BlockCache first = t.next(T0, servers(new CacheCounts(300, 700, 1000, 1000, 0), new CacheCounts(100, 900, 0, 0, 0)));
    assertThat(first.capacityBytes()).isEqualTo(2000);
    assertThat(first.usedBytes()).isEqualTo(400);
    assertThat(first.hitRatio()).as("the first sample has no period").isNaN();
    // 30 s: rs1 900 hits and 100 misses, 60 evictions; rs2 no block read
    BlockCache c = t.next(T0.plusSeconds(30), servers(new CacheCounts(500, 500, 1900, 1100, 60),
        new CacheCounts(100, 900, 0, 0, 0)));
    assertThat(c.hitRatio()).isCloseTo(0.9, within(1e-9));
    assertThat(c.evictionsPerSecond()).isCloseTo(2, within(1e-9));
    assertThat(c.servers().get(0).hitRatio()).isCloseTo(0.9, within(1e-9));
    assertThat(c.servers().get(1).hitRatio()).as("no block read on rs2").isNaN();
    // rs1 restarted: its counters went back, no rate for the period
    BlockCache r = t.next(T0.plusSeconds(60), servers(new CacheCounts(10, 990, 5, 5, 0),
        new CacheCounts(100, 900, 10, 0, 0)));
    assertThat(r.servers().get(0).hitRatio()).isNaN();
    assertThat(r.hitRatio()).isNaN();
  }

  @Test
  void theStatusKeepsTheLastHitShareThroughAPeriodWithoutBlockReadsAndIsNotRewrittenForLittle() {
    CacheTracker t = new CacheTracker();
    t.next(T0, servers(new CacheCounts(300, 700, 1000, 1000, 0), new CacheCounts(100, 900, 0, 0, 0)));
    BlockCacheStatus s = CacheReport.next(t.next(T0.plusSeconds(30), servers(new CacheCounts(500, 500, 1900, 1100, 0),
        new CacheCounts(100, 900, 0, 0, 0))), null);
    assertThat(s.getSummary()).isEqualTo("600B of 2.0K, 90% hits");
    assertThat(s.getHitPercent()).isEqualTo(90);
    BlockCacheStatus idle = CacheReport.next(t.next(T0.plusSeconds(60), servers(new CacheCounts(500, 500, 1900, 1100, 0),
        new CacheCounts(100, 900, 0, 0, 0))), s);
    assertThat(idle).as("no block read in the period: the same reading").isSameAs(s);
    BlockCacheStatus filled = CacheReport.next(t.next(T0.plusSeconds(90), servers(new CacheCounts(900, 100, 2900, 1100, 0),
        new CacheCounts(100, 900, 0, 0, 0))), s);
    assertThat(filled).isNotSameAs(s);
    assertThat(filled.getUsedBytes()).isEqualTo(1000);
    assertThat(CacheReport.next(null, s)).isSameAs(s);
  }
}
