package io.hbaseqos.operator.api;

import io.hbaseqos.operator.quota.Durations;
import io.hbaseqos.operator.quota.InvalidSpecException;
import io.hbaseqos.operator.quota.Limit;
import io.hbaseqos.operator.quota.LimitSyntax;
import io.hbaseqos.operator.quota.RuntimeKey;
import io.hbaseqos.operator.quota.RuntimeSetting;
import io.hbaseqos.operator.quota.SpaceLimit;
import io.hbaseqos.operator.quota.NamespaceLimits;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import io.hbaseqos.operator.quota.ThrottleKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Turns a TenantQuota spec into the settings HBase must hold, or into a list of errors naming
 * each offending field. Repeats the checks the CRD schema makes, so that resources created
 * without them (older CRD, schema validation off) still change nothing when invalid.
 */
public final class DesiredQuotas {

  private DesiredQuotas() {}

  /** Thrown with every problem found, not just the first. */
  public static final class Invalid extends Exception {
    private final List<InvalidSpecException> errors;

    Invalid(List<InvalidSpecException> errors) {
      super(String.join("; ", errors.stream().map(Throwable::getMessage).toList()));
      this.errors = List.copyOf(errors);
    }

    public List<InvalidSpecException> errors() {
      return errors;
    }
  }

  public static Subject subjectOf(QuotaSubject s) {
    return new Subject(s.getUser(), s.getNamespace(), s.getTable());
  }

  public static SubjectQuota from(TenantQuotaSpec spec) throws Invalid {
    List<InvalidSpecException> errors = new ArrayList<>();
    if (spec == null) {
      throw new Invalid(List.of(new InvalidSpecException("spec", "is missing")));
    }
    if (spec.getClusterRef() == null || spec.getClusterRef().getName() == null
        || spec.getClusterRef().getName().isBlank()) {
      errors.add(new InvalidSpecException("spec.clusterRef.name", "is required"));
    }
    QuotaSubject qs = spec.getSubject();
    Subject subject = null;
    if (qs == null) {
      errors.add(new InvalidSpecException("spec.subject", "is required"));
    } else {
      List<InvalidSpecException> subjectErrors =
          Subject.validate(qs.getUser(), qs.getNamespace(), qs.getTable(), "spec.subject");
      errors.addAll(subjectErrors);
      if (subjectErrors.isEmpty()) {
        subject = subjectOf(qs);
      }
    }
    Limit.Scope defaultScope = TenantQuotaSpec.limitScope(spec.getScope());
    Map<ThrottleKind, Limit> throttles = throttles(spec.getThrottles(), "spec.throttles", (t, field) ->
        t.getScope() == null ? defaultScope
            : TenantQuotaSpec.limitScope(t.getScope()), errors);
    boolean bypass = Boolean.TRUE.equals(spec.getBypassGlobals());
    if (bypass && subject != null && subject.kind() != Subject.Kind.USER) {
      errors.add(new InvalidSpecException("spec.bypassGlobals", "applies to a user subject only"));
    }
    errors.addAll(calibrationErrors(spec, subject));
    SpaceLimit space = null;
    if (spec.getSpace() != null) {
      SpaceSpec sp = spec.getSpace();
      if (subject != null && subject.kind() != Subject.Kind.TABLE && subject.kind() != Subject.Kind.NAMESPACE) {
        errors.add(new InvalidSpecException("spec.space",
            "applies to a table or a namespace: HBase has no space quota for a user"));
      }
      if (sp.getPolicy() == null) {
        errors.add(new InvalidSpecException("spec.space.policy",
            "is required: NO_INSERTS, NO_WRITES, NO_WRITES_COMPACTIONS or DISABLE"));
      }
      try {
        long bytes = SpaceLimit.parseSize(sp.getLimit(), "spec.space.limit");
        if (sp.getPolicy() != null) {
          space = new SpaceLimit(bytes, sp.getPolicy());
        }
      } catch (InvalidSpecException e) {
        errors.add(e);
      }
    }
    errors.addAll(namespaceLimitErrors(spec, subject));
    if (subject != null && subject.systemNamespace() != null && (spec.getSpace() != null || spec.getNamespaceLimits() != null)) {
      errors.add(new InvalidSpecException(spec.getSpace() != null ? "spec.space" : "spec.namespaceLimits",
          "is not set on HBase's system namespaces ('hbase', 'backup'): they hold HBase's own tables"));
    }
    errors.addAll(qosErrors(spec, subject));
    if (spec.dryRun() && (spec.getCalibration() != null || spec.getQos() != null)) {
      errors.add(new InvalidSpecException("spec.enforcement", "DryRun cannot be combined with "
          + (spec.getCalibration() != null ? "calibration" : "qos") + ": their loops act by writing limits to HBase"));
    }
    if (throttles.isEmpty() && !bypass && spec.getCalibration() == null && spec.getSpace() == null
        && spec.getNamespaceLimits() == null && spec.getQos() == null && errors.isEmpty()) {
      errors.add(new InvalidSpecException("spec.throttles",
          "declare at least one throttle (or bypassGlobals: true, a calibration, a space quota, namespaceLimits or qos)"));
    }
    if (!errors.isEmpty()) {
      throw new Invalid(errors);
    }
    return new SubjectQuota(subject, throttles, bypass, bypass, space);
  }

