package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CallQueuesTest {
  private static final Instant T0 = Instant.parse("2026-11-28T00:00:00Z");

  private static CallQueues.Server server(long queued, long taken) {
    return new CallQueues.Server(queued, taken, null);
  }

  @Test
  void theMeanWaitIsTheCallsWaitingOverTheRateTheyAreTaken() {
    // 3000 calls in 30 s (100/s) with 5 waiting: Little's law gives 50 ms
    assertThat(CallQueues.meanWaitMillis(server(0, 1000), server(5, 4000), 30)).isCloseTo(50.0, within(1e-9));
    // nothing waits: no wait, however busy
    assertThat(CallQueues.meanWaitMillis(server(9, 1000), server(0, 900_000), 30)).isZero();
    // no call came and none waits: nothing to judge but no wait either
    assertThat(CallQueues.meanWaitMillis(server(0, 1000), server(0, 1000), 30)).isZero();
    // calls wait and none was taken in the whole period: they waited all of it
    assertThat(CallQueues.meanWaitMillis(server(0, 1000), server(4, 1000), 30)).isEqualTo(30_000.0);
    // the counter went back (a restart) or the readings are not in order: not known
    assertThat(CallQueues.meanWaitMillis(server(0, 1000), server(4, 10), 30)).isNaN();
    assertThat(CallQueues.meanWaitMillis(server(0, 1000), server(4, 2000), 0)).isNaN();
  }

  @Test
  void serversAreReadFromTheirQueueMetricsAndThoseUnreadOrRestartedAreLeftOut() {
    // split queues: the general gauge already holds the read and scan queues' calls, which are not added again;
    // the priority queue's are (the count of calls taken covers them)
    Map<String, Double> values = Map.of("region_server_num_calls_in_general_queue", 6.0,
        "region_server_num_calls_in_read_queue", 3.0, "region_server_num_calls_in_scan_queue", 1.0,
        "region_server_num_calls_in_priority_queue", 2.0, "master_num_calls_in_general_queue", 70.0,
        "region_server_queue_call_time_num_ops", 12345.0);
    CallQueues.Server s = CallQueues.Server.of(values);
    assertThat(s.queued()).as("this RegionServer's queues, each call once").isEqualTo(8);
    assertThat(s.taken()).isEqualTo(12345);
    assertThat(CallQueues.Server.of(Map.of("region_server_num_calls_in_general_queue", 2.0)).problem())
        .contains("region_server_queue_call_time_num_ops");

    Map<String, CallQueues.Server> before = new LinkedHashMap<>();
    before.put("rs1", server(0, 100));
    before.put("rs2", server(0, 500));
    before.put("rs3", server(0, 100));
    Map<String, CallQueues.Server> after = new LinkedHashMap<>();
    after.put("rs1", server(2, 1100)); // 100 calls/s over 10 s, 2 waiting: 20 ms
    after.put("rs2", server(1, 20)); // restarted
    after.put("rs3", CallQueues.Server.unread("metrics unreadable"));
    after.put("rs4", server(0, 10)); // new
    CallQueues now = new CallQueues(T0.plusSeconds(10), after);
    assertThat(now.meanWaitsSince(new CallQueues(T0, before))).containsOnlyKeys("rs1");
    assertThat(now.meanWaitsSince(new CallQueues(T0, before)).get("rs1")).isCloseTo(20.0, within(1e-9));
    assertThat(now.problem()).isEqualTo("RegionServer rs3: metrics unreadable");
    assertThat(new CallQueues(T0, before).problem()).isNull();
  }
}
