package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.blockCacheFraction + self.memstoreFraction <= 0.800001",
    message = "blockCacheFraction + memstoreFraction must be at most 0.8: HBase keeps 20% of the heap free and refuses to start otherwise")
public class RegionServersSpec {
  /** A Hadoop property name (RE2, inside a CEL string). */
  static final String SITE_KEY = "^[A-Za-z0-9_][A-Za-z0-9._-]{0,255}$";
  /** Characters XML 1.0 cannot hold, and C1 controls (RE2, inside a CEL string). */
  static final String XML_ILLEGAL = "[\\\\x00-\\\\x08\\\\x0B\\\\x0C\\\\x0E-\\\\x1F\\\\x7F-\\\\x9F\\\\x{FFFE}\\\\x{FFFF}]";
  /** One JVM option: a leading dash, no whitespace, control or format characters. */
  static final String JVM_OPTION = "^-[^\\\\s\\\\p{Cc}\\\\p{Cf}]+$";
  static final String JVM_HEAP_OPTION = "^-(Xmx|Xms|XX:(MaxHeapSize|InitialHeapSize|MinHeapSize)=)";
  static final String JVM_OPTIONS_FILE = "^-XX:(Flags|VMOptionsFile)=";
  /** A CPU request above zero: a whole or decimal number of cores, or millicores. */
  static final String CPU = "^([0-9]{1,6}([.][0-9]{1,3})?|[0-9]{1,9}m)$";
  static final String CPU_MESSAGE = "cpu must be a number of cores such as 2, 0.5 or 500m";
  /**
   * The hbase-site.xml keys other fields set, as a CEL list, and the prefix of HBase's default user
   * quotas (spec.quotas.defaultUserQuotas); a test keeps them equal to the planner's {@code RESERVED_KEYS}.
   */
  public static final String RESERVED_SITE_KEYS = "['hbase.rootdir', 'hbase.zookeeper.quorum', 'zookeeper.znode.parent', "
      + "'hbase.cluster.distributed', 'hbase.quota.enabled', 'hbase.quota.refresh.period', "
      + "'hbase.regionserver.handler.count', 'hfile.block.cache.size', 'hbase.regionserver.global.memstore.size', "
      + "'hbase.quota.rate.limiter', 'hbase.quota.rate.limiter.refill.interval.ms', 'hbase.quota.user.override.key', "
      + "'hbase.quota.use.result.size.bytes', 'hbase.quota.read.capacity.unit', 'hbase.quota.write.capacity.unit']";
  public static final String RESERVED_SITE_PREFIX = "hbase.quota.default.user.machine.";
  public static final int DEFAULT_MIN_READY_SECONDS = 20;
  /** At most seven digits: 9999999m is far above any heap, and no size overflows a {@code long} of bytes. */
  public static final String HEAP_PATTERN = "^(auto|[1-9][0-9]{0,6}(m|g|Mi|Gi))$";

  @Size(max = 32)
  @JsonPropertyDescription("Labels of the node pool's nodes; RegionServers run only there, replicasPerNode on each.")
  private Map<String, String> nodeSelector = new LinkedHashMap<>();

  @Size(max = 32)
  @JsonPropertyDescription("Tolerations for the node pool's taints.")
  private List<Toleration> tolerations = new ArrayList<>();

  @Default("1")
  @Min(1)
  @Max(16)
  @JsonPropertyDescription("RegionServers on every node of the pool (RegionServers = schedulable nodes x replicasPerNode).")
  private Integer replicasPerNode = 1;

  @Default("auto")
  @ValidationRule(value = "self.matches('" + HEAP_PATTERN + "')",
      message = "heap must be auto or a size such as 30g, 30720m, 30Gi or 30720Mi")
  @JsonPropertyDescription("Heap per RegionServer (-Xms = -Xmx): 'auto' (from the smallest node's allocatable memory, capped at 30g) or e.g. '24g'.")
  private String heap = "auto";

  @Default("4Gi")
  @ValidationRule(value = "self.matches('^[0-9]{1,7}(Mi|Gi)$')", message = "must be a size in Mi or Gi, such as 4Gi")
  @JsonPropertyDescription("Memory of each node left to the OS and other pods (page cache, DataNode) when the heap is 'auto'.")
  private String nodeReserve = "4Gi";

  @Default("30")
  @Min(1)
  @Max(1000)
  @JsonPropertyDescription("hbase.regionserver.handler.count.")
  private Integer handlerCount = 30;

  @Default("0.4")
  @Min(0.05)
  @Max(0.75)
  @JsonPropertyDescription("hfile.block.cache.size: fraction of the heap for the block cache.")
  private Double blockCacheFraction = 0.4;

  @Default("0.4")
  @Min(0.05)
  @Max(0.75)
  @JsonPropertyDescription("hbase.regionserver.global.memstore.size: fraction of the heap for memstores.")
  private Double memstoreFraction = 0.4;