  /**
   * The namespace limits a valid spec declares: null when it declares none (the descriptor is then
   * not the TenantQuota's to manage), {@link NamespaceLimits#NONE} for an empty declaration.
   */
  public static NamespaceLimits namespaceLimits(TenantQuotaSpec spec) {
    NamespaceLimitsSpec n = spec == null ? null : spec.getNamespaceLimits();
    return n == null ? null : new NamespaceLimits(n.getMaxTables(), n.getMaxRegions());
  }

  /**
   * The cluster-wide policy an HBaseCluster declares (every part null when it declares none).
   * Repeats the admission checks for resources stored before the schema had them.
   */
  public static io.hbaseqos.operator.quota.RegionServerPolicy throttlePolicy(HBaseClusterSpec spec) throws Invalid {
    ThrottlePolicySpec p = spec == null ? null : spec.getThrottlePolicy();
    if (p == null) {
      return new io.hbaseqos.operator.quota.RegionServerPolicy(null, null, null);
    }
    List<InvalidSpecException> errors = new ArrayList<>();
    Map<ThrottleKind, Limit> throttles = p.getRegionServer() == null ? null
        : throttles(p.getRegionServer(), "spec.throttlePolicy.regionServer", (t, field) -> {
          if (t.getScope() == TenantQuotaSpec.Scope.CLUSTER) {
            throw new InvalidSpecException(field + ".scope", "RegionServer throttles apply on each RegionServer: "
                + "scope CLUSTER is not allowed");
          }
          return Limit.Scope.MACHINE;
        }, errors);
    Boolean exceed = p.getExceedThrottle() == null ? null : p.getExceedThrottle() == ThrottlePolicySpec.Switch.Enabled;
    if (Boolean.TRUE.equals(exceed) && errors.isEmpty()) {
      String refusal = io.hbaseqos.operator.quota.RegionServerPolicy.exceedRefusal(throttles);
      if (refusal != null) {
        errors.add(new InvalidSpecException("spec.throttlePolicy.exceedThrottle", refusal));
      }
    }
    if (!errors.isEmpty()) {
      throw new Invalid(errors);
    }
    return new io.hbaseqos.operator.quota.RegionServerPolicy(throttles, exceed,
        p.getRpcThrottle() == null ? null : p.getRpcThrottle() == ThrottlePolicySpec.Switch.Enabled);
  }

