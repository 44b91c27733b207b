package io.hbaseqos.operator.support;

import java.nio.file.Path;

/** Where the project and its caches are, for tests. */
public final class Paths {
  private Paths() {}

  public static Path projectDir() {
    String p = System.getProperty("project.basedir");
    return Path.of(p == null ? System.getProperty("user.dir") : p).toAbsolutePath();
  }

  public static Path cacheDir() {
    String env = System.getenv("HBQ_CACHE");
    return env != null ? Path.of(env) : Path.of(System.getProperty("user.home"), ".cache", "hbase-qos-operator");
  }

  public static String k8sVersion() {
    return System.getProperty("k8s.version", "1.34.4");
  }

  /** Directory with kube-apiserver, etcd and kubectl, built by hack/k8s-binaries.sh. */
  public static Path k8sBinDir() {
    return cacheDir().resolve("jenvtest/k8s/" + k8sVersion() + "-linux-amd64");
  }
}
