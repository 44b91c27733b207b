package io.hbaseqos.operator.demo;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hbaseqos.operator.api.TenantQuota;
import io.hbaseqos.operator.support.Examples;
import io.hbaseqos.operator.support.KubeApi;
import io.hbaseqos.operator.support.Kubectl;
import io.hbaseqos.operator.support.OperatorProcess;
import io.hbaseqos.operator.support.Paths;
import io.hbaseqos.operator.support.StandaloneHBase;
import io.hbaseqos.operator.support.ycsb.CalibrationRun;
import io.hbaseqos.operator.support.ycsb.TrajectoryChart;
import io.hbaseqos.operator.support.ycsb.TwoTenants;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.apache.hadoop.hbase.quotas.QuotaSettings;

/**
 * The embedded default behind {@code bin/demo}: a local kube-apiserver + etcd, a real standalone
 * HBase 2.6.4 (quotas on), the packaged operator, and {@code examples/} applied with kubectl.
 * Shows the tenants' statuses and the quotas HBase now holds, then drives YCSB load for the
 * calibrated example and shows its loop converging (a table, and an SVG chart under
 * target/demo/); Ctrl-C stops everything. {@code --no-load} skips the load, {@code --delete-namespace}
 * ends by deleting the demo's namespace and shows what HBase holds after (read raw from
 * {@code hbase:quota}).
 */
public final class EmbeddedDemo {
  private EmbeddedDemo() {}

