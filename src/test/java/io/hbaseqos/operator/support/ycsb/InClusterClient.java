package io.hbaseqos.operator.support.ycsb;

import io.hbaseqos.operator.support.QuotaTableRaw;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.util.Bytes;
import org.HdrHistogram.Histogram;

/**
 * A tenant's application inside the cluster: run in a pod on the real node (where the cluster's
 * DNS names of ZooKeeper and the RegionServers resolve), from the test classpath. One command per
 * run, its results as tab-separated lines on stdout:
 * <pre>
 *   quota                                      Q key value         (hbase:quota, raw)
 *   servers [TABLE]                            S server regions requests tableRegions tableReads
 *   load USER TABLE RECORDS REGIONS            (creates the table, pre-split, and loads it)
 *   run USER TABLE RECORDS SECONDS THREADS     R ok failed seconds p99ms maxms
 *   watch USER TABLE RECORDS THREADS STOPFILE  T region ms (each transition), then
 *                                              W transitions totalms maxms, R ... (the load meanwhile)
 * </pre>
 * The ZooKeeper quorum is the environment's HBASE_ZOOKEEPER_QUORUM.
 */
public final class InClusterClient {
  private InClusterClient() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", System.getenv("HBASE_ZOOKEEPER_QUORUM"));
    conf.setInt("hbase.client.retries.number", 15);
    switch (args[0]) {
      case "quota" -> {
        try (Connection c = ConnectionFactory.createConnection(conf)) {
          QuotaTableRaw.read(c).forEach((k, v) -> System.out.println("Q\t" + k + "\t" + v));
        }
      }
      case "servers" -> {
        try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
          ClusterMetrics m = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
          String table = args.length > 1 ? args[1] + "," : "\0";
          for (Map.Entry<ServerName, ServerMetrics> e : m.getLiveServerMetrics().entrySet()) {
            var tableRegions = e.getValue().getRegionMetrics().values().stream()
                .filter(r -> r.getNameAsString().startsWith(table)).toList();
            System.out.println("S\t" + e.getKey().getHostname() + "\t" + e.getValue().getRegionMetrics().size() + "\t"
                + e.getValue().getRequestCount() + "\t" + tableRegions.size() + "\t"
                + tableRegions.stream().mapToLong(r -> r.getReadRequestCount()).sum());
          }
        }
      }
      case "load" -> {
        int regions = Integer.parseInt(args[4]);
        byte[][] splits = new byte[regions - 1][];
        for (int i = 1; i < regions; i++) {
          // YCSB's keys are "user" + a hashed number: split evenly on the first digit
          splits[i - 1] = Bytes.toBytes("user" + (i * 10 / regions));
        }
        TenantLoad.load(conf, args[1], TenantLoad.readWorkload(args[2], Integer.parseInt(args[3])), splits);
      }
      case "run" -> {
        Properties w = TenantLoad.readWorkload(args[2], Integer.parseInt(args[3]));
        long start = System.nanoTime();
        try (TenantLoad l = TenantLoad.start(conf, args[1], w, Integer.parseInt(args[5]))) {
          Thread.sleep(Long.parseLong(args[4]) * 1000);
          report(l, (System.nanoTime() - start) / 1e9);
        }
      }
      case "watch" -> watch(conf, args);
      default -> throw new IllegalArgumentException("unknown command " + args[0]);
    }
    System.exit(0); // YCSB and HBase leave non-daemon threads
  }

  private static void report(TenantLoad l, double seconds) {
    Histogram h = l.latencySinceLastCall();
    System.out.printf("R\t%d\t%d\t%.1f\t%.1f\t%.1f%n", l.ok(), l.failed(), seconds,
        h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
  }

  /**
   * Regions in transition as the master sees them, sampled every 100 ms until the stop file
   * appears, with the tenant's load running meanwhile: how long each region was unassigned.
   */
  private static void watch(Configuration conf, String[] args) throws Exception {
    Properties w = TenantLoad.readWorkload(args[2], Integer.parseInt(args[3]));
    Path stop = Path.of(args[5]);
    Map<String, Long> since = new HashMap<>();
    long transitions = 0;
    long total = 0;
    long max = 0;
    long start = System.nanoTime();
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin();
        TenantLoad l = TenantLoad.start(conf, args[1], w, Integer.parseInt(args[4]))) {
      System.out.println("WATCHING");
      while (!Files.exists(stop)) {
        long now = System.nanoTime();
        Set<String> rit;
        try {
          rit = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.REGIONS_IN_TRANSITION))
              .getRegionStatesInTransition().stream().map(s -> s.getRegion().getRegionNameAsString())
              .collect(Collectors.toSet());
        } catch (java.io.IOException e) {
          Thread.sleep(100); // the master is away: the regions' states are unknown meanwhile
          continue;
        }
        for (String r : rit) {
          since.putIfAbsent(r, now);
        }
        for (String r : List.copyOf(since.keySet())) {
          if (!rit.contains(r)) {
            long ms = (now - since.remove(r)) / 1_000_000;
            transitions++;
            total += ms;
            max = Math.max(max, ms);
            System.out.println("T\t" + r + "\t" + ms);
          }
        }
        System.out.flush();
        Thread.sleep(100);
      }
      System.out.printf("W\t%d\t%d\t%d\t%d%n", transitions, total, max, since.size());
      report(l, (System.nanoTime() - start) / 1e9);
    }
  }
}
