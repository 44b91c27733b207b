package io.hbaseqos.operator.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The real kubectl (built by hack/k8s-binaries.sh) against the test API server, or another one. */
public final class Kubectl {
  private Kubectl() {}

  public record Result(int exit, String output) {}

  public static Result run(String... args) {
    return on(KubeApi.kubeconfig(), args);
  }

  /** kubectl against another API server (the real node's, say). */
  public static Result on(java.nio.file.Path kubeconfig, String... args) {
    List<String> cmd = new ArrayList<>(List.of(KubeApi.kubectl(), "--kubeconfig", kubeconfig.toString()));
    cmd.addAll(List.of(args));
    return Processes.run(cmd, Map.of());
  }
}
