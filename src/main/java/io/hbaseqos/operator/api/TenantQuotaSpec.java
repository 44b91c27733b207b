package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.hbaseqos.operator.quota.Limit;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "(has(self.throttles) && size(self.throttles) > 0) || (has(self.bypassGlobals) && self.bypassGlobals) || has(self.calibration) || has(self.space) || has(self.namespaceLimits) || has(self.qos)",
    message = "declare at least one throttle (or bypassGlobals: true, a calibration, a space quota, namespaceLimits or qos)")
@ValidationRule(value = "!has(self.namespaceLimits) || (has(self.subject.namespace) && !has(self.subject.user))",
    message = "namespaceLimits apply to a namespace subject: HBase keeps maxtables and maxregions on the namespace")
@ValidationRule(value = "!(has(self.space) || has(self.namespaceLimits)) || !((has(self.subject.namespace) "
    + "&& self.subject.namespace in ['hbase', 'backup']) || (has(self.subject.table) && (self.subject.table.startsWith('hbase:') "
    + "|| self.subject.table.startsWith('backup:'))))",
    message = "space quotas and namespace limits are not set on HBase's system namespaces ('hbase', 'backup'): "
        + "they hold HBase's own tables")
@ValidationRule(value = "!has(self.space) || !has(self.subject.user)",
    message = "space quotas apply to a table or a namespace: HBase has no space quota for a user")
@ValidationRule(value = "!has(self.bypassGlobals) || !self.bypassGlobals || (has(self.subject.user) && !has(self.subject.table) && !has(self.subject.namespace))",
    message = "bypassGlobals applies to a user subject only (HBase stores it on the user, not on a user+table or user+namespace pair)")
@ValidationRule(value = "!has(self.calibration) || self.calibration.source != 'HBase' "
    + "|| (has(self.subject.user) && !has(self.subject.table) && !has(self.subject.namespace))",
    message = "calibration from HBase metrics needs a user subject: RegionServers count a user's operations over all "
        + "of the user's tables; use source Prometheus for a table, a namespace, or a user on one table or namespace")
@ValidationRule(value = "!has(self.qos) || !has(self.qos.latencyObjectives) "
    + "|| self.qos.latencyObjectives.all(o, o.source != 'HBase') "
    + "|| (has(self.subject.user) && !has(self.subject.table) && !has(self.subject.namespace))",
    message = "a latency objective read from HBase needs a user subject: RegionServers keep latency histograms per "
        + "user; use source Prometheus for a table or a namespace")
@ValidationRule(value = "!has(self.qos) || !has(self.qos.sheddable) || !has(self.throttles) "
    + "|| !self.throttles.exists(t, t.type == (self.qos.sheddable.operations == 'reads' ? 'READ_NUMBER' "
    + ": self.qos.sheddable.operations == 'writes' ? 'WRITE_NUMBER' : 'REQUEST_NUMBER'))",
    message = "qos.sheddable moves the request-number throttle of its operations (all: REQUEST_NUMBER, reads: "
        + "READ_NUMBER, writes: WRITE_NUMBER): set qos.sheddable.ceiling instead of listing that throttle in throttles")
@ValidationRule(value = "!has(self.qos) || !has(self.qos.sheddable) || !has(self.calibration) "
    + "|| self.calibration.operations == self.qos.sheddable.operations",
    message = "calibration and qos.sheddable must move the same throttle: give them the same operations")
@ValidationRule(value = "!has(self.enforcement) || self.enforcement != 'DryRun' || !(has(self.calibration) || has(self.qos))",
    message = "enforcement DryRun cannot be combined with calibration or qos: their loops act by writing limits to HBase")
public class TenantQuotaSpec {

  public enum Scope { MACHINE, CLUSTER }

  /** Enforce: HBase holds what the spec declares. DryRun: planned and predicted, never written. */
  public enum Enforcement { Enforce, DryRun }

  /** The scope HBase gives a limit declared with {@code scope} (unset: MACHINE, HBase's default). */
  public static Limit.Scope limitScope(Scope scope) {
    return scope == Scope.CLUSTER ? Limit.Scope.CLUSTER : Limit.Scope.MACHINE;
  }

  public enum DeletionPolicy { Delete, Retain }

  @Required
  @ValidationRule(value = "self == oldSelf", message = "clusterRef is immutable; create a new TenantQuota instead")
  @JsonPropertyDescription("The HBaseCluster whose quotas this resource manages: in this namespace, or in one whose HBaseCluster "
      + "grants this namespace the subject.")
  private ClusterRef clusterRef;

