package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class MastersSpec {
  @Default("2")
  @Min(1)
  @Max(5)
  @JsonPropertyDescription("Masters (one active, the others standby).")
  private Integer replicas = 2;

  @Default("4g")
  @ValidationRule(value = "self.matches('^[1-9][0-9]{0,6}(m|g|Mi|Gi)$')",
      message = "heap must be a size such as 4g, 4096m, 4Gi or 4096Mi")
  @JsonPropertyDescription("Heap per master.")
  private String heap = "4g";

  @ValidationRule(value = "self.matches('" + RegionServersSpec.CPU + "')", message = RegionServersSpec.CPU_MESSAGE)
  @ValidationRule(value = "!self.matches('" + RegionServersSpec.CPU + "') || self.matches('[1-9]')",
      message = "cpu must be above zero")
  @JsonPropertyDescription("CPU request per master.")
  private String cpu;

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public String getHeap() {
    return heap;
  }

  public void setHeap(String heap) {
    this.heap = heap;
  }

  public String getCpu() {
    return cpu;
  }

  public void setCpu(String cpu) {
    this.cpu = cpu;
  }
}
