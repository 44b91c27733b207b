package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.usage.Counts;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The names are those HBase 2.6.4's /prometheus gives (see RegionServerMetricsTest for the servlet's rule). */
class TenantCountersTest {
  static final Map<String, Double> SERVER = Map.ofEntries(
      Map.entry("users_user_alice_metric_get_num_ops", 1000.0 + 2 * 40),
      Map.entry("users_user_alice_metric_scan_time_num_ops", 50.0),
      Map.entry("users_user_alice_metric_put_num_ops", 300.0),
      Map.entry("users_user_alice_metric_delete_num_ops", 7.0),
      Map.entry("users_user_bob_metric_get_num_ops", 200.0 + 2 * 5),
      Map.entry("server_rpc_throttling_exception_type_num_read_requests_exceeded_user_alice_table_usertable", 40.0),
      Map.entry("server_rpc_throttling_exception_type_num_write_requests_exceeded_user_alice_table_sales_orders", 3.0),
      Map.entry("server_rpc_throttling_exception_type_num_read_requests_exceeded_user_bob_table_usertable", 5.0),
      Map.entry("tables_namespace_default_table_usertable_metric_read_request_count", 9000.0),
      Map.entry("tables_namespace_default_table_usertable_metric_write_request_count", 100.0),
      Map.entry("tables_namespace_default_table_usertable_metric_store_file_size", 4096.0),
      Map.entry("tables_namespace_sales_table_orders_metric_store_file_size", 1000.0),
      Map.entry("tables_namespace_sales_table_items_metric_store_file_size", 24.0),
      Map.entry("tables_namespace_sales_table_orders_metric_read_request_count", 70.0),
      Map.entry("tables_namespace_sales_table_orders_metric_write_request_count", 30.0),
      Map.entry("tables_namespace_sales_table_items_metric_read_request_count", 5.0),
      Map.entry("tables_namespace_sales_table_items_metric_write_request_count", 1.0));

  @Test
  void aUsersCountersComeFromItsPerUserMetricsWithThrottledGetsTakenOut() {
    assertThat(TenantCounters.of(Subject.user("alice"), SERVER)).isEqualTo(new Counts(1130, 307, 43L, null, 80));
    assertThat(TenantCounters.of(Subject.user("carol"), SERVER)).isEqualTo(new Counts(0, 0, 0L));
  }

  /**
   * A refused scan is recorded as one Get, not as a scan (HBase 2.6.4, bin/benchmark throttle
   * --scan-length 100: 19 Gets recorded a second for 19 refused scans): of a scan tenant's reads only
   * those Gets come out. Before, twice its 600 refusals came out of its 900 scans and 600 Gets.
   */
  @Test
  void aScanTenantsRefusalsComeOutOfTheGetsRecordedNotOutOfItsScans() {
    Map<String, Double> server = Map.of(
        "users_user_dave_metric_scan_time_num_ops", 900.0,
        "users_user_dave_metric_get_num_ops", 600.0,
        "server_rpc_throttling_exception_type_num_read_requests_exceeded_user_dave_table_usertable", 600.0);
    assertThat(TenantCounters.of(Subject.user("dave"), server)).isEqualTo(new Counts(1500, 0, 600L, null, 600));
    assertThat(TenantCounters.allUsers(server)).isEqualTo(new Counts(1500, 0, 600L, null, 600));
    assertThat(RegionServerMetrics.counters(server, "dave", UserOperations.READS).succeeded()).isEqualTo(900);
  }

  @Test
  void aTablesAndANamespacesComeFromThePerTableMetrics() {
    assertThat(TenantCounters.of(Subject.table("usertable"), SERVER)).isEqualTo(new Counts(9000, 100, 45L, 4096L));
    assertThat(TenantCounters.of(Subject.table("sales:orders"), SERVER)).isEqualTo(new Counts(70, 30, 3L, 1000L));
    assertThat(TenantCounters.of(Subject.namespace("sales"), SERVER)).isEqualTo(new Counts(75, 31, 3L, 1024L));
    assertThat(TenantCounters.of(Subject.namespace("default"), SERVER))
        .as("the default namespace's tables are not told apart in the throttling counters")
        .isEqualTo(new Counts(9000, 100, null, 4096L));
  }

  @Test
  void everyUserTogetherIsTheSumOfTheirs() {
    // reads 1080 + 50 (alice) + 210 (bob), writes 307; refused 40 + 3 + 5, of them reads 45, counted twice as gets
    assertThat(TenantCounters.allUsers(SERVER)).isEqualTo(new Counts(1340, 307, 48L, null, 90));
  }

  @Test
  void aUserOnATableIsNotCountedApartByHBase() {
    Subject s = new Subject("alice", null, "usertable");
    assertThat(TenantCounters.measurable(s)).isFalse();
    assertThat(TenantCounters.of(s, SERVER)).isNull();
  }
}
