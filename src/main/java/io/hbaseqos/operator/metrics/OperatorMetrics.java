package io.hbaseqos.operator.metrics;

import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.ThrottleKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The operator's own metrics (beside the framework's reconcile metrics). Names follow Prometheus
 * conventions once exported: {@code hbaseqos_quota_writes_total}, {@code hbaseqos_hbase_call_seconds}, ...
 */
public class OperatorMetrics {
  private final MeterRegistry registry;
  private final io.hbaseqos.operator.hbase.InfoServerRequests infoServerRequests =
      new io.hbaseqos.operator.hbase.InfoServerRequests();
  /** Per tenant ("namespace/name"), its gauges' values by "type/scope". */
  private final Map<String, Map<String, AtomicReference<Double>>> tenantLimits = new HashMap<>();
  private final Map<String, AtomicInteger> settingMismatches =
      new ConcurrentHashMap<>();

  /** The HBase calls the operator makes, as named in {@code hbaseqos_hbase_call_seconds{call}}. */
  public static final List<String> CALLS = List.of("readAll", "readUser", "read", "setQuota", "dropEmptySettings",
      "clearUnreadable", "describe");
  /** The kinds of quota writes, as named in {@code hbaseqos_quota_writes_total{op}}. */
  public static final List<String> WRITE_OPS = List.of("SetThrottle", "RemoveThrottle",
      "SetBypassGlobals", "DropEmptySettings", "ClearUnreadable");

  /** Where every cluster's info-server reader counts its requests ({@code hbaseqos_infoserver_requests_total}). */
  public io.hbaseqos.operator.hbase.InfoServerRequests infoServerRequests() {
    return infoServerRequests;
  }

  public OperatorMetrics(MeterRegistry registry) {
    this.registry = registry;
    // counters exist from the start, at 0, so that rate() and increase() see their first event
    for (String kind : List.of("TenantQuota", "HBaseCluster")) {
      invalidCounter(kind);
    }
    droppedCounter();
    for (String path : io.hbaseqos.operator.hbase.InfoServerRequests.PATHS) {
      io.micrometer.core.instrument.FunctionCounter.builder("hbaseqos.infoserver.requests", path,
          infoServerRequests::requests)
          .description("Requests sent to RegionServer info servers (metrics and configuration reads), by path")
          .tag("path", path).register(registry);
    }
  }

  private Counter invalidCounter(String kind) {
    return Counter.builder("hbaseqos.invalid.resources").description("Resources refused for invalid specs")
        .tag("kind", kind).register(registry);
  }

  private Counter droppedCounter() {
    return Counter.builder("hbaseqos.events.dropped")
        .description("Kubernetes Events not sent (Normal-event budget spent or queue full); all are logged")
        .register(registry);
  }

  private Counter writeCounter(String cluster, String op) {
    return Counter.builder("hbaseqos.quota.writes").description("setQuota calls made")
        .tag("cluster", cluster).tag("op", op).register(registry);
  }

  private Counter driftCounter(String cluster) {
    return Counter.builder("hbaseqos.drift.corrections").description("Quota changes made outside the operator and undone")
        .tag("cluster", cluster).register(registry);
  }

  private Counter conflictCounter(String cluster) {
    return Counter.builder("hbaseqos.conflicts").description("TenantQuotas refused because another one owns the subject")
        .tag("cluster", cluster).register(registry);
  }

  private Counter errorCounter(String cluster, String call) {
    return Counter.builder("hbaseqos.hbase.errors").description("Failed HBase Admin calls")
        .tag("cluster", cluster).tag("call", call).register(registry);
  }

  public void quotaWrite(String cluster, String op) {
    writeCounter(cluster, op).increment();
  }

  /** A row that held nothing, and hid later rows from HBase's own listing, was removed. */
  public void emptyRowRemoved(String cluster) {
    emptyRowCounter(cluster).increment();
  }

  private Counter emptyRowCounter(String cluster) {
    return Counter.builder("hbaseqos.empty.rows.removed")
        .description("User rows of hbase:quota that held only bypass_globals=false, removed (they stop HBase's quota listing)")
        .tag("cluster", cluster).register(registry);
  }

  public void driftCorrected(String cluster) {
    driftCounter(cluster).increment();
  }

  public void conflict(String cluster) {
    conflictCounter(cluster).increment();
  }

  public void eventDropped() {
    droppedCounter().increment();
  }

  public void invalidResource(String kind) {
    invalidCounter(kind).increment();
  }

