package io.hbaseqos.operator.topology;

/**
 * A node of the RegionServer pool as the planner sees it.
 *
 * @param schedulable Ready and not cordoned: counted for RegionServers
 * @param cordoned marked unschedulable (kubectl cordon)
 */
public record PoolNode(String name, long allocatableMemory, boolean schedulable, boolean cordoned) {}