  /**
   * The quota settings {@code spec.quotas} declares for every RegionServer's hbase-site.xml, in key
   * order; empty when it declares none. The schema's checks are repeated here for resources stored
   * without them.
   */
  public static List<RuntimeSetting> runtimeSettings(QuotaSettingsSpec q) throws Invalid {
    List<RuntimeSetting> out = new ArrayList<>();
    if (q == null) {
      return out;
    }
    List<InvalidSpecException> errors = new ArrayList<>();
    RateLimiterSpec rl = q.getRateLimiter();
    if (rl != null) {
      if (rl.getType() == null) {
        errors.add(new InvalidSpecException("spec.quotas.rateLimiter.type", "is required (AverageInterval or FixedInterval)"));
      } else {
        out.add(new RuntimeSetting(RuntimeKey.RATE_LIMITER, rl.getType() == RateLimiterSpec.Type.FixedInterval
            ? RuntimeKey.FIXED_LIMITER : RuntimeKey.AVERAGE_LIMITER, QuotaSettingsSpec.fieldOf(RuntimeKey.RATE_LIMITER)));
      }
      if (rl.getRefillInterval() != null) {
        String field = QuotaSettingsSpec.fieldOf(RuntimeKey.REFILL_INTERVAL_MS);
        try {
          long ms = Durations.parse(rl.getRefillInterval(), Duration.ofMillis(1)).toMillis();
          if (rl.getType() != RateLimiterSpec.Type.FixedInterval) {
            errors.add(new InvalidSpecException(field, "applies to the FixedInterval limiter only"));
          } else if (ms < 1 || ms > 1000) {
            errors.add(new InvalidSpecException(field, "must be between 1ms and 1000ms"));
          } else {
            out.add(new RuntimeSetting(RuntimeKey.REFILL_INTERVAL_MS, String.valueOf(ms), field));
          }
        } catch (IllegalArgumentException e) {
          errors.add(new InvalidSpecException(field, "must be in milliseconds, such as 100ms"));
        }
      }
    }
    if (q.getDefaultUserQuotas() != null) {
      String field = QuotaSettingsSpec.fieldOf(RuntimeKey.DEFAULT_USER_REQUEST_NUMBER);
      Map<ThrottleKind, Limit> limits = throttles(q.getDefaultUserQuotas(), field, (t, item) -> {
        if (t.getScope() == TenantQuotaSpec.Scope.CLUSTER) {
          throw new InvalidSpecException(item + ".scope", "default user quotas apply on each RegionServer: scope CLUSTER is not allowed");
        }
        return Limit.Scope.MACHINE;
      }, errors);
      for (ThrottleKind type : ThrottleKind.values()) {
        RuntimeKey key = RuntimeKey.defaultUser(type);
        Limit l = limits.get(type);
        if (key == null) {
          if (l != null) {
            errors.add(new InvalidSpecException(field, "HBase has no default user quota for " + type));
          }
          continue;
        }
        if (l != null && l.timeUnit() != TimeUnit.SECONDS) {
          errors.add(new InvalidSpecException(field, type + ": default user quotas are per second: write the limit with /sec"));
        } else if (l != null && l.amount() > Integer.MAX_VALUE) {
          errors.add(new InvalidSpecException(field, type + ": " + QuotaSettingsSpec.INT_BOUND_MESSAGE));
        } else {
          out.add(new RuntimeSetting(key, l == null ? null : String.valueOf(l.amount()), field + " " + type));
        }
      }
    }
    if (q.getUserOverrideKey() != null) {
      if (q.getUserOverrideKey().isBlank()) {
        errors.add(new InvalidSpecException(QuotaSettingsSpec.fieldOf(RuntimeKey.USER_OVERRIDE_KEY),
            "must not be empty (leave it out instead)"));
      } else {
        out.add(new RuntimeSetting(RuntimeKey.USER_OVERRIDE_KEY, q.getUserOverrideKey(),
            QuotaSettingsSpec.fieldOf(RuntimeKey.USER_OVERRIDE_KEY)));
      }
    }
    if (q.getReadAccounting() != null) {
      out.add(new RuntimeSetting(RuntimeKey.USE_RESULT_SIZE_BYTES,
          String.valueOf(q.getReadAccounting() == QuotaSettingsSpec.ReadAccounting.ResultSize),
          QuotaSettingsSpec.fieldOf(RuntimeKey.USE_RESULT_SIZE_BYTES)));
    }
    CapacityUnitSizeSpec cu = q.getCapacityUnitSize();
    if (cu != null) {
      capacityUnit(out, errors, RuntimeKey.READ_CAPACITY_UNIT, cu.getRead());
      capacityUnit(out, errors, RuntimeKey.WRITE_CAPACITY_UNIT, cu.getWrite());
    }
    if (!errors.isEmpty()) {
      throw new Invalid(errors);
    }
    out.sort(java.util.Comparator.comparing(r -> r.key().key()));
    return out;
  }

