package io.hbaseqos.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.cluster.QuotaSettingsCheck.Outcome;
import io.hbaseqos.operator.hbase.ServerSettings;
import io.hbaseqos.operator.quota.RuntimeKey;
import io.hbaseqos.operator.quota.RuntimeSetting;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuotaSettingsCheckTest {
  static final RuntimeSetting FIXED = new RuntimeSetting(RuntimeKey.RATE_LIMITER, RuntimeKey.FIXED_LIMITER, "spec.quotas.rateLimiter.type");
  static final RuntimeSetting REFILL = new RuntimeSetting(RuntimeKey.REFILL_INTERVAL_MS, "100", "spec.quotas.rateLimiter.refillInterval");
  static final RuntimeSetting READS = new RuntimeSetting(RuntimeKey.DEFAULT_USER_READ_NUMBER, "50", "spec.quotas.defaultUserQuotas READ_NUMBER");
  static final RuntimeSetting NO_WRITES = new RuntimeSetting(RuntimeKey.DEFAULT_USER_WRITE_NUMBER, null, "spec.quotas.defaultUserQuotas WRITE_NUMBER");

  static ServerSettings conf(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return ServerSettings.of(m);
  }

  static final ServerSettings AS_DECLARED = conf(RuntimeKey.RATE_LIMITER.key(), RuntimeKey.FIXED_LIMITER,
      RuntimeKey.REFILL_INTERVAL_MS.key(), "100", RuntimeKey.DEFAULT_USER_READ_NUMBER.key(), "50");

  @Test
  void nothingDeclaredNothingChecked() {
    assertThat(QuotaSettingsCheck.check(Map.of("rs1", conf()), List.of(), "2.6.4", false)).isEmpty();
  }

  @Test
  void everyServerAsDeclared() {
    var r = QuotaSettingsCheck.check(Map.of("rs1", AS_DECLARED, "rs2", AS_DECLARED), List.of(FIXED, REFILL, READS, NO_WRITES),
        "2.6.4", false).orElseThrow();
    assertThat(r.outcome()).isEqualTo(Outcome.MATCHES);
    assertThat(r.mismatches()).isEmpty();
    assertThat(r.message()).isEqualTo("every RegionServer runs with the 4 declared quota settings");
  }

  @Test
  void aServerOffNamesTheKeyTheServersAndBothValues() {
    Map<String, ServerSettings> m = new LinkedHashMap<>();
    m.put("rs1", AS_DECLARED);
    m.put("rs2", conf(RuntimeKey.REFILL_INTERVAL_MS.key(), "1000", RuntimeKey.DEFAULT_USER_WRITE_NUMBER.key(), "10",
        RuntimeKey.DEFAULT_USER_READ_NUMBER.key(), "50"));
    var r = QuotaSettingsCheck.check(m, List.of(FIXED, REFILL, READS, NO_WRITES), "2.6.4", false).orElseThrow();
    assertThat(r.outcome()).isEqualTo(Outcome.MISMATCH);
    assertThat(r.mismatches()).containsExactly(
        "hbase.quota.rate.limiter is unset (HBase default AverageIntervalRateLimiter) on rs2, declared FixedIntervalRateLimiter (spec.quotas.rateLimiter.type)",
        "hbase.quota.rate.limiter.refill.interval.ms is 1000 on rs2, declared 100 (spec.quotas.rateLimiter.refillInterval)",
        "hbase.quota.default.user.machine.write.num is 10 on rs2, declared unset (spec.quotas.defaultUserQuotas WRITE_NUMBER)");
    assertThat(r.message()).endsWith("set the declared values in hbase-site.xml of every RegionServer and restart them "
        + "(or change spec.quotas to what the cluster runs with)");
    var managed = QuotaSettingsCheck.check(m, List.of(FIXED), "2.6.4", true).orElseThrow();
    assertThat(managed.message()).contains("the operator has written the declared values to hbase-site.xml");
  }

  @Test
  void manyServersAreSummarised() {
    Map<String, ServerSettings> m = new LinkedHashMap<>();
    for (int i = 1; i <= 5; i++) {
      m.put("rs" + i, conf());
    }
    var r = QuotaSettingsCheck.check(m, List.of(REFILL), "2.6.4", false).orElseThrow();
    assertThat(r.mismatches()).containsExactly("hbase.quota.rate.limiter.refill.interval.ms is unset (HBase default 1000) "
        + "on rs1, rs2, rs3 and 2 more, declared 100 (spec.quotas.rateLimiter.refillInterval)");
  }

  @Test
  void aSettingTheReleaseDoesNotReadIsSaidSo() {
    var old = QuotaSettingsCheck.check(Map.of("rs1", AS_DECLARED), List.of(FIXED, REFILL), "2.5.10", false).orElseThrow();
    assertThat(old.outcome()).isEqualTo(Outcome.UNSUPPORTED);
    assertThat(old.message()).startsWith("spec.quotas.rateLimiter.refillInterval (hbase.quota.rate.limiter.refill.interval.ms) "
        + "needs HBase 2.6.0; the cluster runs 2.5.10, whose RegionServers ignore it");
    var atomic = new RuntimeSetting(RuntimeKey.DEFAULT_USER_ATOMIC_REQUEST_NUMBER, "5", "f");
    assertThat(QuotaSettingsCheck.check(Map.of("rs1", conf()), List.of(atomic), "2.6.2", false).orElseThrow().outcome())
        .isEqualTo(Outcome.UNSUPPORTED);
    assertThat(QuotaSettingsCheck.check(Map.of("rs1", conf(atomic.key().key(), "5")), List.of(atomic), "2.6.3", false)
        .orElseThrow().outcome()).isEqualTo(Outcome.MATCHES);
    // an unknown version refuses nothing on a guess
    assertThat(QuotaSettingsCheck.check(Map.of("rs1", AS_DECLARED), List.of(REFILL), null, false).orElseThrow().outcome())
        .isEqualTo(Outcome.MATCHES);
  }

  @Test
  void unreadOrUnreadableServersMakeItUnknownUnlessAnotherDiffers() {
    assertThat(QuotaSettingsCheck.check(Map.of(), List.of(FIXED), "2.6.4", false).orElseThrow().outcome())
        .isEqualTo(Outcome.UNKNOWN);
    Map<String, ServerSettings> m = new LinkedHashMap<>();
    m.put("rs1", AS_DECLARED);
    m.put("rs2", ServerSettings.unreadable("HTTP 403 from /conf"));
    var r = QuotaSettingsCheck.check(m, List.of(FIXED), "2.6.4", false).orElseThrow();
    assertThat(r.outcome()).isEqualTo(Outcome.UNKNOWN);
    assertThat(r.message()).isEqualTo("could not read the configuration of rs2 (HTTP 403 from /conf)");
    m.put("rs3", conf());
    assertThat(QuotaSettingsCheck.check(m, List.of(FIXED), "2.6.4", false).orElseThrow().outcome()).isEqualTo(Outcome.MISMATCH);
  }
}
