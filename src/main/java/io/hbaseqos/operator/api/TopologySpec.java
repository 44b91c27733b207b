package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.generator.annotation.Required;

/**
 * The RegionServers and masters the operator runs for this cluster (StatefulSets, ConfigMap,
 * headless Services, PodDisruptionBudgets). Absent: the cluster runs elsewhere and the operator
 * only manages its quotas.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TopologySpec {
  @Required
  @ValidationRule(value = "self.matches('^[a-z0-9][a-z0-9._/:@-]*$')",
      message = "image must be an image reference such as registry.example.com/hbase:2.6.4")
  @JsonPropertyDescription("Container image with HBase (its bin/hbase is started with the generated hbase-site.xml).")
  private String image;

  @Required
  @ValidationRule(value = "self.matches('^[a-z][a-z0-9+.-]*://.+$')",
      message = "rootDir must be a URI such as hdfs://namenode:8020/hbase")
  @JsonPropertyDescription("hbase.rootdir, e.g. hdfs://namenode:8020/hbase.")
  private String rootDir;

  @Default("false")
  @JsonPropertyDescription("Stop changing the Kubernetes objects of this cluster (quotas are still managed).")
  private Boolean paused = Boolean.FALSE;

  @Required
  @JsonPropertyDescription("RegionServers: the node pool, how many per node, heap and HBase settings.")
  private RegionServersSpec regionServers;

  @JsonPropertyDescription("HBase masters.")
  private MastersSpec masters = new MastersSpec();

  @Default("true")
  @JsonPropertyDescription("PodDisruptionBudgets that allow at most one RegionServer and one master down at a time.")
  private Boolean podDisruptionBudget = Boolean.TRUE;

  public String getImage() {
    return image;
  }

  public void setImage(String image) {
    this.image = image;
  }

  public String getRootDir() {
    return rootDir;
  }

  public void setRootDir(String rootDir) {
    this.rootDir = rootDir;
  }

  public Boolean getPaused() {
    return paused;
  }

  public void setPaused(Boolean paused) {
    this.paused = paused;
  }

  public RegionServersSpec getRegionServers() {
    return regionServers;
  }

  public void setRegionServers(RegionServersSpec regionServers) {
    this.regionServers = regionServers;
  }

  public MastersSpec getMasters() {
    return masters;
  }

  public void setMasters(MastersSpec masters) {
    this.masters = masters;
  }

  public Boolean getPodDisruptionBudget() {
    return podDisruptionBudget;
  }

  public void setPodDisruptionBudget(Boolean podDisruptionBudget) {
    this.podDisruptionBudget = podDisruptionBudget;
  }
}
