package io.hbaseqos.operator.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU seconds used so far by the processes of a benchmark, grouped by role, from /proc (Linux):
 * the sync benchmark shares two cores between HBase, the API server, etcd, the operator and itself,
 * so where the CPU goes says what bounds it.
 */
final class CpuByProcess {
  private static final double TICKS = 100.0; // USER_HZ on Linux

  private CpuByProcess() {}

  static Map<String, Double> now() {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String role : new String[] {"operator", "hbase", "kube-apiserver", "etcd", "benchmark"}) {
      out.put(role, 0.0);
    }
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).forEach(p -> {
        try {
          String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
          String role = cmd.contains("quarkus-run.jar") ? "operator"
              : cmd.contains("HMaster") ? "hbase"
              : cmd.contains("kube-apiserver") ? "kube-apiserver"
              : cmd.contains("etcd") && !cmd.contains("java") ? "etcd"
              : cmd.contains("SyncBenchmark") ? "benchmark" : null;
          if (role == null) {
            return;
          }
          out.merge(role, cpuSeconds(p), Double::sum);
        } catch (IOException | RuntimeException e) {
          // the process ended between the listing and the read
        }
      });
    } catch (IOException e) {
      return out;
    }
    return out;
  }

  /**
   * CPU seconds (user + system) so far of the process or thread whose /proc directory is {@code dir}
   * ({@code /proc/<pid>} or {@code /proc/<pid>/task/<tid>}).
   */
  static double cpuSeconds(Path dir) throws IOException {
    String stat = Files.readString(dir.resolve("stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // the name may hold spaces
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS; // utime, stime
  }

  static String delta(Map<String, Double> before, Map<String, Double> after) {
    StringBuilder sb = new StringBuilder();
    double total = 0;
    for (var e : after.entrySet()) {
      double d = e.getValue() - before.getOrDefault(e.getKey(), 0.0);
      total += d;
      sb.append(String.format("%s %.0f, ", e.getKey(), d));
    }
    return sb.append(String.format("total %.0f CPU-s", total)).toString();
  }
}
