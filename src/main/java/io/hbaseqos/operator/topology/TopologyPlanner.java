package io.hbaseqos.operator.topology;

import io.hbaseqos.operator.api.QuotaSettingsSpec;
import io.hbaseqos.operator.quota.RuntimeKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plans the RegionServer layout: how many, which heap, how much container memory, and whether
 * HBase will accept the settings. Pure, no I/O.
 *
 * <p>Rules: RegionServers = schedulable pool nodes x replicasPerNode. An "auto" heap comes from
 * the smallest schedulable node (every node must hold replicasPerNode of them): its allocatable
 * memory minus the node reserve, divided among the RegionServers, minus the off-heap overhead,
 * capped at {@link #AUTO_HEAP_CAP} (below the ~32 GB compressed-oops limit; larger heaps bring
 * multi-second GC pauses). Container memory = heap + overhead, with overhead = max(1.5 GiB, 20% of
 * heap) for direct buffers, metaspace, code cache and thread stacks: the heap is at most 83% of
 * the limit, never the 90%+ that ends in OOM kills.
 */
public final class TopologyPlanner {
  public static final long AUTO_HEAP_CAP = 30 * Memory.GIB;
  /** Above this, the JVM loses compressed object pointers: refused. */
  public static final long HEAP_LIMIT = 31 * Memory.GIB;
  public static final long MIN_HEAP = Memory.GIB;
  public static final long MIN_OVERHEAD = 3 * Memory.GIB / 2;
  public static final double OVERHEAD_FRACTION = 0.2;
  /** HBase refuses to start when block cache + memstore leave less than 20% of the heap. */
  public static final double MAX_CACHE_AND_MEMSTORE = 0.8;
  private static final long ROUND = 256 * Memory.MIB;

  /** hbase-site.xml keys that fields of the spec set; siteProperties may not set them. */
  public static final Map<String, String> RESERVED_KEYS = reservedKeys();

  private static Map<String, String> reservedKeys() {
    Map<String, String> keys = new java.util.HashMap<>(Map.ofEntries(
      Map.entry("hbase.rootdir", "spec.topology.rootDir"),
      Map.entry("hbase.zookeeper.quorum", "spec.connection.zookeeperQuorum"),
      Map.entry("zookeeper.znode.parent", "spec.connection.znodeParent"),
      Map.entry("hbase.cluster.distributed", "(always true)"),
      Map.entry("hbase.quota.enabled", "spec.quotas.enabled"),
      Map.entry("hbase.quota.refresh.period", "spec.quotas.refreshPeriod"),
      Map.entry("hbase.regionserver.handler.count", "spec.topology.regionServers.handlerCount"),
      Map.entry("hfile.block.cache.size", "spec.topology.regionServers.blockCacheFraction"),
      Map.entry("hbase.regionserver.global.memstore.size", "spec.topology.regionServers.memstoreFraction")));
    for (RuntimeKey k : RuntimeKey.values()) {
      keys.put(k.key(), QuotaSettingsSpec.fieldOf(k));
    }
    return Map.copyOf(keys);
  }

  /** What the user asked for, in plain values. */
  public record Input(int replicasPerNode, String heap, long nodeReserve, double blockCacheFraction,
      double memstoreFraction, Map<String, String> siteProperties, List<String> jvmOptions) {}

  /** A plan, or the reasons there is none. */
  /** @param blockCache the block cache each RegionServer's heap gives (its {@code hfile.block.cache.size} share) */
  public record Plan(int nodes, List<String> cordoned, int replicas, long heap, long containerMemory,
      List<String> warnings, List<String> errors, long blockCache) {
    public Plan(int nodes, List<String> cordoned, int replicas, long heap, long containerMemory, List<String> warnings,
        List<String> errors) {
      this(nodes, cordoned, replicas, heap, containerMemory, warnings, errors, 0);
    }

    public boolean ok() {
      return errors.isEmpty();
    }
  }

  private TopologyPlanner() {}

  public static long overhead(long heap) {
    return Math.max(MIN_OVERHEAD, (long) Math.ceil(heap * OVERHEAD_FRACTION));
  }