  @Size(max = 128)
  @ValidationRule(value = "self.all(k, k.matches('" + SITE_KEY + "'))",
      message = "siteProperties keys are Hadoop property names of at most 256 letters, digits, '.', '_' and '-' "
          + "(no spaces, control or other characters)")
  @ValidationRule(value = "self.all(k, !(k in " + RESERVED_SITE_KEYS + ") && !k.startsWith('" + RESERVED_SITE_PREFIX + "'))",
      message = "siteProperties may not set what another field sets (hbase.rootdir, the ZooKeeper quorum and "
          + "parent, the quota settings, handlerCount, blockCacheFraction, memstoreFraction): use that field")
  @ValidationRule(value = "self.all(k, !self[k].matches('" + XML_ILLEGAL + "'))",
      message = "siteProperties values are at most 8192 characters, without control characters other than tab "
          + "and line breaks (hbase-site.xml cannot hold them)")
  @JsonPropertyDescription("Extra hbase-site.xml properties (not those set by other fields).")
  private Map<String, @Size(max = 8192) String> siteProperties = new LinkedHashMap<>();

  @Size(max = 64)
  @ValidationRule(value = "self.all(o, o.matches('" + JVM_OPTION + "'))",
      message = "each jvmOption is one option of at most 1024 characters: it starts with '-' and has no spaces, "
          + "control or format characters")
  @ValidationRule(value = "self.all(o, !o.matches('" + JVM_HEAP_OPTION + "'))",
      message = "jvmOptions may not size the heap (-Xmx, -Xms, -XX:MaxHeapSize, -XX:InitialHeapSize, "
          + "-XX:MinHeapSize): use heap")
  @ValidationRule(value = "self.all(o, !o.matches('" + JVM_OPTIONS_FILE + "'))",
      message = "jvmOptions may not read options from a file (-XX:Flags, -XX:VMOptionsFile): the operator cannot "
          + "check them")
  @JsonPropertyDescription("Extra JVM options, one per item (not the heap: use heap).")
  private List<@Size(max = 1024) String> jvmOptions = new ArrayList<>();

  @ValidationRule(value = "self.matches('" + CPU + "')", message = CPU_MESSAGE)
  @ValidationRule(value = "!self.matches('" + CPU + "') || self.matches('[1-9]')", message = "cpu must be above zero")
  @JsonPropertyDescription("CPU request per RegionServer, e.g. '4' or '3500m'.")
  private String cpu;

  @Default("120s")
  @Size(max = QuotaSettingsSpec.DURATION_SIZE)
  @ValidationRule(value = "self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "')",
      message = "must be a duration such as 30s, 1m30s or 500ms")
  @ValidationRule(value = "!self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "') || "
      + "(duration(self) >= duration('1s') && duration(self) <= duration('24h'))",
      message = "must be from 1s to 24h (Kubernetes counts the grace period in whole seconds)")
  @JsonPropertyDescription("Time a RegionServer gets to close its regions on shutdown (terminationGracePeriodSeconds).")
  private String gracefulShutdown = "120s";

  @Default("20")
  @Min(0)
  @Max(3600)
  @JsonPropertyDescription("Seconds a restarted RegionServer stays Ready before a roll restarts the next one "
      + "(the StatefulSet's minReadySeconds): its port opens before it registers with the master, and the next "
      + "one's regions can only move to RegionServers the master knows.")
  private Integer minReadySeconds = DEFAULT_MIN_READY_SECONDS;

  public Map<String, String> getNodeSelector() {
    return nodeSelector;
  }

  public void setNodeSelector(Map<String, String> nodeSelector) {
    this.nodeSelector = nodeSelector;
  }

  public List<Toleration> getTolerations() {
    return tolerations;
  }

  public void setTolerations(List<Toleration> tolerations) {
    this.tolerations = tolerations;
  }

  public Integer getReplicasPerNode() {
    return replicasPerNode;
  }

  public void setReplicasPerNode(Integer replicasPerNode) {
    this.replicasPerNode = replicasPerNode;
  }

  public String getHeap() {
    return heap;
  }

  public void setHeap(String heap) {
    this.heap = heap;
  }

  public String getNodeReserve() {
    return nodeReserve;
  }

  public void setNodeReserve(String nodeReserve) {
    this.nodeReserve = nodeReserve;
  }

  public Integer getHandlerCount() {
    return handlerCount;
  }

  public void setHandlerCount(Integer handlerCount) {
    this.handlerCount = handlerCount;
  }

  public Double getBlockCacheFraction() {
    return blockCacheFraction;
  }

  public void setBlockCacheFraction(Double blockCacheFraction) {
    this.blockCacheFraction = blockCacheFraction;
  }

  public Double getMemstoreFraction() {
    return memstoreFraction;
  }

  public void setMemstoreFraction(Double memstoreFraction) {
    this.memstoreFraction = memstoreFraction;
  }

  public Map<String, String> getSiteProperties() {
    return siteProperties;
  }

  public void setSiteProperties(Map<String, String> siteProperties) {
    this.siteProperties = siteProperties;
  }

  public List<String> getJvmOptions() {
    return jvmOptions;
  }

  public void setJvmOptions(List<String> jvmOptions) {
    this.jvmOptions = jvmOptions;
  }

  public String getCpu() {
    return cpu;
  }

  public void setCpu(String cpu) {
    this.cpu = cpu;
  }

  public Integer getMinReadySeconds() {
    return minReadySeconds;
  }

  public void setMinReadySeconds(Integer minReadySeconds) {
    this.minReadySeconds = minReadySeconds;
  }

  public String getGracefulShutdown() {
    return gracefulShutdown;
  }

  public void setGracefulShutdown(String gracefulShutdown) {
    this.gracefulShutdown = gracefulShutdown;
  }
}
