package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/**
 * The RegionServers' block cache as their metrics report it, read with the tenants' usage once per
 * resync: what it can hold, what it holds, how often block reads hit it and how fast it evicts.
 * Written only when it changes materially ({@link #sameReading}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BlockCacheStatus {
  /** For {@code kubectl get}: e.g. {@code 1.2G of 3.0G, 87% hits}. */
  private String summary;
  private Long capacityBytes;
  private Long usedBytes;
  /**
   * The share of data block reads served from the cache over the last period (of all blocks on a server that
   * does not count data blocks apart; absent: none read).
   */
  private Integer hitPercent;
  private Double evictionsPerSecond;
  private List<Server> servers;

  /** One RegionServer's cache. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Server {
    private String name;
    private Long capacityBytes;
    private Long usedBytes;
    private Integer hitPercent;

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public Long getCapacityBytes() {
      return capacityBytes;
    }

    public void setCapacityBytes(Long capacityBytes) {
      this.capacityBytes = capacityBytes;
    }

    public Long getUsedBytes() {
      return usedBytes;
    }

    public void setUsedBytes(Long usedBytes) {
      this.usedBytes = usedBytes;
    }

    public Integer getHitPercent() {
      return hitPercent;
    }

    public void setHitPercent(Integer hitPercent) {
      this.hitPercent = hitPercent;
    }
  }

  /**
   * The same as far as anyone acts on it: the same servers, capacities within 1%, the bytes held
   * within a tenth of the capacity, hit shares within ten points (a period with too few block reads
   * says nothing). Evictions come in bursts: they are refreshed with the rest, never on their own.
   */
  @JsonIgnore
  public boolean sameReading(BlockCacheStatus o) {
    if (o == null || !sameCache(capacityBytes, o.capacityBytes, usedBytes, o.usedBytes, hitPercent, o.hitPercent)
        || servers == null || o.servers == null || servers.size() != o.servers.size()) {
      return false;
    }
    for (int i = 0; i < servers.size(); i++) {
      Server a = servers.get(i);
      Server b = o.servers.get(i);
      if (!Objects.equals(a.name, b.name)
          || !sameCache(a.capacityBytes, b.capacityBytes, a.usedBytes, b.usedBytes, a.hitPercent, b.hitPercent)) {
        return false;
      }
    }
    return true;
  }

  /** One cache (the cluster's or a server's) read the same: capacity, bytes held and hit share. */
  private static boolean sameCache(Long capacity, Long capacityBefore, Long used, Long usedBefore, Integer hits,
      Integer hitsBefore) {
    return sameCapacity(capacity, capacityBefore) && near(used, usedBefore, capacity) && hitsNear(hits, hitsBefore);
  }

  private static boolean near(Long a, Long b, Long capacity) {
    if (a == null || b == null) {
      return a == null && b == null;
    }
    return Math.abs(a - b) <= (capacity == null ? 0 : capacity / 10);
  }

  /** A share first measured is news; one not measured in a period keeps the last (the report carries it). */
  private static boolean hitsNear(Integer now, Integer before) {
    if (now == null || before == null) {
      return now == null;
    }
    return Math.abs(now - before) < 10;
  }

  /** HBase reads the bytes held and the bytes free at two moments: their sum moves a little under load. */
  private static boolean sameCapacity(Long a, Long b) {
    if (a == null || b == null) {
      return a == null && b == null;
    }
    return Math.abs(a - b) <= Math.max(a, b) / 100;
  }

  public String getSummary() {
    return summary;
  }

  public void setSummary(String summary) {
    this.summary = summary;
  }

  public Long getCapacityBytes() {
    return capacityBytes;
  }

  public void setCapacityBytes(Long capacityBytes) {
    this.capacityBytes = capacityBytes;
  }

  public Long getUsedBytes() {
    return usedBytes;
  }

  public void setUsedBytes(Long usedBytes) {
    this.usedBytes = usedBytes;
  }

  public Integer getHitPercent() {
    return hitPercent;
  }

  public void setHitPercent(Integer hitPercent) {
    this.hitPercent = hitPercent;
  }

  public Double getEvictionsPerSecond() {
    return evictionsPerSecond;
  }

  public void setEvictionsPerSecond(Double evictionsPerSecond) {
    this.evictionsPerSecond = evictionsPerSecond;
  }

  public List<Server> getServers() {
    return servers;
  }

  public void setServers(List<Server> servers) {
    this.servers = servers;
  }
}
