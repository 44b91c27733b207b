package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.hbaseqos.operator.quota.NamespaceState;
import java.util.Objects;

/**
 * A namespace's limits as its descriptor holds them and the counts now in use, from the resync's
 * namespace listing. Present while the TenantQuota manages the namespace's limits.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NamespaceStatus {
  /** For {@code kubectl get}: e.g. {@code 3 of 5 tables, 12 of 100 regions}. */
  private String usage;
  private Long maxTables;
  private Long maxRegions;
  private Integer tables;
  /** Regions online (HBase also counts regions of disabled tables against maxRegions). */
  private Integer regions;
  /** False while HBase has no namespace of that name: the limits are written once it is created. */
  private Boolean exists;

  public static NamespaceStatus of(NamespaceState s) {
    NamespaceStatus st = new NamespaceStatus();
    st.exists = true;
    st.maxTables = s.limits().maxTables();
    st.maxRegions = s.limits().maxRegions();
    st.tables = s.tables();
    st.regions = s.regions();
    st.usage = s.describeUsage();
    return st;
  }

  public static NamespaceStatus missing(String namespace) {
    NamespaceStatus st = new NamespaceStatus();
    st.exists = false;
    st.usage = "namespace " + namespace + " does not exist";
    return st;
  }

  /** Same limits, counts and existence (what decides whether status must be written). */
  @JsonIgnore
  public boolean sameReading(NamespaceStatus o) {
    return o != null && Objects.equals(usage, o.usage) && Objects.equals(maxTables, o.maxTables)
        && Objects.equals(maxRegions, o.maxRegions) && Objects.equals(tables, o.tables)
        && Objects.equals(regions, o.regions) && Objects.equals(exists, o.exists);
  }

  public String getUsage() {
    return usage;
  }

  public void setUsage(String usage) {
    this.usage = usage;
  }

  public Long getMaxTables() {
    return maxTables;
  }

  public void setMaxTables(Long maxTables) {
    this.maxTables = maxTables;
  }

  public Long getMaxRegions() {
    return maxRegions;
  }

  public void setMaxRegions(Long maxRegions) {
    this.maxRegions = maxRegions;
  }

  public Integer getTables() {
    return tables;
  }

  public void setTables(Integer tables) {
    this.tables = tables;
  }

  public Integer getRegions() {
    return regions;
  }

  public void setRegions(Integer regions) {
    this.regions = regions;
  }

  public Boolean getExists() {
    return exists;
  }

  public void setExists(Boolean exists) {
    this.exists = exists;
  }
}
