package io.hbaseqos.operator.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The project's examples/, pointed at a given ZooKeeper quorum (they say localhost:2181). */
public final class Examples {
  private Examples() {}

  public static Path withQuorum(String quorum) {
    try {
      Path out = Files.createTempDirectory("hbaseqos-examples");
      try (var files = Files.list(Paths.projectDir().resolve("examples"))) {
        for (Path p : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
          Files.writeString(out.resolve(p.getFileName()), Files.readString(p).replace("localhost:2181", quorum));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
