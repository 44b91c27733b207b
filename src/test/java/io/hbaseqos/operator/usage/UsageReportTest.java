package io.hbaseqos.operator.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.api.UsageStatus;
import io.hbaseqos.operator.quota.Limit;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class UsageReportTest {
  static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
  static final Limit MACHINE_2500 = new Limit(2500, TimeUnit.SECONDS, Limit.Scope.MACHINE);
  static final Limit CLUSTER_2500 = new Limit(2500, TimeUnit.SECONDS, Limit.Scope.CLUSTER);

  static Usage usage(double reads, double writes, double throttled, double busiest, Usage.Window w) {
    return new Usage(reads, writes, throttled, busiest, 2, 30, w);
  }

  @Test
  void theSummaryNamesTheRateTheUseOfTheLimitAndTheThrottledShare() {
    UsageStatus s = UsageReport.of(usage(1700, 234, 0.031, 0.6, null), CLUSTER_2500, null, NOW);
    assertThat(s.getSummary()).isEqualTo("1.9k/s (77% of limit), 3.1% throttled");
    assertThat(s.getReadOpsPerSecond()).isEqualTo(1700.0);
    assertThat(s.getWriteOpsPerSecond()).isEqualTo(230.0);
    assertThat(s.getBusiestServerPercent()).isEqualTo(60);
    assertThat(s.getObservedTime()).isEqualTo(NOW.toString());
    // a MACHINE limit is enforced by each server: the busiest one is what it meets
    assertThat(UsageReport.of(usage(1700, 234, 0.031, 0.6, null), MACHINE_2500, null, NOW).getLimitUsedPercent())
        .isEqualTo(46);
    assertThat(UsageReport.of(usage(0.37, 0, Double.NaN, Double.NaN, null), null, null, NOW).getSummary())
        .as("no limit, HBase before 2.6.4").isEqualTo("0.37/s");
    assertThat(UsageReport.rate(12_345)).isEqualTo("12k");
    assertThat(UsageReport.rate(3_456_789)).isEqualTo("3.5M");
    assertThat(UsageReport.rate(37.4)).isEqualTo("37");
  }

  @Test
  void aReadingThatMovedLittleIsNotWrittenAgain() {
    UsageStatus before = UsageReport.of(usage(1000, 0, 0.02, 0.5, null), CLUSTER_2500, null, NOW);
    assertThat(UsageReport.of(usage(1080, 0, 0.025, 0.55, null), CLUSTER_2500, before, NOW.plusSeconds(30)))
        .as("within a tenth, half a point, five points").isSameAs(before);
    assertThat(UsageReport.of(usage(1200, 0, 0.02, 0.5, null), CLUSTER_2500, before, NOW.plusSeconds(30)))
        .as("a fifth more").isNotSameAs(before);
    assertThat(UsageReport.of(usage(1000, 0, 0.05, 0.5, null), CLUSTER_2500, before, NOW.plusSeconds(30)))
        .as("three points more throttled").isNotSameAs(before);
    assertThat(UsageReport.next(null, null, null, before, NOW)).as("nothing measured: as it was").isSameAs(before);
  }

  @Test
  void hintsNeedALongWindowAndFollowWhatWasMeasured() {
    Usage.Window shortWindow = new Usage.Window(3, 90, 50, 50, 0.9);
    assertThat(UsageReport.of(usage(50, 0, 0.9, 1, shortWindow), CLUSTER_2500, null, NOW).getHint())
        .as("three periods are too few").isNull();
    Usage.Window throttled = new Usage.Window(20, 600, 50, 50, 0.8);
    assertThat(UsageReport.of(usage(50, 0, 0.8, 1, throttled), CLUSTER_2500, null, NOW).getHint())
        .startsWith("HBase refused 80% of its requests over the last 10 min: raise the limit")
        .contains("spec.calibration");
    Usage.Window idleLimit = new Usage.Window(20, 600, 120, 100, 0);
    assertThat(UsageReport.of(usage(80, 0, 0, 0.8, idleLimit), CLUSTER_2500, null, NOW).getHint())
        .isEqualTo("its busiest period of the last 10 min used 5% of its limit: a limit of about 240 req/sec would "
            + "still fit it twice over and leave the rest to other tenants");
    assertThat(UsageReport.of(usage(80, 0, 0, 0.8, idleLimit), MACHINE_2500, null, NOW).getHint())
        .contains("4% of its limit on its busiest server").contains("about 200 req/sec");
    Usage.Window busy = new Usage.Window(20, 600, 1500, 1500, 0.01);
    assertThat(UsageReport.of(usage(1400, 0, 0.01, 1, busy), CLUSTER_2500, null, NOW).getHint()).isNull();
  }

  @Test
  void aTablesDataIsHeldAgainstTheClustersBlockCache() {
    BlockCache cache = new BlockCache(java.util.List.of(), 1L << 30, 900L << 20, 0.09, 12);
    Usage fits = new Usage(100, 0, 0, 1, 1, 30, null, 120L << 20);
    assertThat(UsageReport.of(fits, null, cache, null, NOW).getCacheFit())
        .isEqualTo("fits: its store files (120M on disk) are 12% of the cluster's block cache (1G)");
    Usage big = new Usage(100, 0, 0, 1, 1, 30, null, (31L << 30) / 10);
    UsageStatus s = UsageReport.of(big, null, cache, null, NOW);
    assertThat(s.getCacheFit()).startsWith("does not fit: its store files (3.1G on disk) are 3.1x the cluster's block cache (1G)")
        .endsWith("data block reads hit the cache 9% of the time over the last period");
    assertThat(s.getDataBytes()).isEqualTo((31L << 30) / 10);
    assertThat(UsageReport.of(big, null, null, null, NOW).getCacheFit()).as("no cache read yet").isNull();
    assertThat(UsageReport.of(new Usage(100, 0, 0, 1, 1, 30, null, (32L << 30) / 10), null, cache, s, NOW))
        .as("3% more data, still not fitting: the same reading").isSameAs(s);
  }

  @Test
  void aPlansBlockCacheHoldsTheTenantsDataUpToFourFifths() {
    long g = 1L << 30;
    assertThat(CacheReport.planFit(12 * g, 8, 70 * g, 3)).as("70G of 96G: fits").isNull();
    assertThat(CacheReport.planFit(12 * g, 8, 0, 0)).as("no tenant data known").isNull();
    assertThat(CacheReport.planFit(4 * g, 2, 20 * g, 2)).isEqualTo("the store files of its 2 table and namespace "
        + "tenant(s) (20G on disk) are 2.5x the block cache the plan gives (2 x 4G): reads of what is not cached go to "
        + "the file system, many times slower; a larger heap, more RegionServers or a larger blockCacheFraction would "
        + "hold more");
    assertThat(CacheReport.planFits(12 * g, 8, 3)).as("in the same units").isEqualTo("the store files of its 3 table "
        + "and namespace tenant(s) fit the block cache the plan gives (8 x 12G)");
  }

  @Test
  void aCacheThatMissesIsEvidenceAndOneThatHitsIsNot() {
    long m = 1L << 20;
    assertThat(CacheReport.missEvidence(new BlockCache(java.util.List.of(), 100 * m, 99 * m, 0.09, 3)))
        .isEqualTo("data block reads hit the cache less than a quarter of the time over the last period: reads of data "
            + "the cache cannot hold go to the file system, many times slower, whatever the limits");
    assertThat(CacheReport.missEvidence(new BlockCache(java.util.List.of(), 100 * m, 99 * m, 0.3, 3)))
        .startsWith("data block reads hit the cache less than half of the time");
    assertThat(CacheReport.missEvidence(new BlockCache(java.util.List.of(), 100 * m, 99 * m, 0.93, 0))).isNull();
    assertThat(CacheReport.missEvidence(new BlockCache(java.util.List.of(), 100 * m, 1 * m, Double.NaN, 0)))
        .as("no block reads in the period").isNull();
    assertThat(CacheReport.missEvidence(null)).isNull();
  }

  @Test
  void aTableInsideANamespaceTenantIsCountedOnce() {
    var d = CacheReport.tenantsData(java.util.Map.of(io.hbaseqos.operator.quota.Subject.namespace("ns1"), 100L,
        io.hbaseqos.operator.quota.Subject.table("ns1:t"), 60L, io.hbaseqos.operator.quota.Subject.table("ns2:t"), 7L,
        io.hbaseqos.operator.quota.Subject.table("plain"), 3L));
    assertThat(d).isEqualTo(new CacheReport.TenantsData(110, 3));
  }
}
