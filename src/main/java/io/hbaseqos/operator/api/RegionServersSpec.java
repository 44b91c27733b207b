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
  public static final int DEFAULT_MIN_READY_SECONDS = 20;
  public static final String HEAP_PATTERN = "^(auto|[1-9][0-9]*(m|g|Mi|Gi))$";

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
  @ValidationRule(value = "self.matches('^[0-9]+(Mi|Gi)$')", message = "must be a size in Mi or Gi, such as 4Gi")
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
  @JsonPropertyDescription("Extra hbase-site.xml properties (not those set by other fields).")
  private Map<String, String> siteProperties = new LinkedHashMap<>();

  @Size(max = 64)
  @JsonPropertyDescription("Extra JVM options (not -Xmx/-Xms: use heap).")
  private List<String> jvmOptions = new ArrayList<>();

  @ValidationRule(value = "self.matches('^[0-9]+([.][0-9]+)?m?$')", message = "cpu must be like 2, 0.5 or 500m")
  @JsonPropertyDescription("CPU request per RegionServer, e.g. '4' or '3500m'.")
  private String cpu;

  @Default("120s")
  @Size(max = 32)
  @ValidationRule(value = "self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "')",
      message = "must be a duration such as 30s, 1m30s or 500ms")
  @ValidationRule(value = "!self.matches('" + QuotaSettingsSpec.DURATION_PATTERN + "') || self.matches('[1-9]')",
      message = "must be longer than zero")
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
