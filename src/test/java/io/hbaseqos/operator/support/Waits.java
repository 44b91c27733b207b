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
}
