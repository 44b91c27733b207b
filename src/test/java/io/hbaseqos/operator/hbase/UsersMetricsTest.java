package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UsersMetricsTest {
  static final Set<String> GETS = Set.of("get");

  @Test
  void aWindowVouchesForAPeriodWhenItOrTheOperatorsOwnReadsHoldMostOfItsOperations() {
    assertThat(new UsersMetrics.Window(0, 0).problem(0)).as("nothing counted: idle, nothing to vouch for").isNull();
    assertThat(new UsersMetrics.Window(100, 0).problem(100)).as("the operator alone read").isNull();
    assertThat(new UsersMetrics.Window(30, 70).problem(100)).as("its own reads in between count").isNull();
    assertThat(new UsersMetrics.Window(50, 0).problem(100)).as("half is enough").isNull();
    assertThat(new UsersMetrics.Window(0, 0).problem(40)).contains("empty though 40 operations")
        .contains("another reader");
    assertThat(new UsersMetrics.Window(10, 0).problem(100)).contains("took 90 of the period's 100 operations");
  }

  @Test
  void windowsAndLatenciesCountBothTheLastWindowAndTheOnesTheOperatorsReadsTook() {
    Map<String, Double> rs1 = Map.of(
        "users_user_bob_metric_get_num_ops", 500.0,
        "users_user_bob_metric_get_time_range_count_0_1", 7.0,
        "users_user_bob_metric_get_time_range_count_1000_inf", 1.0,
        "users_user_bob_metric_get_99th_percentile", 2.0,
        "users_user_bob_metric_scan_time_time_range_count_0_1", 9.0,
        "users_user_bobby_metric_get_time_range_count_0_1", 50.0);
    Map<String, Double> took = Map.of(
        "users_user_bob_metric_get_time_range_count_3_10", 4.0,
        "users_user_bob_metric_get_99th_percentile", 8.0);
    UsersMetrics m = new UsersMetrics(Map.of("rs1", rs1, "rs2", Map.of()), Map.of("rs1", took));
    assertThat(m.window("bob", GETS)).as("another user's and another operation's buckets are not bob's gets")
        .isEqualTo(new UsersMetrics.Window(8, 4));
    assertThat(m.histogramOps("bob", GETS)).isEqualTo(500);
    assertThat(m.latency("bob", GETS, "99th_percentile")).as("the highest of the windows").isEqualTo(8.0);
    assertThat(new UsersMetrics(Map.of("rs1", rs1)).latency("bob", GETS, "99th_percentile")).isEqualTo(2.0);
  }

  @Test
  void aLatencyPerServerNamesTheServersWhereTheUserHadOperations() {
    Map<String, Double> rs1 = Map.of("users_user_bob_metric_get_99th_percentile", 2.0,
        "users_user_bob_metric_scan_time_99th_percentile", 3.0);
    Map<String, Double> rs2 = Map.of("users_user_bob_metric_get_99th_percentile", 40.0);
    Map<String, Double> rs3 = Map.of("users_user_ann_metric_get_99th_percentile", 90.0);
    Map<String, Double> took = Map.of("users_user_bob_metric_get_99th_percentile", 60.0);
    UsersMetrics m = new UsersMetrics(Map.of("rs1", rs1, "rs2", rs2, "rs3", rs3), Map.of("rs1", took));
    assertThat(m.latencyOn("bob", GETS, "99th_percentile")).as("rs1's window the operator took counts there; rs3 "
        + "served bob nothing").isEqualTo(Map.of("rs1", 60.0, "rs2", 40.0));
    assertThat(m.latencyOn("bob", Set.of("get", "scan_time"), "99th_percentile")).containsEntry("rs1", 60.0);
    assertThat(new UsersMetrics(Map.of("rs1", rs1)).latencyOn("bob", Set.of("get", "scan_time"), "99th_percentile"))
        .isEqualTo(Map.of("rs1", 3.0));
  }
}
