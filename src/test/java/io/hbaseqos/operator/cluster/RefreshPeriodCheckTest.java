package io.hbaseqos.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.cluster.RefreshPeriodCheck.Outcome;
import io.hbaseqos.operator.hbase.ServerConf;
import io.hbaseqos.operator.hbase.ServerSettings;
import java.util.HashMap;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RefreshPeriodCheckTest {
  private static final Duration THIRTY = Duration.ofSeconds(30);

  @Test
  void everyServerAsDeclared() {
    var r = RefreshPeriodCheck.check(Map.of("rs1", period("30000"), "rs2", period(" 30000 ")),
        THIRTY, "2.6.4");
    assertThat(r.outcome()).isEqualTo(Outcome.MATCHES);
    assertThat(r.observed()).isEqualTo("30s");
    assertThat(r.message()).contains("hbase.quota.refresh.period=30s");
  }

  @Test
  void anUnsetPropertyMeansHBasesDefaultForTheVersion() {
    var r = RefreshPeriodCheck.check(Map.of("rs1", period(null)), THIRTY, "2.6.4");
    assertThat(r.outcome()).isEqualTo(Outcome.MISMATCH);
    assertThat(r.observed()).isEqualTo("12h (HBase default)");
    var old = RefreshPeriodCheck.check(Map.of("rs1", period(null)), Duration.ofMinutes(5), "2.6.2");
    assertThat(old.outcome()).isEqualTo(Outcome.MATCHES);
  }

  @Test
  void oneServerOffNamesIt() {
    Map<String, ServerSettings> m = new LinkedHashMap<>();
    m.put("rs1", period("30000"));
    m.put("rs2", period("60000"));
    var r = RefreshPeriodCheck.check(m, THIRTY, "2.6.4");
    assertThat(r.outcome()).isEqualTo(Outcome.MISMATCH);
    assertThat(r.observed()).isEqualTo("1m, 30s");
    assertThat(r.message()).contains("1m on rs2").contains("30s on rs1").contains("declared 30s");
  }

  @Test
  void garbageIsAMismatchThatSaysSo() {
    var r = RefreshPeriodCheck.check(Map.of("rs1", period("30s")), THIRTY, "2.6.4");
    assertThat(r.outcome()).isEqualTo(Outcome.MISMATCH);
    assertThat(r.message()).contains("'30s' (not a number of ms)");
  }

  @Test
  void unreadableServersMakeItUnknownUnlessAnotherIsWrong() {
    Map<String, ServerSettings> m = new LinkedHashMap<>();
    m.put("rs1", period("30000"));
    m.put("rs2", ServerSettings.unreadable("HTTP 401"));
    var r = RefreshPeriodCheck.check(m, THIRTY, "2.6.4");
    assertThat(r.outcome()).isEqualTo(Outcome.UNKNOWN);
    assertThat(r.message()).contains("rs2 (HTTP 401)").contains("the others run with 30s");
    m.put("rs3", period("600000"));
    assertThat(RefreshPeriodCheck.check(m, THIRTY, "2.6.4").outcome()).isEqualTo(Outcome.MISMATCH);
  }

  @Test
  void nothingReadIsUnknown() {
    assertThat(RefreshPeriodCheck.check(Map.of(), THIRTY, "2.6.4").outcome()).isEqualTo(Outcome.UNKNOWN);
    assertThat(RefreshPeriodCheck.check(null, THIRTY, "2.6.4").outcome()).isEqualTo(Outcome.UNKNOWN);
  }

  @Test
  void longListsAreSummarized() {
    Map<String, ServerSettings> m = new LinkedHashMap<>();
    for (int i = 0; i < 10; i++) {
      m.put("rs" + i, period("60000"));
    }
    assertThat(RefreshPeriodCheck.check(m, THIRTY, "2.6.4").message()).contains("and 7 more");
  }

  /** A RegionServer's /conf holding {@code hbase.quota.refresh.period} (null: not set). */
  static ServerSettings period(String value) {
    Map<String, String> values = new HashMap<>();
    if (value != null) {
      values.put(ServerConf.REFRESH_PERIOD_KEY, value);
    }
    return ServerSettings.of(values);
  }

  /**
   * A written quota is in force at once since 2.6.3 (a reload on every setQuota); before, only after
   * twice the longest refresh period the RegionServers run with, else the declared one (a cached quota
   * is refetched every other run of the refresh chore).
   */
  @Test
  void aWrittenQuotaIsInForceAfterTwiceTheRefreshPeriodBefore263() {
    java.time.Duration declared = java.time.Duration.ofSeconds(30);
    java.time.Duration twiceDeclared = declared.multipliedBy(2);
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.6.4", "5m", declared)).isZero();
    assertThat(RefreshPeriodCheck.quotaInForceAfter(null, "5m", declared)).as("version not known yet").isZero();
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.5.12", "1m", declared)).hasMinutes(2);
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.5.12", "30s, 5m", declared)).as("the slowest server").hasMinutes(10);
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.5.12", "5m (HBase default)", declared)).hasMinutes(10);
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.5.12", "30s, 5m (HBase default)", declared)).hasMinutes(10);
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.5.12", "'x' (not a number of ms)", declared))
        .isEqualTo(twiceDeclared);
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.5.12", "10s, 'x' (not a number of ms)", declared))
        .as("a server not read may run with the declared one").isEqualTo(twiceDeclared);
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.5.12", "1m30s", declared)).hasMinutes(3);
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.5.12", "1500ms", declared)).hasMillis(3000);
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.5.12", null, declared)).as("not read: the declared one")
        .isEqualTo(twiceDeclared);
    assertThat(RefreshPeriodCheck.quotaInForceAfter("2.5.12", "unreadable", declared)).isEqualTo(twiceDeclared);
  }
}
