package io.hbaseqos.operator.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.api.QuotaSettingsSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which unmanaged quotas Remove may take: not those of unmanagedIgnore, and only those of unmanagedInclude when set. */
class ResyncPolicyTest {

  @Test
  void removeTakesWhatIsIncludedAndNotIgnored() {
    QuotaSettingsSpec q = new QuotaSettingsSpec();
    q.setResyncPeriod("30s");
    q.setUnmanagedIgnore(List.of("^user=svc_keep"));
    Resync.Policy all = Resync.Policy.of(q);
    assertThat(all.period()).isEqualTo(Duration.ofSeconds(30));
    assertThat(all.removable("user=anyone")).isTrue();
    assertThat(all.removable("user=svc_keep_1")).isFalse();
    q.setUnmanagedInclude(List.of("^user=svc_", "^table=scratch:"));
    Resync.Policy some = Resync.Policy.of(q);
    assertThat(some.removable("user=svc_a")).isTrue();
    assertThat(some.removable("table=scratch:t")).isTrue();
    assertThat(some.removable("user=anyone")).as("outside every include").isFalse();
    assertThat(some.removable("user=svc_keep_1")).as("ignore wins").isFalse();
  }

  /** Exponential for java.util.regex (it would not return within the timeout), linear for RE2. */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aPatternCatastrophicForABacktrackingEngineIsMatchedInLinearTime() {
    QuotaSettingsSpec q = new QuotaSettingsSpec();
    q.setUnmanagedIgnore(List.of("^user=(a+)+$"));
    String subject = "user=" + "a".repeat(10_000) + "!";
    assertThat(Resync.Policy.of(q).removable(subject)).isTrue();
  }
}
