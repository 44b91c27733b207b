package io.hbaseqos.operator.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The project's examples/, pointed at a given ZooKeeper quorum (they say localhost:2181). */
public final class Examples {
  private Examples() {}

  /** HBase namespaces the examples' namespace tenants name (the operator does not create namespaces). */
  public static final java.util.List<String> HBASE_NAMESPACES = java.util.List.of("etl");

  /**
   * The examples pointed at {@code hbase}, whose namespaces the examples name are created first
   * (as the example's comment tells a user to).
   */
  public static Path forHBase(StandaloneHBase hbase) {
    try (org.apache.hadoop.hbase.client.Admin admin = hbase.admin()) {
      java.util.List<String> existing = java.util.List.of(admin.listNamespaces());
      for (String n : HBASE_NAMESPACES) {
        if (!existing.contains(n)) {
          admin.createNamespace(org.apache.hadoop.hbase.NamespaceDescriptor.create(n).build());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return withQuorum(hbase.quorum());
  }

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
