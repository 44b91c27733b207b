package io.hbaseqos.operator.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The real helm (built by hack/k8s-binaries.sh helm), pointed at the test API server. */
public final class Helm {
  private Helm() {}

  public static Path binary() {
    Path helm = Paths.cacheDir().resolve("tools/helm");
    KubeApi.ensure("helm", List.of(helm));
    return helm;
  }

  public static Path chart() {
    return Paths.projectDir().resolve("helm/hbase-qos-operator");
  }

  public static Kubectl.Result run(String... args) {
    List<String> cmd = new ArrayList<>(List.of(binary().toString(), "--kubeconfig", KubeApi.kubeconfig().toString()));
    cmd.addAll(List.of(args));
    return exec(cmd);
  }

  /** helm without a cluster (lint, template). */
  public static Kubectl.Result offline(String... args) {
    List<String> cmd = new ArrayList<>(List.of(binary().toString()));
    cmd.addAll(List.of(args));
    return exec(cmd);
  }

  static Kubectl.Result exec(List<String> cmd) {
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      pb.environment().put("HELM_CACHE_HOME", Paths.cacheDir().resolve("helm/cache").toString());
      pb.environment().put("HELM_CONFIG_HOME", Paths.cacheDir().resolve("helm/config").toString());
      pb.environment().put("HELM_DATA_HOME", Paths.cacheDir().resolve("helm/data").toString());
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
}
