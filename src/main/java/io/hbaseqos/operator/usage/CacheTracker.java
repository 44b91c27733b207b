package io.hbaseqos.operator.usage;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cluster's {@link BlockCache} from successive samples of its servers' cache metrics: sizes as
 * read, hit ratio and evictions over the period since the previous sample (a server that restarted,
 * its counters gone back, has none for that period). Pure.
 */
public final class CacheTracker {
  /** Fewer block reads in a period give no hit share: a handful would swing it by tens of points. */
  static final long MIN_READS = 100;

  private Instant at;
  private Map<String, CacheCounts> before = Map.of();

  public synchronized BlockCache next(Instant now, Map<String, CacheCounts> servers) {
    double seconds = at == null ? Double.NaN : Duration.between(at, now).toMillis() / 1000.0;
    List<BlockCache.Server> out = new ArrayList<>();
    long capacity = 0;
    long used = 0;
    long hits = 0;
    long requests = 0;
    long evictions = 0;
    boolean rates = seconds > 0;
    for (var e : servers.entrySet()) {
      CacheCounts c = e.getValue();
      CacheCounts b = before.get(e.getKey());
      long dh = b == null ? -1 : c.hits() - b.hits();
      long dm = b == null ? -1 : c.misses() - b.misses();
      long de = b == null ? -1 : c.evictions() - b.evictions();
      boolean known = seconds > 0 && dh >= 0 && dm >= 0 && de >= 0;
      rates &= known;
      out.add(new BlockCache.Server(e.getKey(), c.usedBytes() + c.freeBytes(), c.usedBytes(),
          known && dh + dm >= MIN_READS ? dh / (double) (dh + dm) : Double.NaN, known ? de / seconds : Double.NaN));
      capacity += c.usedBytes() + c.freeBytes();
      used += c.usedBytes();
      if (known) {
        hits += dh;
        requests += dh + dm;
        evictions += de;
      }
    }
    at = now;
    before = Map.copyOf(servers);
    return new BlockCache(List.copyOf(out), capacity, used, rates && requests >= MIN_READS ? hits / (double) requests
        : Double.NaN, rates ? evictions / seconds : Double.NaN);
  }
}
