package io.hbaseqos.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The package graph of the main sources, read from their imports and fully qualified names: no cycles. */
class PackageCyclesTest {
  static final String ROOT = "io.hbaseqos.operator.";
  static final Pattern REF = Pattern.compile("\\bio\\.hbaseqos\\.operator\\.([a-z]+)\\.");

  static Map<String, Set<String>> graph() throws IOException {
    Path src = Path.of("src/main/java/io/hbaseqos/operator");
    Map<String, Set<String>> g = new TreeMap<>();
    try (Stream<Path> files = Files.walk(src)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String pkg = src.relativize(f.getParent()).toString().split("/")[0];
        Set<String> deps = g.computeIfAbsent(pkg, k -> new TreeSet<>());
        Matcher m = REF.matcher(Files.readString(f));
        while (m.find()) {
          if (!m.group(1).equals(pkg)) {
            deps.add(m.group(1));
          }
        }
      }
    }
    return g;
  }

  @Test
  void thePackagesFormNoCycle() throws IOException {
    Map<String, Set<String>> g = graph();
    assertThat(g).containsKeys("quota", "api", "hbase", "cluster", "ownership", "sync", "reconciler", "app");
    List<String> cycles = new ArrayList<>();
    for (String start : g.keySet()) {
      find(g, start, start, new ArrayList<>(List.of(start)), cycles);
    }
    assertThat(cycles).as(g.toString()).isEmpty();
  }

  private static void find(Map<String, Set<String>> g, String start, String at, List<String> path, List<String> out) {
    for (String next : g.getOrDefault(at, Set.of())) {
      if (next.equals(start)) {
        out.add(String.join(" -> ", path) + " -> " + start);
      } else if (!path.contains(next) && next.compareTo(start) > 0) {
        path.add(next);
        find(g, start, next, path, out);
        path.remove(path.size() - 1);
      }
    }
  }

  @Test
  void theCoreImportsNothingOfTheEdgesAndOnlyTheWiringImportsTheReconcilers() throws IOException {
    Map<String, Set<String>> g = graph();
    assertThat(g.get("quota")).as("quota is pure").isEmpty();
    assertThat(g.get("api")).containsOnly("quota");
    g.forEach((pkg, deps) -> {
      if (!pkg.equals("app")) {
        assertThat(deps).as(pkg).doesNotContain("reconciler", "app");
      }
    });
    assertThat(g.get("cluster")).doesNotContain("ownership", "sync");
    assertThat(g.get("ownership")).doesNotContain("cluster", "hbase", "sync");
  }

  @Test
  void theTenantsLimitIsDecidedWithoutKubernetesOrHBaseCode() throws IOException {
    Path limit = Path.of("src/main/java/io/hbaseqos/operator/limit");
    try (Stream<Path> files = Files.list(limit)) {
      List<Path> sources = files.filter(p -> p.toString().endsWith(".java")).toList();
      assertThat(sources).isNotEmpty();
      for (Path f : sources) {
        assertThat(Files.readString(f)).as(f.toString())
            .doesNotContain("io.fabric8.", "io.javaoperatorsdk.", "org.apache.hadoop.", "io.hbaseqos.operator.api.TenantQuota;");
      }
    }
    assertThat(graph().get("limit")).doesNotContain("reconciler", "sync", "ownership", "topology", "app");
  }

  /** README's "What is where" names every package of the main sources, as {@code `name/`}. */
  @Test
  void theReadmeNamesEveryPackage() throws IOException {
    Path src = Path.of("src/main/java/io/hbaseqos/operator");
    String readme = Files.readString(Path.of("README.md"));
    try (Stream<Path> dirs = Files.walk(src)) {
      List<String> packages = dirs.filter(Files::isDirectory).filter(d -> !d.equals(src))
          .map(d -> src.relativize(d).toString() + "/").toList();
      assertThat(packages).contains("limit/", "gateway/", "calibration/sim/");
      assertThat(packages).allSatisfy(p -> assertThat(readme).as("README names " + p).contains("| `" + p + "` |"));
    }
  }
}