  public static void main(String[] args) throws Exception {
    boolean once = List.of(args).contains("--once");
    boolean load = !List.of(args).contains("--no-load");
    boolean deleteNamespace = List.of(args).contains("--delete-namespace");
    long t0 = System.nanoTime();
    step("starting kube-apiserver and etcd (binaries from hack/k8s-binaries.sh)");
    KubernetesClient k8s = KubeApi.client();
    step("starting the namespace controller and garbage collector (kube-controller-manager): a deleted "
        + "namespace goes, after the operator has cleaned its tenants' quotas");
    io.hbaseqos.operator.support.ControlPlane controllers = io.hbaseqos.operator.support.ControlPlane
        .namespaceLifecycle();
    step("starting HBase 2.6.4 standalone (master, RegionServer, ZooKeeper; hbase.quota.enabled=true)");
    StandaloneHBase hbase = StandaloneHBase.shared();
    step("starting the operator: target/quarkus-app/quarkus-run.jar");
    OperatorProcess operator = OperatorProcess.start(KubeApi.kubeconfig(), Map.of());
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("\nstopping the operator, HBase and the API server ...");
      operator.close();
      controllers.close();
    }));
    String ns = "demo";
    Kubectl.run("create", "namespace", ns);
    step("kubectl apply -n demo -f examples/   (HBaseCluster pointed at ZooKeeper " + hbase.quorum() + ")");
    Kubectl.Result r = Kubectl.run("apply", "-n", ns, "-f", Examples.forHBase(hbase).toString());
    System.out.print(indent(r.output()));
    Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
    while (Instant.now().isBefore(deadline) && !allReady(k8s, ns)) {
      Thread.sleep(250);
    }
    step(String.format("ready after %.1f s", (System.nanoTime() - t0) / 1e9));
    show(hbase, ns);
    if (load) {
      calibrate(k8s, hbase, ns);
    }
    if (deleteNamespace) {
      deleteNamespace(k8s, hbase, ns);
      System.exit(0);
    }
    System.out.println();
    System.out.println("Try it (another terminal):");
    System.out.println("  export KUBECONFIG=" + KubeApi.kubeconfig());
    System.out.println("  " + KubeApi.kubectl() + " -n demo edit tq analytics      # change a limit, watch HBase follow");
    System.out.println("  " + KubeApi.kubectl() + " delete namespace demo         # tenants cleaned from HBase, then it goes");
    System.out.println("  operator metrics: http://localhost:" + operator.httpPort() + "/q/metrics   log: " + operator.log());
    if (once) {
      System.exit(0);
    }
    System.out.println("Refreshing every 15 s. Ctrl-C stops everything.");
    while (true) {
      Thread.sleep(15_000);
      show(hbase, ns);
    }
  }

  /**
   * The loop converging: YCSB readers as user 'dashboards' (the calibrated example, target 2000
   * reads/s, starting at 1000 req/sec) beside unthrottled readers as 'adhoc'; a table per period
   * and an SVG chart.
   */
  static void calibrate(KubernetesClient k8s, StandaloneHBase hbase, String ns) throws Exception {
    TenantQuota tq = k8s.resources(TenantQuota.class).inNamespace(ns).withName("dashboards").get();
    double target = tq.getSpec().getCalibration().getTargetOpsPerSecond();
    double tolerance = tq.getSpec().getCalibration().getTolerancePercent();
    int period = (int) io.hbaseqos.operator.calibration.CalibrationPlan.of(tq.getSpec()).period().toSeconds();
    step("calibration: YCSB readers as 'dashboards' (target " + (long) target + " reads/s) and as 'adhoc' "
        + "(no quota); one row per " + period + " s period");
    try (TwoTenants load = TwoTenants.start(hbase.clientConfiguration(), "demo_usertable", 5000, "adhoc",
        "dashboards", 2)) {
      List<CalibrationRun.Row> rows = CalibrationRun.follow(k8s, ns, "dashboards", load, target, tolerance, period, 3,
          18, System.out);
      Path chart = Paths.projectDir().resolve("target/demo/calibration.svg");
      Files.createDirectories(chart.getParent());
      Files.writeString(chart, TrajectoryChart.svg("TenantQuota dashboards: calibration toward " + (long) target
          + " reads/s (bin/demo)", rows, target, tolerance));
      CalibrationRun.Row last = rows.get(rows.size() - 1);
      step(String.format("loop %s at limit %s req/sec: the client got %.0f ops/s (%+.1f%%); chart: %s",
          last.state(), last.limit(), last.sample().tOps(), last.errorPct(target), chart));
    }
  }

  /**
   * Deletes the namespace with kubectl, as a tenant team would, and shows that it goes and what
   * HBase holds after: the operator removes its tenants' quotas (and keeps those whose
   * {@code deletionPolicy} is {@code Retain}), then the namespace controller removes the namespace.
   */
  static void deleteNamespace(KubernetesClient k8s, StandaloneHBase hbase, String ns) throws Exception {
    List<String> before = quotaCells(hbase);
    step("quota settings in hbase:quota before (raw scan of family q): " + before.size());
    before.forEach(c -> System.out.println("  " + c));
    step("kubectl delete namespace " + ns + "   (the operator cleans its tenants' quotas, then the namespace goes)");
    long t0 = System.nanoTime();
    Kubectl.Result r = Kubectl.run("delete", "namespace", ns, "--timeout=180s");
    System.out.print(indent(r.output()));
    Instant deadline = Instant.now().plus(Duration.ofSeconds(180));
    while (k8s.namespaces().withName(ns).get() != null && Instant.now().isBefore(deadline)) {
      Thread.sleep(250);
    }
    boolean gone = k8s.namespaces().withName(ns).get() == null;
    step(String.format("namespace %s %s after %.1f s", ns, gone ? "gone" : "still there", (System.nanoTime() - t0)
        / 1e9));
    List<String> cells = quotaCells(hbase);
    step("quota settings in hbase:quota now (raw scan of family q): " + cells.size());
    cells.forEach(c -> System.out.println("  " + c));
  }

  /** The quota settings cells of {@code hbase:quota}, read raw: {@code row family:qualifier = what it holds}. */
  static List<String> quotaCells(StandaloneHBase hbase) {
    return io.hbaseqos.operator.support.QuotaTableRaw.read(hbase).entrySet().stream()
        .map(e -> e.getKey() + " = " + e.getValue()).toList();
  }

  static boolean allReady(KubernetesClient k8s, String ns) {
    List<TenantQuota> all = k8s.resources(TenantQuota.class).inNamespace(ns).list().getItems();
    return !all.isEmpty() && all.stream().allMatch(t -> t.getStatus() != null
        && t.getStatus().condition("Ready").map(c -> "True".equals(c.getStatus())).orElse(false));
  }

  static void show(StandaloneHBase hbase, String ns) throws Exception {
    step("kubectl get hbaseclusters,tenantquotas -n demo");
    System.out.print(indent(Kubectl.run("get", "hbaseclusters,tenantquotas", "-n", ns).output()));
    step("quotas in HBase now (Admin.getQuota, like the shell's list_quotas)");
    try (Admin admin = hbase.admin()) {
      for (QuotaSettings s : admin.getQuota(new QuotaFilter())) {
        String owner = (s.getUserName() == null ? "" : "USER => " + s.getUserName() + ", ")
            + (s.getTableName() == null ? "" : "TABLE => " + s.getTableName() + ", ")
            + (s.getNamespace() == null ? "" : "NAMESPACE => " + s.getNamespace() + ", ");
        System.out.println("  " + owner + s);
      }
    }
  }

  static void step(String s) {
    System.out.println("==> " + s);
  }

  static String indent(String s) {
    return s.lines().map(l -> "  " + l).reduce("", (a, b) -> a + b + "\n");
  }
}
