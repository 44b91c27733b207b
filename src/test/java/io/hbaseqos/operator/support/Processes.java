package io.hbaseqos.operator.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Helpers for the processes the tests start (HBase, the packaged operator, kubectl, helm). */
public final class Processes {
  private Processes() {}

  /** Runs a command to its end (at most two minutes) and returns its exit code and combined output. */
  public static Kubectl.Result run(List<String> cmd, Map<String, String> env) {
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      pb.environment().putAll(env);
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("timed out: " + cmd);
      }
      return new Kubectl.Result(p.exitValue(), out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** SIGKILL, and waits until the process is gone: a crash, as a node failure or the OOM killer would end it. */
  public static void kill(Process process) {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGSTOP (paused) or SIGCONT: a paused process keeps its sockets open and answers nothing. */
  public static void pause(Process process, boolean paused) {
    try {
      int rc = new ProcessBuilder("kill", paused ? "-STOP" : "-CONT", String.valueOf(process.pid())).start().waitFor();
      if (rc != 0) {
        throw new IllegalStateException("kill " + (paused ? "-STOP" : "-CONT") + " exited with " + rc);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Asks the process to stop, and kills it if it has not within the grace period. */
  static void stop(Process process, Duration grace) {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The last lines of a log file, for failure messages. */
  static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log)";
    }
  }
}
