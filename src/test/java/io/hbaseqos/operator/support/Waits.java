package io.hbaseqos.operator.support;

/** Plain waits for tests that must let time pass (idle periods), not wait for a condition. */
public final class Waits {
  private Waits() {}

  public static void seconds(int s) {
    try {
      Thread.sleep(s * 1000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits until a tenant that has stopped working reports it in {@code status.usage}: reads and
   * writes each within 1 op/s of none, the least change of rate status is rewritten for (a sample
   * that straddled the last operation may leave 0.17 writes/s there for good, and an idle tenant's
   * status is then not rewritten); from then on a test can check that. The reading must come from
   * samples taken after the work stopped: {@code passes} counts the cluster's resync passes (its
   * {@code readAll} calls; a pass takes a usage sample at most 5 s old), and three must have run since
   * this call.
   */
  public static void usageSettled(java.util.function.Supplier<io.hbaseqos.operator.api.TenantQuota> tenant,
      java.util.function.LongSupplier passes) {
    long from = passes.getAsLong();
    org.awaitility.Awaitility.await().atMost(90, java.util.concurrent.TimeUnit.SECONDS)
        .until(() -> passes.getAsLong() >= from + 3);
    org.awaitility.Awaitility.await().atMost(90, java.util.concurrent.TimeUnit.SECONDS).untilAsserted(() -> {
      io.hbaseqos.operator.api.TenantQuota tq = tenant.get();
      io.hbaseqos.operator.api.UsageStatus u = tq.getStatus() == null ? null : tq.getStatus().getUsage();
      org.assertj.core.api.Assertions.assertThat(u).as("status.usage").isNotNull();
      org.assertj.core.api.Assertions.assertThat(u.getReadOpsPerSecond()).isLessThanOrEqualTo(1.0);
      org.assertj.core.api.Assertions.assertThat(u.getWriteOpsPerSecond()).isLessThanOrEqualTo(1.0);
    });
  }
}