  private static void capacityUnit(List<RuntimeSetting> out, List<InvalidSpecException> errors, RuntimeKey key,
      Long bytes) {
    if (bytes == null) {
      return;
    }
    String field = QuotaSettingsSpec.fieldOf(key);
    if (bytes < 1) {
      errors.add(new InvalidSpecException(field, "must be at least 1 byte"));
    } else {
      out.add(new RuntimeSetting(key, String.valueOf(bytes), field));
    }
  }

  /**
   * Whether the namespace's limits are the resource's to keep: it declares them, or declared them
   * and status still reports them (then they are to be removed).
   */
  public static boolean managesNamespaceLimits(TenantQuota tq) {
    return (tq.getSpec() != null && tq.getSpec().getNamespaceLimits() != null)
        || (tq.getStatus() != null && tq.getStatus().getNamespace() != null);
  }

  private static List<InvalidSpecException> namespaceLimitErrors(TenantQuotaSpec spec, Subject subject) {
    NamespaceLimitsSpec n = spec.getNamespaceLimits();
    List<InvalidSpecException> errors = new ArrayList<>();
    if (n == null) {
      return errors;
    }
    if (subject != null && subject.kind() != Subject.Kind.NAMESPACE) {
      errors.add(new InvalidSpecException("spec.namespaceLimits",
          "apply to a namespace subject: HBase keeps maxtables and maxregions on the namespace"));
    }
    if (n.getMaxTables() == null && n.getMaxRegions() == null) {
      errors.add(new InvalidSpecException("spec.namespaceLimits", "must set maxTables, maxRegions or both; leave "
          + "namespaceLimits out to leave the namespace's limits as HBase has them"));
    }
    if (n.getMaxTables() != null && n.getMaxTables() < 1) {
      errors.add(new InvalidSpecException("spec.namespaceLimits.maxTables",
          "must be at least 1: HBase refuses 0 and negative values (leave it out for no limit)"));
    }
    if (n.getMaxRegions() != null && n.getMaxRegions() < 1) {
      errors.add(new InvalidSpecException("spec.namespaceLimits.maxRegions",
          "must be at least 1: HBase refuses 0 and negative values (leave it out for no limit)"));
    }
    return errors;
  }

  /** A throttle's scope, or why it cannot have the one it names. */
  private interface ScopeRule {
    Limit.Scope of(ThrottleSpec t, String field) throws InvalidSpecException;
  }

  /**
   * A list of throttles by type, at most one each; what is wrong with an item goes to
   * {@code errors}, named {@code field[i]...}, and the item is left out.
   */
  private static Map<ThrottleKind, Limit> throttles(List<ThrottleSpec> list, String field, ScopeRule scope,
      List<InvalidSpecException> errors) {
    Map<ThrottleKind, Limit> throttles = new EnumMap<>(ThrottleKind.class);
    java.util.Set<ThrottleKind> seen = java.util.EnumSet.noneOf(ThrottleKind.class);
    List<ThrottleSpec> items = list == null ? List.of() : list;
    for (int i = 0; i < items.size(); i++) {
      String item = field + "[" + i + "]";
      ThrottleSpec t = items.get(i);
      if (t == null || t.getType() == null) {
        errors.add(new InvalidSpecException(item + ".type", "is required (one of the HBase throttle types)"));
        continue;
      }
      if (!seen.add(t.getType())) {
        errors.add(new InvalidSpecException(item + ".type", t.getType() + " appears more than once"));
        continue;
      }
      try {
        throttles.put(t.getType(), limitOf(t, scope.of(t, item), item));
      } catch (InvalidSpecException e) {
        errors.add(e);
      }
    }
    return throttles;
  }

