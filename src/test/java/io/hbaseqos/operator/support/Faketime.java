package io.hbaseqos.operator.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/**
 * A process's wall clock, offset from the machine's and stepped while it runs: Debian's libfaketime
 * (hack/faketime.sh installs it) preloaded, reading its offset from a file it looks at again at most
 * once a second. The monotonic clock is left alone, as an NTP step or a resumed VM leaves it.
 */
public final class Faketime {
  private final Path library;
  private final Path offsetFile;

  private Faketime(Path library, Path offsetFile) {
    this.library = library;
    this.offsetFile = offsetFile;
  }

  /** A wall clock {@code seconds} ahead of the machine's (behind when negative). */
  public static Faketime offset(long seconds) {
    Kubectl.Result r = Processes.run(List.of("bash", Paths.projectDir().resolve("hack/faketime.sh").toString()),
        Map.of());
    String[] lines = r.output().strip().split("\n");
    Path lib = Path.of(lines[lines.length - 1].strip());
    if (r.exit() != 0 || !Files.isRegularFile(lib)) {
      throw new IllegalStateException("hack/faketime.sh found no libfaketime:\n" + r.output());
    }
    try {
      Path file = Files.createTempFile("hbaseqos-faketime", ".offset");
      file.toFile().deleteOnExit();
      Faketime f = new Faketime(lib, file);
      f.write(seconds);
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The environment that puts a process on this clock. The JVM times its waits on the monotonic clock;
   * libfaketime's "monotonic fix" moves their deadlines by the wall clock's offset, so with any offset every
   * timed wait (Object.wait, LockSupport.parkNanos) returned at once: the operator spun and its HBase client
   * never connected. Off, waits take what they ask (measured: 300 ms for 300 ms at +1 h).
   */
  public Map<String, String> env() {
    return Map.of("LD_PRELOAD", library.toString(), "FAKETIME_TIMESTAMP_FILE", offsetFile.toString(),
        "FAKETIME_CACHE_DURATION", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_FORCE_MONOTONIC_FIX", "0");
  }

  /**
   * Sets the offset: the process's wall clock jumps to the machine's plus {@code seconds} at its first
   * reading of the time a second after it last read the file (a JVM reads the time all the while), so
   * this returns two seconds after the write. Whether the process took the step is for the caller to
   * check (its log's times).
   */
  public void step(long seconds) throws InterruptedException {
    write(seconds);
    Thread.sleep(2_000);
  }

  private void write(long seconds) {
    try {
      Path tmp = offsetFile.resolveSibling(offsetFile.getFileName() + ".tmp");
      Files.writeString(tmp, (seconds < 0 ? "" : "+") + seconds + "\n");
      Files.move(tmp, offsetFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
