package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;

/** The size of one capacity unit ({@code hbase.quota.read.capacity.unit}, {@code hbase.quota.write.capacity.unit}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CapacityUnitSizeSpec {

  @ValidationRule(value = "self >= 1", message = "read must be at least 1 byte")
  @ValidationRule(value = "self <= 1073741824", message = "read must be at most 1073741824 bytes (1 GiB)")
  @JsonPropertyDescription("Bytes read that count as one capacity unit in READ_/REQUEST_CAPACITY_UNIT throttles (HBase's default 1024).")
  private Long read;

  @ValidationRule(value = "self >= 1", message = "write must be at least 1 byte")
  @ValidationRule(value = "self <= 1073741824", message = "write must be at most 1073741824 bytes (1 GiB)")
  @JsonPropertyDescription("Bytes written that count as one capacity unit in WRITE_/REQUEST_CAPACITY_UNIT throttles (HBase's default 1024).")
  private Long write;

  public Long getRead() {
    return read;
  }

  public void setRead(Long read) {
    this.read = read;
  }

  public Long getWrite() {
    return write;
  }

  public void setWrite(Long write) {
    this.write = write;
  }
}