  private static Limit limitOf(ThrottleSpec t, Limit.Scope scope, String field) throws InvalidSpecException {
    boolean hasLimit = t.getLimit() != null;
    boolean hasValue = t.getValue() != null;
    if (hasLimit == hasValue) {
      throw new InvalidSpecException(field, "set either limit (e.g. " + LimitSyntax.example(t.getType())
          + ") or value with timeUnit, exactly one");
    }
    if (hasLimit) {
      if (t.getTimeUnit() != null || t.getSizeUnit() != null) {
        throw new InvalidSpecException(field, "timeUnit and sizeUnit go with value; a shell limit carries its own units");
      }
      return LimitSyntax.parse(t.getType(), t.getLimit(), scope, field + ".limit");
    }
    TimeUnit unit = t.getTimeUnit() == null ? TimeUnit.SECONDS : LimitSyntax.timeUnit(t.getTimeUnit().name());
    return LimitSyntax.of(t.getType(), t.getValue(), t.getSizeUnit() == null ? null : t.getSizeUnit().name(),
        unit, scope, field);
  }

  /** The schema's checks of spec.qos, repeated for resources created without them. */
  static List<InvalidSpecException> qosErrors(TenantQuotaSpec spec, Subject subject) {
    QosSpec q = spec.getQos();
    List<InvalidSpecException> errors = new ArrayList<>();
    if (q == null) {
      return errors;
    }
    if (q.getPriority() == null || q.getPriority() < 0 || q.getPriority() > 1_000_000) {
      errors.add(new InvalidSpecException("spec.qos.priority", "must be a whole number from 0 to 1000000"));
    }
    List<QosSpec.LatencyObjectiveSpec> os = q.getLatencyObjectives() == null ? List.of() : q.getLatencyObjectives();
    if (os.isEmpty() && q.getSheddable() == null) {
      errors.add(new InvalidSpecException("spec.qos", "needs latencyObjectives, sheddable, or both"));
    }
    for (int i = 0; i < os.size(); i++) {
      QosSpec.LatencyObjectiveSpec o = os.get(i);
      String f = "spec.qos.latencyObjectives[" + i + "]";
      if (o.getBoundMillis() == null || !(o.getBoundMillis() > 0)) {
        errors.add(new InvalidSpecException(f + ".boundMillis", "must be above 0 ms"));
      }
      if (o.getPercentile() != null && !(o.getPercentile() > 0 && o.getPercentile() <= 100)) {
        errors.add(new InvalidSpecException(f + ".percentile", "must be above 0 and at most 100"));
      }
      if (o.getSource() == QosSpec.LatencyObjectiveSpec.Source.HBase && o.getBoundMillis() != null
          && o.getBoundMillis() > 0 && o.getBoundMillis() < 1) {
        errors.add(new InvalidSpecException(f + ".boundMillis", "must be at least 1 ms for source HBase: its "
            + "latency histograms count whole milliseconds"));
      }
      for (int j = 0; j < i; j++) {
        if (os.get(j).sameStatistic(o)) {
          errors.add(new InvalidSpecException(f, "repeats latencyObjectives[" + j + "] (" + o.describe()
              + "): each objective may appear only once"));
        }
      }
      boolean callQueue = o.getSource() == QosSpec.LatencyObjectiveSpec.Source.CallQueue;
      if (callQueue && (o.getOperations() != QosSpec.LatencyObjectiveSpec.Operations.all
          || o.getStatistic() != QosSpec.LatencyObjectiveSpec.Statistic.Mean)) {
        errors.add(new InvalidSpecException(f + ".source", "CallQueue judges the mean wait of every call in the "
            + "RegionServers' call queues: it needs operations all and statistic Mean"));
      }
      if (!callQueue && o.getOperations() == QosSpec.LatencyObjectiveSpec.Operations.all) {
        errors.add(new InvalidSpecException(f + ".operations", "all is for source CallQueue only: HBase and "
            + "Prometheus objectives judge reads or writes"));
      }
      if (o.getSource() == QosSpec.LatencyObjectiveSpec.Source.HBase && (subject == null || subject.user() == null
          || subject.table() != null || subject.namespace() != null)) {
        errors.add(new InvalidSpecException(f + ".source", "HBase keeps latency histograms per user: it needs a "
            + "user subject"));
      }
      if (o.getSource() == QosSpec.LatencyObjectiveSpec.Source.Prometheus && o.getPrometheus() == null) {
        errors.add(new InvalidSpecException(f + ".prometheus", "is required for source Prometheus"));
      }
    }
    QosSpec.SheddableSpec sh = q.getSheddable();
    if (sh != null) {
      if (sh.getFloor() == null || sh.getCeiling() == null || sh.getFloor() < 1 || sh.getFloor() > sh.getCeiling()) {
        errors.add(new InvalidSpecException("spec.qos.sheddable", "needs a floor of at least 1 that does not exceed "
            + "its ceiling"));
      }
      CalibrationSpec.Operations ops = sh.getOperations() == null ? CalibrationSpec.Operations.all : sh.getOperations();
      ThrottleKind type = ops.throttle();
      if (spec.getThrottles() != null && spec.getThrottles().stream()
          .anyMatch(t -> t != null && t.getType() == type)) {
        errors.add(new InvalidSpecException("spec.qos.sheddable", "moves the " + type + " throttle: set its ceiling "
            + "instead of listing " + type + " in throttles"));
      }
      if (spec.getCalibration() != null && spec.getCalibration().getOperations() != null
          && spec.getCalibration().getOperations() != ops) {
        errors.add(new InvalidSpecException("spec.qos.sheddable.operations", "must equal calibration.operations"));
      }
    }
    return errors;
  }

