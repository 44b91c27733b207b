package io.hbaseqos.operator.usage;

import io.hbaseqos.operator.api.BlockCacheStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * The cluster's {@link BlockCache} as {@code status.blockCache}, and whether a tenant's data fits it.
 * The status before, unchanged, when the reading is the same ({@link BlockCacheStatus#sameReading}).
 * Pure.
 */
public final class CacheReport {
  /** Data up to this share of the cache is said to fit: the rest of the cache serves other tables. */
  static final double FITS = 0.8;

  private CacheReport() {}

  public static BlockCacheStatus next(BlockCache c, BlockCacheStatus before) {
    if (c == null) {
      return before;
    }
    BlockCacheStatus s = new BlockCacheStatus();
    s.setCapacityBytes(c.capacityBytes());
    s.setUsedBytes(c.usedBytes());
    // a period without block reads says nothing of the hit share: the last one stands
    Integer hit = percent(c.hitRatio());
    s.setHitPercent(hit != null ? hit : before == null ? null : before.getHitPercent());
    s.setEvictionsPerSecond(Double.isNaN(c.evictionsPerSecond()) ? null
        : UsageReport.twoDigits(c.evictionsPerSecond()));
    List<BlockCacheStatus.Server> servers = new ArrayList<>();
    for (BlockCache.Server b : c.servers()) {
      BlockCacheStatus.Server v = new BlockCacheStatus.Server();
      v.setName(b.name());
      v.setCapacityBytes(b.capacityBytes());
      v.setUsedBytes(b.usedBytes());
      Integer h = percent(b.hitRatio());
      if (h == null && before != null && before.getServers() != null) {
        h = before.getServers().stream().filter(o -> b.name().equals(o.getName())).map(o -> o.getHitPercent())
            .filter(java.util.Objects::nonNull).findFirst().orElse(null);
      }
      v.setHitPercent(h);
      servers.add(v);
    }
    s.setServers(servers);
    s.setSummary(size(c.usedBytes()) + " of " + size(c.capacityBytes())
        + (s.getHitPercent() == null ? "" : ", " + s.getHitPercent() + "% hits"));
    return before != null && s.sameReading(before) ? before : s;
  }

  /** Bytes for people: {@code 600B}, {@code 1.9K}, {@code 120M}, {@code 3.1G}. */
  static String size(long bytes) {
    String units = "BKMGTP";
    double v = bytes;
    int i = 0;
    while (v >= 1024 && i < units.length() - 1) {
      v /= 1024;
      i++;
    }
    String n = i == 0 || v >= 10 || v == Math.floor(v) ? String.valueOf(Math.round(v))
        : String.format(java.util.Locale.ROOT, "%.1f", v);
    return n + units.charAt(i);
  }

  private static Integer percent(double ratio) {
    return Double.isNaN(ratio) ? null : (int) Math.round(ratio * 100);
  }

  /** Below this share of block reads served from the cache, a read target may be out of the cache's reach. */
  static final double FEW_HITS = 0.5;

  /**
   * The block cache as evidence for a read target out of reach, in words: null unless the cluster's
   * block reads hit the cache less than {@link #FEW_HITS} of the time over the last period.
   */
  public static String missEvidence(BlockCache cache) {
    if (cache == null || Double.isNaN(cache.hitRatio()) || cache.hitRatio() >= FEW_HITS) {
      return null;
    }
    // in two bands, without sizes: a condition message is not rewritten every time the share or the bytes move
    return "data block reads hit the cache less than " + (cache.hitRatio() < 0.25 ? "a quarter" : "half")
        + " of the time over the last period: reads of data the cache cannot hold go to the file system, many times "
        + "slower, whatever the limits";
  }

  /** The store files of a cluster's tenants together, and how many tenants they are. */
  public record TenantsData(long bytes, int tenants) {}

  /**
   * The data of table and namespace tenants together: a table inside a namespace that is a tenant
   * itself is counted with its namespace, not twice.
   */
  public static TenantsData tenantsData(java.util.Map<io.hbaseqos.operator.quota.Subject, Long> data) {
    java.util.Set<String> namespaces = data.keySet().stream()
        .filter(s -> s.kind() == io.hbaseqos.operator.quota.Subject.Kind.NAMESPACE)
        .map(io.hbaseqos.operator.quota.Subject::namespace).collect(java.util.stream.Collectors.toSet());
    long bytes = 0;
    int tenants = 0;
    for (var e : data.entrySet()) {
      if (e.getKey().kind() == io.hbaseqos.operator.quota.Subject.Kind.TABLE
          && namespaces.contains(e.getKey().effectiveNamespace())) {
        continue;
      }
      bytes += e.getValue();
      tenants++;
    }
    return new TenantsData(bytes, tenants);
  }

  /**
   * Whether the table and namespace tenants' store files together fit the block cache a topology plan
   * gives ({@code perServer} on each of {@code servers} RegionServers), in words; null when they fit or
   * nothing is known of them. The same rule as {@link #fit}: at most {@link #FITS} of the cache.
   */
  public static String planFit(long perServer, int servers, long tenantsData, int tenants) {
    long total = perServer * servers;
    if (total <= 0 || tenants == 0 || tenantsData <= total * FITS) {
      return null;
    }
    return "the store files of its " + tenants + " table and namespace tenant(s) (" + size(tenantsData)
        + " on disk) are " + String.format(java.util.Locale.ROOT, "%.1f", tenantsData / (double) total)
        + "x the block cache the plan gives (" + servers + " x " + size(perServer) + "): reads of what is not cached "
        + "go to the file system, many times slower; a larger heap, more RegionServers or a larger "
        + "blockCacheFraction would hold more";
  }

  /** That they fit, in the same words as {@link #planFit}. */
  public static String planFits(long perServer, int servers, int tenants) {
    return "the store files of its " + tenants + " table and namespace tenant(s) fit the block cache the plan gives ("
        + servers + " x " + size(perServer) + ")";
  }

  /**
   * Whether a table's or namespace's store files fit the cluster's block cache, in words (null: not
   * known). Reads of data the cache cannot hold go to the file system: the reference benchmark
   * measured about 50 times fewer reads per second than from the cache. The size is on disk: a
   * compressed column family takes more in the cache (data blocks are cached uncompressed by default).
   */
  public static String fit(Long dataBytes, BlockCache cache) {
    if (dataBytes == null || cache == null || cache.capacityBytes() <= 0) {
      return null;
    }
    double ratio = dataBytes / (double) cache.capacityBytes();
    String data = size(dataBytes);
    String capacity = size(cache.capacityBytes());
    if (ratio <= FITS) {
      return "fits: its store files (" + data + " on disk) are "
          + (ratio < 0.01 ? "under 1" : String.valueOf(Math.round(ratio * 100))) + "% of the cluster's block cache ("
          + capacity + ")";
    }
    String hits = Double.isNaN(cache.hitRatio()) ? "" : "; data block reads hit the cache "
        + Math.round(cache.hitRatio() * 100) + "% of the time over the last period";
    return "does not fit: its store files (" + data + " on disk) are "
        + String.format(java.util.Locale.ROOT, "%.1f", ratio) + "x the cluster's block cache (" + capacity + "): reads of what is not cached go to the file system, "
        + "many times slower" + hits;
  }
}