  public void hbaseCall(String cluster, String call, long nanos, boolean ok) {
    Timer.builder("hbaseqos.hbase.call").description("HBase Admin calls")
        .tag("cluster", cluster).tag("call", call).tag("outcome", ok ? "success" : "error")
        .register(registry).record(nanos, TimeUnit.NANOSECONDS);
    if (!ok) {
      errorCounter(cluster, call).increment();
    }
  }

  /**
   * A cluster the operator manages: {@code hbaseqos_cluster_up{cluster}} (1 while it answers, 0
   * while it is in back-off) and its counters, at 0.
   */
  public void clusterUp(String cluster, BooleanSupplier up) {
    driftCounter(cluster);
    conflictCounter(cluster);
    emptyRowCounter(cluster);
    CALLS.forEach(c -> errorCounter(cluster, c));
    WRITE_OPS.forEach(op -> writeCounter(cluster, op));
    Gauge.builder("hbaseqos.cluster.up", up, u -> u.getAsBoolean() ? 1 : 0)
        .description("1 while the HBase cluster answers, 0 while it is unreachable").tag("cluster", cluster)
        .register(registry);
  }

  /**
   * {@code hbaseqos_cluster_quota_setting_mismatches{cluster}}: how many declared quota settings
   * (the refresh period and the keys of {@code spec.quotas}) some RegionServer runs differently
   * with, or does not read at all; 0 when they all match or nothing is declared.
   */
  public void quotaSettingMismatches(String cluster, int count) {
    settingMismatches.computeIfAbsent(cluster, c -> {
      AtomicInteger v = new AtomicInteger();
      Gauge.builder("hbaseqos.cluster.quota.setting.mismatches", v, AtomicInteger::get)
          .description("Declared quota settings some RegionServer of the cluster runs differently with")
          .tag("cluster", c).register(registry);
      return v;
    }).set(count);
  }

  /** Drops the meters of a cluster no longer managed. */
  public void forgetCluster(String cluster) {
    settingMismatches.remove(cluster);
    for (String name : List.of("hbaseqos.cluster.up", "hbaseqos.cluster.quota.setting.mismatches",
        "hbaseqos.drift.corrections", "hbaseqos.conflicts",
        "hbaseqos.hbase.errors", "hbaseqos.quota.writes", "hbaseqos.hbase.call", "hbaseqos.empty.rows.removed")) {
      for (Meter m : registry.find(name).tag("cluster", cluster).meters()) {
        registry.remove(m);
      }
    }
  }

  /**
   * {@code hbaseqos_tenant_limit{namespace,tenantquota,type,scope}}: the limit a TenantQuota holds in
   * HBase now, per second (requests, bytes, capacity units or handler milliseconds, as the type
   * counts). Replaces the tenant's previous series; throttles it no longer holds disappear. Called
   * on every reconcile: costs a lookup of this tenant's own gauges, nothing proportional to the
   * number of tenants.
   */
  public void tenantLimits(String namespace, String name, Map<ThrottleKind, Limit> throttles) {
    String tenant = namespace + "/" + name;
    synchronized (tenantLimits) {
      Map<String, AtomicReference<Double>> held = tenantLimits.computeIfAbsent(tenant, t -> new HashMap<>());
      Map<String, Limit> now = new HashMap<>();
      throttles.forEach((type, l) -> now.put(type.name() + "/" + l.scope().name(), l));
      for (var it = held.entrySet().iterator(); it.hasNext();) {
        var e = it.next();
        if (!now.containsKey(e.getKey())) {
          registry.remove(tenantGauge(namespace, name, e.getKey(), e.getValue()));
          it.remove();
        }
      }
      now.forEach((key, l) -> held.computeIfAbsent(key, k -> {
        AtomicReference<Double> value = new AtomicReference<>(0.0);
        tenantGauge(namespace, name, k, value);
        return value;
      }).set(l.perSecond()));
      if (held.isEmpty()) {
        tenantLimits.remove(tenant);
      }
    }
  }

  public void forgetTenant(String namespace, String name) {
    tenantLimits(namespace, name, Map.of());
    forgetCalibration(namespace, name);
    forgetSpace(namespace, name);
    forgetProtection(namespace, name);
    usages.forget(namespace, name);
  }

  /**
   * Per-tenant values behind a family of gauges: registered with the tenant's first values, removed
   * with the tenant (Micrometer keeps one gauge per id, so registering again finds the same one).
   */
  private final class TenantGauges {
    private final Map<String, double[]> values = new HashMap<>();
    private final int size;
    private final Family family;

    interface Family {
      List<Gauge> register(String namespace, String name, double[] v);
    }

    TenantGauges(int size, Family family) {
      this.size = size;
      this.family = family;
    }