  /** The schema's checks of spec.calibration, repeated for resources created without them. */
  static List<InvalidSpecException> calibrationErrors(TenantQuotaSpec spec, Subject subject) {
    CalibrationSpec c = spec.getCalibration();
    List<InvalidSpecException> errors = new ArrayList<>();
    if (c == null) {
      return errors;
    }
    String f = "spec.calibration";
    if (c.getTargetOpsPerSecond() == null || c.getTargetOpsPerSecond() < 1 || c.getTargetOpsPerSecond() > 1e9) {
      errors.add(new InvalidSpecException(f + ".targetOpsPerSecond", "must be between 1 and 1000000000"));
    }
    long min = c.getMinLimit() == null ? 1 : c.getMinLimit();
    long max = c.getMaxLimit() == null ? 1_000_000_000L : c.getMaxLimit();
    if (min < 1 || max < min) {
      errors.add(new InvalidSpecException(f + ".minLimit", "must be at least 1 and not above maxLimit"));
    }
    if (c.getMaxStep() != null && !(c.getMaxStep() >= 1.05 && c.getMaxStep() <= 100)) {
      errors.add(new InvalidSpecException(f + ".maxStep", "must be between 1.05 and 100"));
    }
    if (c.getTolerancePercent() != null && !(c.getTolerancePercent() >= 0.5 && c.getTolerancePercent() <= 25)) {
      errors.add(new InvalidSpecException(f + ".tolerancePercent", "must be between 0.5 and 25"));
    }
    if (c.getPeriod() != null && !c.getPeriod().matches("^[1-9][0-9]*(s|m)$")) {
      errors.add(new InvalidSpecException(f + ".period", "must look like 30s or 1m"));
    } else if (c.getPeriod() != null && Durations.parse(c.getPeriod(), null).toSeconds() < 10) {
      errors.add(new InvalidSpecException(f + ".period", "must be at least 10s"));
    }
    boolean prometheus = c.getSource() == CalibrationSpec.Source.Prometheus;
    if (prometheus && (c.getPrometheus() == null || c.getPrometheus().getQuery() == null
        || c.getPrometheus().getQuery().isBlank())) {
      errors.add(new InvalidSpecException(f + ".prometheus", "source Prometheus needs a query"));
    }
    if (!prometheus && subject != null && subject.kind() != Subject.Kind.USER) {
      errors.add(new InvalidSpecException(f + ".source", "HBase metrics count operations per user, over all of the "
          + "user's tables: a user subject is needed (for a table, a namespace, or a user on one table or namespace, "
          + "use source Prometheus)"));
    }
    return errors;
  }
}
