package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.gateway.MetricsGateway;
import io.hbaseqos.operator.gateway.MetricsPendingException;
import io.hbaseqos.operator.hbase.InfoServerRequests;
import io.hbaseqos.operator.hbase.InfoServers;
import io.hbaseqos.operator.hbase.Negotiator;
import io.hbaseqos.operator.support.StandaloneHBase;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * On a real HBase 2.6.4 RegionServer's info server: calibration's counters, latency protection's
 * histograms and usage, asked for ten times a second for 12 s (each counters reader wanting a
 * reading no older than 2 s), are served by one sample per period, counted at the info server's
 * door: the server is read a bounded number of times, whatever the number of askers.
 */
class SharedSampleIT {
  @Test
  void threeKindsOfReaderAskingTenTimesASecondShareOneSamplePerPeriod() throws Exception {
    StandaloneHBase hbase = StandaloneHBase.shared();
    TableName t = TableName.valueOf("shared_sample_it");
    try (var admin = hbase.admin()) {
      if (!admin.tableExists(t)) {
        admin.createTable(TableDescriptorBuilder.newBuilder(t)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build());
      }
    }
    Table table = hbase.connection().getTable(t);
    table.put(new Put(Bytes.toBytes("r")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"), Bytes.toBytes("v")));
    for (int i = 0; i < 50; i++) {
      table.get(new Get(Bytes.toBytes("r"))); // this process's user now has per-user metrics
    }
    String user = org.apache.hadoop.hbase.security.User.getCurrent().getShortName();
    InfoServerRequests requests = new InfoServerRequests();
    try (MetricsGateway gateway = new MetricsGateway(new Object(), new Object(),
        new InfoServers(false, Clock.systemUTC(), Negotiator.NONE, requests),
        () -> Map.of("rs", Map.entry("127.0.0.1", hbase.regionServerInfoPort())), null, Clock.systemUTC(), "it")) {
      Set<Instant> counters = new HashSet<>();
      Set<Instant> latencies = new HashSet<>();
      Set<Instant> usage = new HashSet<>();
      int asks = 0;
      long t0 = System.nanoTime();
      while (System.nanoTime() - t0 < Duration.ofSeconds(12).toNanos()) {
        table.get(new Get(Bytes.toBytes("r"))); // the user stays active
        asks += 3;
        try {
          var c = gateway.userCounters(user, Set.of("get"), Instant.now().minusSeconds(2));
          assertThat(c.servers().get("rs").ops()).isGreaterThanOrEqualTo(50);
          counters.add(c.at());
        } catch (MetricsPendingException e) {
          // being taken
        }
        try {
          latencies.add(gateway.allUserMetrics(null).at());
        } catch (MetricsPendingException e) {
          // being taken
        }
        try {
          var u = gateway.usageSample(false, null);
          if (u != null) {
            assertThat(u.servers().get("rs")).as("usage's sample reads the block cache")
                .containsKey("server_block_cache_hit_count");
            usage.add(u.at());
          }
        } catch (MetricsPendingException e) {
          // being taken
        }
        Thread.sleep(100);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      long prometheus = requests.requests("/prometheus");
      long samples = (long) Math.ceil(seconds * 1000 / MetricsGateway.PERIOD.toMillis()) + 1;
      System.out.printf("%d asks in %.1f s: %d /prometheus requests, %d distinct samples read by calibration, "
          + "%d by protection, %d by usage%n", asks, seconds, prometheus, counters.size(), latencies.size(),
          usage.size());
      assertThat(counters).as("calibration was served").isNotEmpty();
      assertThat(latencies).as("protection was served").isNotEmpty();
      assertThat(usage).as("usage was served").isNotEmpty();
      assertThat(latencies).as("protection reads samples calibration reads too").containsAnyElementsOf(counters);
      // at most one sample per period: the users' metrics (a second look when HBase answered without them while it
      // registered them again) and, when usage asked, the block cache
      assertThat(prometheus).as("requests for %d asks in %.1f s", asks, seconds).isLessThanOrEqualTo(3 * samples);
    } finally {
      table.close();
    }
  }
}