    void set(String namespace, String name, java.util.function.Consumer<double[]> update) {
      synchronized (values) {
        update.accept(values.computeIfAbsent(namespace + "/" + name, t -> {
          double[] v = new double[size];
          family.register(namespace, name, v);
          return v;
        }));
      }
    }

    void forget(String namespace, String name) {
      synchronized (values) {
        double[] v = values.remove(namespace + "/" + name);
        if (v != null) {
          family.register(namespace, name, v).forEach(registry::remove);
        }
      }
    }
  }

  /** Per measured tenant: reads/s, writes/s, throttled share, busiest server's share. */
  private final TenantGauges usages = new TenantGauges(4, this::usageGauges);

  /**
   * {@code hbaseqos_tenant_usage_reads_per_second}, {@code ..._writes_per_second},
   * {@code ..._throttled_ratio} and {@code ..._busiest_server_ratio}, labelled
   * {@code namespace, tenantquota}: four series per tenant whatever its load, set once per sampling
   * period. NaN while not measured (the ratios also when HBase does not count throttling, or idle).
   */
  public void usage(String namespace, String name, io.hbaseqos.operator.usage.Usage u) {
    usages.set(namespace, name, v -> {
      v[0] = u == null ? Double.NaN : u.readsPerSecond();
      v[1] = u == null ? Double.NaN : u.writesPerSecond();
      v[2] = u == null ? Double.NaN : u.throttledShare();
      v[3] = u == null ? Double.NaN : u.busiestServerShare();
    });
  }

  /** The tenant is no longer measured (its subject is a user on a table or namespace). */
  public void forgetUsage(String namespace, String name) {
    usages.forget(namespace, name);
  }

  private List<Gauge> usageGauges(String namespace, String name, double[] v) {
    return List.of(
        slotGauge("hbaseqos.tenant.usage.reads.per.second", "Reads a TenantQuota's subject made over the last "
            + "sampling period, over all RegionServers", v, 0, namespace, name),
        slotGauge("hbaseqos.tenant.usage.writes.per.second", "Writes a TenantQuota's subject made over the last "
            + "sampling period, over all RegionServers", v, 1, namespace, name),
        slotGauge("hbaseqos.tenant.usage.throttled.ratio", "The share of a TenantQuota's requests HBase refused with "
            + "a throttling exception over the last sampling period (HBase 2.6.4+)", v, 2, namespace, name),
        slotGauge("hbaseqos.tenant.usage.busiest.server.ratio", "The busiest RegionServer's share of a TenantQuota's "
            + "operations over the last sampling period", v, 3, namespace, name));
  }

  /** Per tenant with a space quota: used bytes (NaN until HBase reports), limit bytes, in violation. */
  private final TenantGauges spaces = new TenantGauges(3, this::spaceGauges);

  /**
   * {@code hbaseqos_tenant_space_used_bytes}, {@code hbaseqos_tenant_space_limit_bytes} and
   * {@code hbaseqos_tenant_space_in_violation} (1 while HBase enforces the policy), labelled
   * {@code namespace, tenantquota}. Used is NaN until HBase has reported the subject's usage.
   */
  public void space(String namespace, String name, double usedBytes, double limitBytes, boolean inViolation) {
    spaces.set(namespace, name, v -> {
      v[0] = usedBytes;
      v[1] = limitBytes;
      v[2] = inViolation ? 1 : 0;
    });
  }

  public void forgetSpace(String namespace, String name) {
    spaces.forget(namespace, name);
  }

  private List<Gauge> spaceGauges(String namespace, String name, double[] v) {
    return List.of(
        slotGauge("hbaseqos.tenant.space.used.bytes",
            "Bytes a TenantQuota's table or namespace uses, as HBase's master last reported", v, 0, namespace, name),
        slotGauge("hbaseqos.tenant.space.limit.bytes", "The space limit a TenantQuota holds in HBase, in bytes", v, 1,
            namespace, name),
        slotGauge("hbaseqos.tenant.space.in.violation", "1 while HBase enforces the space quota's violation policy",
            v, 2, namespace, name));
  }

  /** Per calibrated tenant: target, observed and error values behind its gauges. */
  private final TenantGauges calibrations = new TenantGauges(3, this::calibrationGauges);
  /** Per calibrated tenant ("namespace/name"): the one state series it has now. */
  private final Map<String, Gauge> calibrationStates = new HashMap<>();

