package io.hbaseqos.operator.app;

import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * Whether this replica leads, when leader election is on. A standby keeps warm caches but is not
 * ready ({@code /q/health/ready} answers 503): only the leader reconciles and writes.
 *
 * <p>A leader that loses its lease outside a shutdown exits, so it cannot keep writing, and is
 * restarted as a standby. During a shutdown (SIGTERM) losing the lease is the shutdown itself:
 * exiting from inside it would wait for the very shutdown hook that is running, and the process
 * would hang until SIGKILL.
 */
public final class Leadership {
  private static final Logger LOG = Logger.getLogger(Leadership.class);
  private final BooleanSupplier shuttingDown;
  private final Runnable exit;
  private volatile boolean leading;

  /**
   * @param shuttingDown whether the process is already shutting down
   * @param exit how the process ends when it loses its lease while running
   */
  public Leadership(BooleanSupplier shuttingDown, Runnable exit) {
    this.shuttingDown = shuttingDown;
    this.exit = exit;
  }

  /** The JVM's own shutdown detection, and {@code System.exit(1)} on a thread of its own. */
  public static Leadership ofThisProcess() {
    return new Leadership(Leadership::jvmShuttingDown, () -> {
      Thread t = new Thread(() -> System.exit(1), "hbaseqos-lost-lease");
      t.setDaemon(false);
      t.start();
    });
  }

  void startedLeading() {
    leading = true;
    LOG.info("leading: this replica reconciles");
  }

  void stoppedLeading() {
    leading = false;
    if (shuttingDown.getAsBoolean()) {
      LOG.info("released the lease while shutting down");
      return;
    }
    LOG.warn("lost the lease: exiting, to be restarted as a standby");
    exit.run();
  }

  public boolean leading() {
    return leading;
  }

  /** Ready to serve: always without leader election, else only while leading. */
  public boolean ready(boolean electionOn) {
    return !electionOn || leading;
  }

  /** True once the JVM has begun its shutdown (no shutdown hook can be added any more). */
  static boolean jvmShuttingDown() {
    Thread probe = new Thread(() -> { });
    try {
      Runtime.getRuntime().addShutdownHook(probe);
      Runtime.getRuntime().removeShutdownHook(probe);
      return false;
    } catch (IllegalStateException e) {
      return true;
    }
  }
}