  @Required
  @ValidationRule(value = "self == oldSelf", message = "subject is immutable; create a new TenantQuota instead")
  @JsonPropertyDescription("Who is throttled. Immutable.")
  private QuotaSubject subject;

  @Size(max = 13)
  @ValidationRule(value = "self.all(x, self.exists_one(y, y.type == x.type))", message = "each throttle type may appear only once")
  @JsonPropertyDescription("Throttles, at most one per HBase throttle type.")
  private List<ThrottleSpec> throttles = new ArrayList<>();

  @Default("MACHINE")
  @JsonPropertyDescription("MACHINE: the limit applies on each RegionServer (HBase's default). CLUSTER: HBase divides it among RegionServers.")
  private Scope scope = Scope.MACHINE;

  @JsonPropertyDescription("User subjects only: the user ignores table, namespace and RegionServer throttles.")
  private Boolean bypassGlobals;

  @Default("Enforce")
  @JsonPropertyDescription("Enforce: HBase holds what this resource declares. DryRun: the operator validates and plans it, "
      + "writes nothing to HBase (not on creation, change or deletion) and reports in status.dryRun what HBase would "
      + "do: the share of the tenant's requests it would refuse and the ops/s it would then get, per RegionServer, "
      + "from the tenant's measured requests. Switching to Enforce writes exactly the plan. Not with calibration or qos.")
  private Enforcement enforcement = Enforcement.Enforce;

  @Default("Delete")
  @JsonPropertyDescription("Delete: removing this resource removes its throttles from HBase. Retain: they stay.")
  private DeletionPolicy deletionPolicy = DeletionPolicy.Delete;

  @JsonPropertyDescription("Optional: a target ops/s the operator calibrates one request-number throttle toward. "
      + "A throttle of that type in throttles is the starting limit; the calibrated limit is reported in "
      + "status.calibration (the operator never writes spec).")
  private CalibrationSpec calibration;

  @JsonPropertyDescription("Table and namespace subjects: a space quota (size limit and violation policy). A table's "
      + "own space quota takes precedence over its namespace's.")
  private SpaceSpec space;

  @JsonPropertyDescription("Namespace subjects: the most tables and regions the namespace may hold, kept on its "
      + "descriptor. Once declared, the TenantQuota owns both maximums; one left out is removed.")
  private NamespaceLimitsSpec namespaceLimits;

  @JsonPropertyDescription("Optional: latency protection. A priority, latency objectives the operator protects by "
      + "slowing down sheddable tenants of lower priority on the same HBaseCluster, and, for a sheddable tenant, the "
      + "floor and ceiling of its limit. Protection takes precedence over calibration.")
  private QosSpec qos;

  public QosSpec getQos() {
    return qos;
  }

  public void setQos(QosSpec qos) {
    this.qos = qos;
  }

  public NamespaceLimitsSpec getNamespaceLimits() {
    return namespaceLimits;
  }

  public void setNamespaceLimits(NamespaceLimitsSpec namespaceLimits) {
    this.namespaceLimits = namespaceLimits;
  }

  public SpaceSpec getSpace() {
    return space;
  }

  public void setSpace(SpaceSpec space) {
    this.space = space;
  }

  public CalibrationSpec getCalibration() {
    return calibration;
  }

  public void setCalibration(CalibrationSpec calibration) {
    this.calibration = calibration;
  }

  public ClusterRef getClusterRef() {
    return clusterRef;
  }

  public void setClusterRef(ClusterRef clusterRef) {
    this.clusterRef = clusterRef;
  }

  public QuotaSubject getSubject() {
    return subject;
  }

  public void setSubject(QuotaSubject subject) {
    this.subject = subject;
  }

  public List<ThrottleSpec> getThrottles() {
    return throttles;
  }

  public void setThrottles(List<ThrottleSpec> throttles) {
    this.throttles = throttles;
  }

  public Scope getScope() {
    return scope;
  }

  public void setScope(Scope scope) {
    this.scope = scope;
  }

  public Boolean getBypassGlobals() {
    return bypassGlobals;
  }

  public void setBypassGlobals(Boolean bypassGlobals) {
    this.bypassGlobals = bypassGlobals;
  }

  public Enforcement getEnforcement() {
    return enforcement;
  }

  public void setEnforcement(Enforcement enforcement) {
    this.enforcement = enforcement;
  }

  /** Whether the spec asks for a dry run (nothing written to HBase). */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean dryRun() {
    return enforcement == Enforcement.DryRun;
  }

  public DeletionPolicy getDeletionPolicy() {
    return deletionPolicy;
  }

  public void setDeletionPolicy(DeletionPolicy deletionPolicy) {
    this.deletionPolicy = deletionPolicy;
  }
}