  public static Plan plan(Input in, List<PoolNode> pool) {
    List<String> errors = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    List<PoolNode> usable = pool.stream().filter(PoolNode::schedulable).toList();
    List<String> cordoned = pool.stream().filter(PoolNode::cordoned).map(PoolNode::name).sorted().toList();
    int k = in.replicasPerNode();
    if (k < 1) {
      errors.add("spec.topology.regionServers.replicasPerNode: must be at least 1");
    }
    double sum = in.blockCacheFraction() + in.memstoreFraction();
    if (sum > MAX_CACHE_AND_MEMSTORE + 1e-9) {
      errors.add(String.format("spec.topology.regionServers: blockCacheFraction + memstoreFraction = %.2f; HBase "
          + "keeps 20%% of the heap free and refuses to start above %.1f", sum, MAX_CACHE_AND_MEMSTORE));
    }
    if (in.blockCacheFraction() <= 0 || in.memstoreFraction() <= 0) {
      errors.add("spec.topology.regionServers: blockCacheFraction and memstoreFraction must be above 0");
    }
    errors.addAll(TopologyChecks.siteProperties(in.siteProperties()));
    errors.addAll(TopologyChecks.jvmOptions(in.jvmOptions()));

    long heap = 0;
    long smallest = usable.stream().mapToLong(PoolNode::allocatableMemory).min().orElse(0);
    long largest = usable.stream().mapToLong(PoolNode::allocatableMemory).max().orElse(0);
    long perServer = k < 1 ? 0 : (smallest - in.nodeReserve()) / k;
    if ("auto".equals(in.heap())) {
      if (!usable.isEmpty()) {
        heap = autoHeap(perServer);
        if (heap < MIN_HEAP) {
          String node = usable.stream().min(Comparator.comparingLong(PoolNode::allocatableMemory)).get().name();
          errors.add("spec.topology.regionServers: node " + node + " has " + Memory.quantity(smallest)
              + " allocatable; after the node reserve of " + Memory.quantity(in.nodeReserve()) + " that is "
              + Memory.quantity(Math.max(0, perServer)) + " per RegionServer with replicasPerNode=" + k
              + ", less than a 1g heap plus overhead: lower replicasPerNode or nodeReserve");
          heap = 0;
        }
      }
    } else {
      try {
        heap = Memory.parse(in.heap());
        if (heap > HEAP_LIMIT) {
          errors.add("spec.topology.regionServers.heap: " + in.heap() + " is above 31g, where the JVM loses "
              + "compressed object pointers and GC pauses grow; run more RegionServers per node instead");
        } else if (heap > AUTO_HEAP_CAP) {
          warnings.add("heap " + in.heap() + " is above 30g: expect long GC pauses; consider more RegionServers per node");
        }
        if (heap < MIN_HEAP) {
          errors.add("spec.topology.regionServers.heap: at least 1g");
        }
        if (!usable.isEmpty() && k >= 1 && heap + overhead(heap) > perServer) {
          errors.add("spec.topology.regionServers.heap: " + in.heap() + " plus " + Memory.quantity(overhead(heap))
              + " off-heap does not fit " + k + " times on the smallest node (" + Memory.quantity(smallest)
              + " allocatable, " + Memory.quantity(in.nodeReserve()) + " reserved)");
        }
      } catch (IllegalArgumentException e) {
        errors.add("spec.topology.regionServers.heap: " + e.getMessage());
      }
    }
    if (usable.isEmpty()) {
      warnings.add("no schedulable node matches the pool's nodeSelector: no RegionServer can run");
    } else if (largest > smallest * 1.5) {
      warnings.add("node sizes differ (" + Memory.quantity(smallest) + " to " + Memory.quantity(largest)
          + " allocatable): the heap follows the smallest node, memory on larger ones stays unused");
    }
    if (!errors.isEmpty()) {
      return new Plan(usable.size(), cordoned, 0, 0, 0, warnings, errors);
    }
    long memory = heap == 0 ? 0 : heap + overhead(heap);
    return new Plan(usable.size(), cordoned, usable.size() * k, heap, memory, warnings, List.of(),
        (long) (heap * in.blockCacheFraction()));
  }

  /** The largest heap (a multiple of 256 MiB, at most 30g) whose heap + overhead fits in {@code budget}. */
  static long autoHeap(long budget) {
    long h = budget >= MIN_OVERHEAD / OVERHEAD_FRACTION * (1 + OVERHEAD_FRACTION)
        ? (long) (budget / (1 + OVERHEAD_FRACTION)) : budget - MIN_OVERHEAD;
    h = Math.min(h, AUTO_HEAP_CAP);
    h = h - Math.floorMod(h, ROUND);
    while (h > 0 && h + overhead(h) > budget) {
      h -= ROUND;
    }
    return Math.max(0, h);
  }
}