  /**
   * {@code hbaseqos_tenant_target_ops_per_second}, {@code hbaseqos_tenant_observed_ops_per_second},
   * {@code hbaseqos_tenant_calibration_error_ratio} (observed / target - 1) and
   * {@code hbaseqos_tenant_calibration_state{state}} (one series, of the loop's current state, at 1:
   * a change of state replaces it), each labelled {@code namespace, tenantquota}. Observed and error
   * are NaN while unmeasured.
   */
  public void calibration(String namespace, String name, double target, double observed, String state) {
    calibrations.set(namespace, name, v -> {
      v[0] = target;
      v[1] = observed;
      v[2] = Double.isNaN(observed) ? Double.NaN : observed / target - 1;
    });
    synchronized (calibrationStates) {
      Gauge now = calibrationStates.get(namespace + "/" + name);
      if (now != null && state.equals(now.getId().getTag("state"))) {
        return;
      }
      if (now != null) {
        registry.remove(now);
      }
      calibrationStates.put(namespace + "/" + name, Gauge.builder("hbaseqos.tenant.calibration.state", () -> 1)
          .description("The calibration loop's current state (one series per tenant, at 1)")
          .tags("namespace", namespace, "tenantquota", name, "state", state).register(registry));
    }
  }

  public void forgetCalibration(String namespace, String name) {
    calibrations.forget(namespace, name);
    synchronized (calibrationStates) {
      Gauge now = calibrationStates.remove(namespace + "/" + name);
      if (now != null) {
        registry.remove(now);
      }
    }
  }

  private List<Gauge> calibrationGauges(String namespace, String name, double[] v) {
    return List.of(
        slotGauge("hbaseqos.tenant.target.ops.per.second", "Ops/s a calibrated TenantQuota should get", v, 0,
            namespace, name),
        slotGauge("hbaseqos.tenant.observed.ops.per.second", "Ops/s the calibration loop measured in its last period",
            v, 1, namespace, name),
        slotGauge("hbaseqos.tenant.calibration.error.ratio", "Observed over target ops/s, minus 1", v, 2, namespace,
            name));
  }

  /** Per QoS tenant: latency over bound, out of capacity, shed limit and shed values behind its gauges. */
  private final TenantGauges protections = new TenantGauges(4, this::protectionGauges);

  /**
   * A QoS tenant's standing: its worst objective's last reading over its bound (NaN: not protected or
   * unknown), whether it is out of capacity, and, if sheddable, its limit and whether it is held down.
   */
  public void protection(String namespace, String name, double latencyOverBound, boolean outOfCapacity,
      double shedLimit, boolean shed) {
    protections.set(namespace, name, v -> {
      v[0] = latencyOverBound;
      v[1] = outOfCapacity ? 1 : 0;
      v[2] = shedLimit;
      v[3] = shed ? 1 : 0;
    });
  }

  public void forgetProtection(String namespace, String name) {
    protections.forget(namespace, name);
  }

  private List<Gauge> protectionGauges(String namespace, String name, double[] v) {
    return List.of(
        slotGauge("hbaseqos.tenant.latency.objective.ratio",
            "A protected tenant's worst latency reading over its objective's bound (above 1: missed)", v, 0, namespace,
            name),
        slotGauge("hbaseqos.tenant.latency.out.of.capacity",
            "1 while an objective is missed with every sheddable tenant below at its floor", v, 1, namespace, name),
        slotGauge("hbaseqos.tenant.shed.limit", "A sheddable tenant's limit (req/sec) set by latency protection", v, 2,
            namespace, name),
        slotGauge("hbaseqos.tenant.shed", "1 while a sheddable tenant is held below its ceiling", v, 3, namespace,
            name));
  }

  /** One gauge of a tenant's family: slot {@code i} of its values, labelled namespace, tenantquota and {@code tags}. */
  private Gauge slotGauge(String metric, String description, double[] v, int i, String namespace, String name,
      String... tags) {
    return Gauge.builder(metric, v, a -> a[i]).description(description)
        .tags("namespace", namespace, "tenantquota", name).tags(tags).register(registry);
  }

  /** Registers (or finds, Micrometer keeps one per id) the gauge of one throttle of one tenant; key is type/scope. */
  private Gauge tenantGauge(String namespace, String name, String key, AtomicReference<Double> value) {
    String[] typeScope = key.split("/");
    return Gauge.builder("hbaseqos.tenant.limit", value, AtomicReference::get)
        .description("The limit a TenantQuota holds in HBase, per second")
        .tags("namespace", namespace, "tenantquota", name, "type", typeScope[0], "scope", typeScope[1])
        .register(registry);
  }

  /** Number of HBase calls of one kind so far (for benchmarks and tests). */
  public long hbaseCalls(String cluster, String call) {
    return registry.find("hbaseqos.hbase.call").tag("cluster", cluster).tag("call", call).timers().stream()
        .mapToLong(Timer::count).sum();
  }
}
