package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * The cluster-wide throttle policy: RegionServer throttles (a ceiling on each RegionServer for all
 * traffic), the exceed-throttle switch, and the RPC throttle switch. A part left out is left as
 * HBase has it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.regionServer) || self.regionServer.all(t, !has(t.scope) || t.scope == 'MACHINE')",
    message = "RegionServer throttles apply on each RegionServer: scope CLUSTER is not allowed (HBase's shell refuses it too)")
@ValidationRule(value = "!has(self.exceedThrottle) || self.exceedThrottle != 'Enabled' || (has(self.regionServer) "
    + "&& self.regionServer.exists(t, t.type in " + ThrottlePolicySpec.READS + "))",
    message = "exceedThrottle: Enabled needs a RegionServer throttle that counts reads (REQUEST_* or READ_*, "
        + "not REQUEST_HANDLER_USAGE_MS): HBase refuses the switch without one")
@ValidationRule(value = "!has(self.exceedThrottle) || self.exceedThrottle != 'Enabled' || (has(self.regionServer) "
    + "&& self.regionServer.exists(t, t.type in " + ThrottlePolicySpec.WRITES + "))",
    message = "exceedThrottle: Enabled needs a RegionServer throttle that counts writes (REQUEST_* or WRITE_*, "
        + "not REQUEST_HANDLER_USAGE_MS): HBase refuses the switch without one")
@ValidationRule(value = "!has(self.exceedThrottle) || self.exceedThrottle != 'Enabled' || !has(self.regionServer) "
    + "|| self.regionServer.all(t, !(t.type in " + ThrottlePolicySpec.READS + " || t.type in " + ThrottlePolicySpec.WRITES
    + ") || (has(t.limit) ? t.limit.lowerAscii().endsWith('/sec') : (!has(t.timeUnit) || t.timeUnit == 'sec')))",
    message = "exceedThrottle: Enabled needs every request, read and write RegionServer throttle per second (/sec): "
        + "HBase refuses the switch otherwise")
public class ThrottlePolicySpec {
  static final String READS = "['REQUEST_NUMBER', 'REQUEST_SIZE', 'REQUEST_CAPACITY_UNIT', 'READ_NUMBER', 'READ_SIZE', "
      + "'READ_CAPACITY_UNIT']";
  static final String WRITES = "['REQUEST_NUMBER', 'REQUEST_SIZE', 'REQUEST_CAPACITY_UNIT', 'WRITE_NUMBER', "
      + "'WRITE_SIZE', 'WRITE_CAPACITY_UNIT']";

  public enum Switch { Enabled, Disabled }

  @Size(max = 13)
  @ValidationRule(value = "self.all(x, self.exists_one(y, y.type == x.type))", message = "each throttle type may appear only once")
  @JsonPropertyDescription("RegionServer throttles (REGIONSERVER => 'all'): a ceiling on each RegionServer for all "
      + "traffic, whoever sends it. Once declared, the list owns HBase's RegionServer row: types left out are removed "
      + "(an empty list removes them all). Left out: HBase's RegionServer throttles are left alone.")
  private List<ThrottleSpec> regionServer;

  @io.fabric8.generator.annotation.Default("Enforce")
  @JsonPropertyDescription("Enforce: HBase holds the policy. DryRun: the operator reads what HBase holds and writes nothing "
      + "of the policy; status.throttlePolicyDryRun predicts what the RegionServer throttles would do to the "
      + "requests of all users together, per RegionServer, from their measured requests.")
  private TenantQuotaSpec.Enforcement enforcement = TenantQuotaSpec.Enforcement.Enforce;

  public TenantQuotaSpec.Enforcement getEnforcement() {
    return enforcement;
  }

  public void setEnforcement(TenantQuotaSpec.Enforcement enforcement) {
    this.enforcement = enforcement;
  }

  /** Whether the policy is only to be planned and predicted, never written. */
  public boolean dryRun() {
    return enforcement == TenantQuotaSpec.Enforcement.DryRun;
  }

  @JsonPropertyDescription("Enabled: tenants may go past their own throttles while the RegionServer throttles have "
      + "room (needs RegionServer throttles counting reads and writes, per second). Disabled: they may not. Left out: "
      + "left as HBase has it. RegionServers pick the switch up at their next quota refresh.")
  private Switch exceedThrottle;

  @JsonPropertyDescription("Enabled: HBase enforces throttles. Disabled: throttles are stored, not enforced "
      + "(switch_rpc_throttle). Left out: left as HBase has it.")
  private Switch rpcThrottle;

  public List<ThrottleSpec> getRegionServer() {
    return regionServer;
  }

  public void setRegionServer(List<ThrottleSpec> regionServer) {
    this.regionServer = regionServer;
  }

  public Switch getExceedThrottle() {
    return exceedThrottle;
  }

  public void setExceedThrottle(Switch exceedThrottle) {
    this.exceedThrottle = exceedThrottle;
  }

  public Switch getRpcThrottle() {
    return rpcThrottle;
  }

  public void setRpcThrottle(Switch rpcThrottle) {
    this.rpcThrottle = rpcThrottle;
  }
}
