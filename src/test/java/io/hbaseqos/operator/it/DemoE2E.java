package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.support.Paths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The README's first command: {@code bin/demo}'s program, run as {@code bin/demo} runs it once its
 * build is made (the build this suite runs in), in a process of its own with its own API server,
 * namespace controller and garbage collector, standalone HBase and packaged operator. With
 * {@code --once --no-load --delete-namespace} it applies {@code examples/}, waits for every tenant to
 * be Ready, then deletes the namespace with kubectl: the namespace must go, and {@code hbase:quota}
 * (scanned raw) must then hold the retained tenant's settings and nobody else's.
 */
class DemoE2E {
  @Test
  void theDemosNamespaceDeletedWithKubectlGoesAndTakesItsTenantsQuotasExceptTheRetainedOne() throws Exception {
    Path log = Paths.projectDir().resolve("target/demo-e2e.log");
    Files.createDirectories(log.getParent());
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
        "-Djava.util.logging.manager=org.jboss.logmanager.LogManager", "-cp", classpath,
        "io.hbaseqos.operator.demo.EmbeddedDemo", "--once", "--no-load", "--delete-namespace");
    Process demo = new ProcessBuilder(cmd).directory(Paths.projectDir().toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    boolean ended;
    try {
      ended = demo.waitFor(15, TimeUnit.MINUTES);
    } finally {
      if (demo.isAlive()) {
        demo.descendants().forEach(ProcessHandle::destroyForcibly);
        demo.destroyForcibly();
      }
    }
    String out = Files.readString(log);
    assertThat(ended).as("the demo ended; its output:\n%s", out).isTrue();
    assertThat(demo.exitValue()).as("exit status; output:\n%s", out).isZero();
    List<String> before = section(out, "quota settings in hbase:quota before");
    List<String> after = section(out, "quota settings in hbase:quota now");
    // every example tenant's subject had its settings in HBase before the deletion
    for (String row : List.of("u.analytics ", "u.dashboards ", "u.reports ", "u.backfill ", "n.etl ",
        "t.events ")) {
      assertThat(before).as("before the deletion").anyMatch(c -> c.startsWith(row));
    }
    assertThat(out).contains("namespace demo gone after");
    assertThat(after).as("after: the Retain tenant's settings stay (100 CU/s on its table), nobody else's")
        .singleElement().asString().startsWith("u.reports q:s.usertable = ")
        .contains("read_capacity_unit=100/SECONDS");
  }

  /** The lines printed under the step that starts with {@code title}, up to the next step. */
  static List<String> section(String out, String title) {
    List<String> lines = new ArrayList<>();
    boolean in = false;
    boolean found = false;
    for (String l : out.lines().toList()) {
      if (l.startsWith("==> ")) {
        in = l.startsWith("==> " + title);
        found |= in;
      } else if (in && l.startsWith("  ")) {
        lines.add(l.trim());
      }
    }
    assertThat(found).as("the demo printed \"%s\"; its output:\n%s", title, out).isTrue();
    return lines;
  }
}
