package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/** What the operator planned and what the scheduler made of it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TopologyStatus {
  /** Schedulable nodes in the pool. */
  private Integer nodes;
  /** Nodes of the pool that are cordoned (not counted). */
  private List<String> cordonedNodes;
  private Integer desiredRegionServers;
  private Integer readyRegionServers;
  /** RegionServer pods per node as actually scheduled ("" for pending ones). */
  private Map<String, Integer> regionServersPerNode;
  /** Heap per RegionServer, e.g. "30g". */
  private String heap;
  /** Container memory request and limit per RegionServer, e.g. "36Gi". */
  private String memory;
  /** The block cache the plan's heap gives: {@code 3G per RegionServer (30% of the heap), 18G in all}. */
  private String blockCache;

  public String getBlockCache() {
    return blockCache;
  }

  public void setBlockCache(String blockCache) {
    this.blockCache = blockCache;
  }
  private List<String> warnings;

  public Integer getNodes() {
    return nodes;
  }

  public void setNodes(Integer nodes) {
    this.nodes = nodes;
  }

  public List<String> getCordonedNodes() {
    return cordonedNodes;
  }

  public void setCordonedNodes(List<String> cordonedNodes) {
    this.cordonedNodes = cordonedNodes;
  }

  public Integer getDesiredRegionServers() {
    return desiredRegionServers;
  }

  public void setDesiredRegionServers(Integer desiredRegionServers) {
    this.desiredRegionServers = desiredRegionServers;
  }

  public Integer getReadyRegionServers() {
    return readyRegionServers;
  }

  public void setReadyRegionServers(Integer readyRegionServers) {
    this.readyRegionServers = readyRegionServers;
  }

  public Map<String, Integer> getRegionServersPerNode() {
    return regionServersPerNode;
  }

  public void setRegionServersPerNode(Map<String, Integer> regionServersPerNode) {
    this.regionServersPerNode = regionServersPerNode;
  }

  public String getHeap() {
    return heap;
  }

  public void setHeap(String heap) {
    this.heap = heap;
  }

  public String getMemory() {
    return memory;
  }

  public void setMemory(String memory) {
    this.memory = memory;
  }

  public List<String> getWarnings() {
    return warnings;
  }

  public void setWarnings(List<String> warnings) {
    this.warnings = warnings;
  }
}
