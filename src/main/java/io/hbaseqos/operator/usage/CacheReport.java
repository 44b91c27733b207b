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
    String hits = Double.isNaN(cache.hitRatio()) ? "" : "; block reads hit the cache "
        + Math.round(cache.hitRatio() * 100) + "% of the time over the last period";
    return "does not fit: its store files (" + data + " on disk) are "
        + String.format(java.util.Locale.ROOT, "%.1f", ratio) + "x the cluster's block cache (" + capacity + "): reads of what is not cached go to the file system, "
        + "many times slower" + hits;
  }
}
