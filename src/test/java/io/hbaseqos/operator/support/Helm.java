package io.hbaseqos.operator.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    return on(KubeApi.kubeconfig(), args);
  }

  /** helm against another API server (the real node's, say). */
  public static Kubectl.Result on(Path kubeconfig, String... args) {
    List<String> cmd = new ArrayList<>(List.of(binary().toString(), "--kubeconfig", kubeconfig.toString()));
    cmd.addAll(List.of(args));
    return exec(cmd);
  }

  /** helm without a cluster (lint, template). */
  public static Kubectl.Result offline(String... args) {
    List<String> cmd = new ArrayList<>(List.of(binary().toString()));
    cmd.addAll(List.of(args));
    return exec(cmd);
  }

  private static Kubectl.Result exec(List<String> cmd) {
    return Processes.run(cmd, Map.of("HELM_CACHE_HOME", Paths.cacheDir().resolve("helm/cache").toString(),
        "HELM_CONFIG_HOME", Paths.cacheDir().resolve("helm/config").toString(),
        "HELM_DATA_HOME", Paths.cacheDir().resolve("helm/data").toString()));
  }
}
