package io.hbaseqos.operator.bench;

import static io.hbaseqos.operator.support.Resources.cluster;
import static io.hbaseqos.operator.support.Resources.t;
import static io.hbaseqos.operator.support.Resources.table;
import static io.hbaseqos.operator.support.Resources.tenant;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.UsageStatus;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.OperatorHarness;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.TenantStatus;
import io.hbaseqos.operator.support.ycsb.TenantLoad;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The seed's third finding at small scale, on a real standalone HBase 2.6.4: the same YCSB read
 * workload (uniform keys, every field) on a table that fits the RegionServer's block cache and on
 * one several times larger; throughput, latency and the block cache's hit share for each (from the
 * RegionServer's own {@code /jmx}), and what the operator's table tenants say of their cache fit.
 * The block cache is kept small ({@code hfile.block.cache.size} of a small heap) so that the larger
 * table needs only a few hundred MB. Prints a table; asserts nothing.
 *
 * <p>Run: {@code bin/benchmark cache [--threads 4] [--seconds 30] [--heap 512m] [--cache-share 0.1]
 * [--fits-rows 20000] [--big-rows 250000] [--drop-os-cache false]}. Rows are about 1.1 KB (10 fields of
 * 100 bytes). A machine with more memory than data holds the store files in the OS page cache, so a
 * block cache miss costs a copy from memory, not a disk read; {@code --drop-os-cache true} (root)
 * drops the OS page cache every 500 ms while a table is measured, as on a host whose data exceeds its
 * memory.
 */
public final class CacheBenchmark {
  private CacheBenchmark() {}

  public static void main(String[] args) {
    SyncBenchmark.runAndExit(CacheBenchmark::run, args);
  }

  static void run(String[] args) throws Exception {
    Map<String, String> o = SyncBenchmark.options(args);
    int threads = Integer.parseInt(o.getOrDefault("threads", "4"));
    int seconds = Integer.parseInt(o.getOrDefault("seconds", "30"));
    String heap = o.getOrDefault("heap", "512m");
    String share = o.getOrDefault("cache-share", "0.1");
    int fitsRows = Integer.parseInt(o.getOrDefault("fits-rows", "20000"));
    int bigRows = Integer.parseInt(o.getOrDefault("big-rows", "250000"));
    boolean dropOsCache = Boolean.parseBoolean(o.getOrDefault("drop-os-cache", "false"));

    StandaloneHBase hbase = new StandaloneHBase(Files.createTempDirectory("bench-cache"),
        Map.of("hfile.block.cache.size", share)).memory(List.of("-Xmx" + heap, "-Xms" + heap, "-XX:+UseSerialGC"));
    hbase.start();
    KubernetesClient k8s = KubeApi.client();
    String ns = KubeApi.newNamespace("bench-cache");
    try (OperatorHarness operator = new OperatorHarness(k8s)) {
      Properties fits = workload("cache_fits", fitsRows);
      Properties big = workload("cache_big", bigRows);
      for (Properties w : List.of(fits, big)) {
        long t0 = System.nanoTime();
        TenantLoad.loadInParallel(hbase.clientConfiguration(), w, threads);
        System.err.printf(Locale.ROOT, "loaded %s rows into %s in %.0f s%n", w.getProperty("recordcount"),
            w.getProperty("table"), (System.nanoTime() - t0) / 1e9);
      }
      k8s.resource(cluster(ns, "hb", hbase.connectionSpec(), "10s")).create();
      KubeApi.awaitClusterReady(ns, "hb");
      for (Properties w : List.of(fits, big)) {
        String tbl = w.getProperty("table");
        k8s.resource(tenant(ns, tbl.replace('_', '-'), "hb", table(tbl), t(ThrottleKind.REQUEST_NUMBER,
            "1000000req/sec"))).create();
      }
      JsonNode server = hbase.serverBean();
      long capacity = server.path("blockCacheSize").asLong() + server.path("blockCacheFreeSize").asLong();
      System.out.printf(Locale.ROOT, "# YCSB reads, uniform keys, %d threads, %d s per table after %d s of warm-up; "
          + "HBase heap %s, block cache %s of it: %d MiB; OS page cache %s%n", threads, seconds, seconds, heap, share,
          capacity >> 20, dropOsCache ? "dropped every 500 ms while measuring" : "left as it is");
      System.out.println();
      System.out.println("| table | rows | store files | of the block cache | ops/s | mean / p99 latency (ms) "
          + "| block cache hits (all blocks / data blocks) | the operator's cacheFit |");
      System.out.println("|---|---|---|---|---|---|---|---|");
      for (Properties w : List.of(fits, big)) {
        String tbl = w.getProperty("table");
        try (TenantLoad load = TenantLoad.start(hbase.clientConfiguration(), "reader", w, threads)) {
          Thread.sleep(seconds * 1000L); // warm-up: the cache fills with what it can hold
          load.latencySinceLastCall();
          JsonNode before = hbase.serverBean();
          long ok0 = load.ok();
          long t0 = System.nanoTime();
          long end = t0 + seconds * 1_000_000_000L;
          while (System.nanoTime() < end) {
            if (dropOsCache) {
              Files.writeString(java.nio.file.Path.of("/proc/sys/vm/drop_caches"), "1");
            }
            Thread.sleep(Math.min(500, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
          }
          double ops = (load.ok() - ok0) / ((System.nanoTime() - t0) / 1e9);
          var latency = load.latencySinceLastCall();
          JsonNode after = hbase.serverBean();
          long hits = after.path("blockCacheHitCount").asLong() - before.path("blockCacheHitCount").asLong();
          long misses = after.path("blockCacheMissCount").asLong() - before.path("blockCacheMissCount").asLong();
          long dataHits = after.path("blockCacheDataHitCount").asLong() - before.path("blockCacheDataHitCount").asLong();
          long dataMisses = after.path("blockCacheDataMissCount").asLong()
              - before.path("blockCacheDataMissCount").asLong();
          UsageStatus u = DryRunBenchmark.await(() -> TenantStatus.usage(k8s, ns, tbl.replace('_', '-')),
              x -> x.getCacheFit() != null && x.getDataBytes() != null, 120);
          System.out.printf(Locale.ROOT, "| %s | %s | %d MiB | %.1fx | %.0f | %.2f / %.2f | %.1f%% / %s | %s |%n", tbl,
              w.getProperty("recordcount"), u.getDataBytes() >> 20, u.getDataBytes() / (double) capacity, ops,
              latency.getMean() / 1000, latency.getValueAtPercentile(99) / 1000.0,
              hits + misses == 0 ? 0 : 100.0 * hits / (hits + misses), dataHits + dataMisses == 0 ? "n/a"
                  : String.format(Locale.ROOT, "%.1f%%", 100.0 * dataHits / (dataHits + dataMisses)), u.getCacheFit());
        }
      }
    } finally {
      KubeApi.cleanUp(Set.of(ns));
      hbase.close();
    }
  }

  /** A read workload of about 1.1 KB rows. */
  static Properties workload(String table, int rows) {
    Properties w = TenantLoad.readWorkload(table, rows);
    w.setProperty("fieldcount", "10");
    return w;
  }
}
