package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class QuotaSettingsSpec {

  /**
   * A duration as a CEL pattern: parts of at most six digits, so with {@link #DURATION_SIZE} characters
   * no duration overflows CEL's {@code duration()} (Go's 292 years) or a Java {@code long} of ms.
   */
  public static final String DURATION_PATTERN = "^([0-9]{1,6}(ms|s|m|h))+$";
  public static final int DURATION_SIZE = 16;
  /** A CEL rule: a well-formed duration of at most 24 hours (the other rules word the rest). */
  static final String AT_MOST_A_DAY = "!self.matches('" + DURATION_PATTERN + "') || duration(self) <= duration('24h')";

  public enum UnmanagedPolicy { Retain, Remove }

  public enum ReadAccounting { BlockBytesScanned, ResultSize }

  /** The largest default user quota HBase can read: it parses them as an int ({@code Configuration.getInt}). */
  static final String INT_BOUND_MESSAGE = "a default user quota is read by HBase as an int: at most 2147483647 "
      + "requests, bytes or ms per second (2047M/sec, 1G/sec)";

  public static final int UNMANAGED_IGNORE_SIZE = 256;

  public static final java.time.Duration DEFAULT_REFRESH = java.time.Duration.ofSeconds(30);

  @Default("true")
  @JsonPropertyDescription("hbase.quota.enabled the cluster is expected to run with; the operator reports when quotas are not supported.")
  private Boolean enabled = Boolean.TRUE;

  @Default("30s")
  @Size(max = DURATION_SIZE)
  @ValidationRule(value = "self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "')",
      message = "must be a duration such as 30s, 1m30s or 500ms")
  @ValidationRule(value = "!self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "') || self.matches('[1-9]')",
      message = "must be longer than zero")
  @ValidationRule(value = AT_MOST_A_DAY, message = "must be at most 24h")
  @JsonPropertyDescription("hbase.quota.refresh.period the cluster runs with (HBase's own default is 12 h since 2.6.3; 30-60 s is recommended).")
  private String refreshPeriod = "30s";

  @Default("60s")
  @Size(max = DURATION_SIZE)
  @ValidationRule(value = "self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "')",
      message = "must be a duration such as 30s, 1m30s or 500ms")
  @ValidationRule(value = "!self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "') || self.matches('[1-9]')",
      message = "must be longer than zero")
  @ValidationRule(value = AT_MOST_A_DAY, message = "must be at most 24h")
  @ValidationRule(value = "!self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "') || duration(self) >= duration('1s')",
      message = "must be at least 1s: each resync is a scan of hbase:quota")
  @JsonPropertyDescription("How often the operator reads hbase:quota (one scan) to detect and undo changes made outside it.")
  private String resyncPeriod = "60s";

  @Default("Retain")
  @JsonPropertyDescription("Quotas in HBase that no TenantQuota owns: Retain leaves them alone, Remove deletes them (except those matching unmanagedIgnore).")
  private UnmanagedPolicy unmanagedPolicy = UnmanagedPolicy.Retain;

  @Size(max = 64)
  @ValidationRule(value = "self.all(p, ''.matches(p) || !''.matches(p))",
      message = "each unmanagedIgnore pattern must be a regular expression in RE2 syntax")
  @JsonPropertyDescription("Regular expressions (RE2 syntax: no backreferences or lookaround, matched in linear time) matched against a subject rendered as 'user=u', 'namespace=ns', 'table=ns:t', 'user=u,table=ns:t' or 'user=u,namespace=ns'; matching quotas are never removed.")
  private List<@Size(max = UNMANAGED_IGNORE_SIZE) String> unmanagedIgnore = new ArrayList<>();

  @Size(max = 64)
  @ValidationRule(value = "self.all(p, ''.matches(p) || !''.matches(p))",
      message = "each unmanagedInclude pattern must be a regular expression in RE2 syntax")
  @JsonPropertyDescription("Regular expressions (RE2 syntax) matched like unmanagedIgnore; when set, Remove takes only "
      + "the quotas that match one of them (and none of unmanagedIgnore): the part of a shared HBase this cluster "
      + "tidies, e.g. '^user=svc_'.")
  private List<@Size(max = UNMANAGED_IGNORE_SIZE) String> unmanagedInclude = new ArrayList<>();

  public List<String> getUnmanagedInclude() {
    return unmanagedInclude;
  }

  public void setUnmanagedInclude(List<String> unmanagedInclude) {
    this.unmanagedInclude = unmanagedInclude;
  }

  @JsonPropertyDescription("The RegionServers' throttle rate limiter (hbase.quota.rate.limiter) and refill interval. "
      + "Left out: not checked, and not written when the operator runs the RegionServers (HBase's default applies).")
  private RateLimiterSpec rateLimiter;

  @Size(max = 10)
  @ValidationRule(value = "self.all(x, self.exists_one(y, y.type == x.type))", message = "each throttle type may appear only once")
  @ValidationRule(value = "self.all(t, !t.type.endsWith('_CAPACITY_UNIT'))",
      message = "HBase has no default user quota for capacity-unit throttles (READ_, WRITE_ and REQUEST_CAPACITY_UNIT)")
  @ValidationRule(value = "self.all(t, has(t.limit) ? t.limit.lowerAscii().endsWith('/sec') : (!has(t.timeUnit) || t.timeUnit == 'sec'))",
      message = "default user quotas are per second on each RegionServer: write the limit with /sec")
  @ValidationRule(value = "self.all(t, !has(t.scope) || t.scope == 'MACHINE')",
      message = "default user quotas apply on each RegionServer: scope CLUSTER is not allowed")
  @ValidationRule(value = "self.all(t, !has(t.limit) || !t.limit.matches('^[0-9]+[a-zA-Z]+/[a-zA-Z]+$') || "
      + "(size(t.limit.find('^[0-9]+')) <= 10 && int(t.limit.find('^[0-9]+')) <= (t.limit.matches('(?i)^[0-9]+k/') ? 2097151 "
      + ": t.limit.matches('(?i)^[0-9]+m/') ? 2047 : t.limit.matches('(?i)^[0-9]+g/') ? 1 "
      + ": t.limit.matches('(?i)^[0-9]+[tp]/') ? 0 : 2147483647)))", message = INT_BOUND_MESSAGE)
  @ValidationRule(value = "self.all(t, !has(t.value) || t.value <= (!has(t.sizeUnit) || t.sizeUnit == 'B' ? 2147483647 "
      + ": t.sizeUnit == 'K' ? 2097151 : t.sizeUnit == 'M' ? 2047 : t.sizeUnit == 'G' ? 1 : 0))", message = INT_BOUND_MESSAGE)
  @JsonPropertyDescription("Default user quotas (hbase.quota.default.user.machine.*, HBase 2.6.0+; the ATOMIC_* and "
      + "REQUEST_HANDLER_USAGE_MS ones 2.6.3+): throttles, per second on each RegionServer, for every user that has no "
      + "user quota of its own. Once declared, the list owns those keys: types left out must be unset. Capacity-unit "
      + "types have none. Left out: not checked.")
  private List<ThrottleSpec> defaultUserQuotas;

  @Size(max = 128)
  @ValidationRule(value = "self.matches('^[A-Za-z0-9._-]+$')",
      message = "userOverrideKey is the name of a request attribute: letters, digits, '.', '_' and '-'")
  @JsonPropertyDescription("hbase.quota.user.override.key (HBase 2.6.0+): the request attribute whose value, when a "
      + "client sets it, is the user quotas are charged to instead of the connection's user (a proxy serving many "
      + "tenants). Left out: not checked.")
  private String userOverrideKey;

  @JsonPropertyDescription("How reads are charged to READ_SIZE, REQUEST_SIZE and *_CAPACITY_UNIT throttles (HBase 2.6.0+): "
      + "BlockBytesScanned (HBase's default) charges the larger of the block bytes scanned and the result size, so a "
      + "heavily filtered scan pays for what it reads; ResultSize (hbase.quota.use.result.size.bytes=true) charges "
      + "only the bytes returned. Left out: not checked.")
  private ReadAccounting readAccounting;

  @JsonPropertyDescription("Bytes per capacity unit for the *_CAPACITY_UNIT throttles. Left out: not checked.")
  private CapacityUnitSizeSpec capacityUnitSize;

  /** The field of this spec that declares a key. */
  public static String fieldOf(io.hbaseqos.operator.quota.RuntimeKey key) {
    return switch (key) {
      case RATE_LIMITER -> "spec.quotas.rateLimiter.type";
      case REFILL_INTERVAL_MS -> "spec.quotas.rateLimiter.refillInterval";
      case USER_OVERRIDE_KEY -> "spec.quotas.userOverrideKey";
      case USE_RESULT_SIZE_BYTES -> "spec.quotas.readAccounting";
      case READ_CAPACITY_UNIT -> "spec.quotas.capacityUnitSize.read";
      case WRITE_CAPACITY_UNIT -> "spec.quotas.capacityUnitSize.write";
      default -> "spec.quotas.defaultUserQuotas";
    };
  }

  public RateLimiterSpec getRateLimiter() {
    return rateLimiter;
  }

  public void setRateLimiter(RateLimiterSpec rateLimiter) {
    this.rateLimiter = rateLimiter;
  }

  public List<ThrottleSpec> getDefaultUserQuotas() {
    return defaultUserQuotas;
  }

  public void setDefaultUserQuotas(List<ThrottleSpec> defaultUserQuotas) {
    this.defaultUserQuotas = defaultUserQuotas;
  }

  public String getUserOverrideKey() {
    return userOverrideKey;
  }

  public void setUserOverrideKey(String userOverrideKey) {
    this.userOverrideKey = userOverrideKey;
  }

  public ReadAccounting getReadAccounting() {
    return readAccounting;
  }

  public void setReadAccounting(ReadAccounting readAccounting) {
    this.readAccounting = readAccounting;
  }

  public CapacityUnitSizeSpec getCapacityUnitSize() {
    return capacityUnitSize;
  }

  public void setCapacityUnitSize(CapacityUnitSizeSpec capacityUnitSize) {
    this.capacityUnitSize = capacityUnitSize;
  }

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public String getRefreshPeriod() {
    return refreshPeriod;
  }

  public void setRefreshPeriod(String refreshPeriod) {
    this.refreshPeriod = refreshPeriod;
  }

  public String getResyncPeriod() {
    return resyncPeriod;
  }

  public void setResyncPeriod(String resyncPeriod) {
    this.resyncPeriod = resyncPeriod;
  }

  public UnmanagedPolicy getUnmanagedPolicy() {
    return unmanagedPolicy;
  }

  public void setUnmanagedPolicy(UnmanagedPolicy unmanagedPolicy) {
    this.unmanagedPolicy = unmanagedPolicy;
  }

  public List<String> getUnmanagedIgnore() {
    return unmanagedIgnore;
  }

  public void setUnmanagedIgnore(List<String> unmanagedIgnore) {
    this.unmanagedIgnore = unmanagedIgnore;
  }
}
