package io.hbaseqos.operator.hbase;

import java.util.Map;

/**
 * What the operator reports about a cluster, from one {@code getClusterMetrics} call.
 *
 * @param infoServers live RegionServers: server name (host,port,startcode) to host and info port
 *     (0 or less: the info server is off); read over HTTP by {@link InfoServers}, never inside an
 *     HBase call
 * @param regionsByNamespace regions online per namespace, from the same live servers' reports
 * @param rpcThrottleEnabled HBase's RPC throttle switch; null when HBase refused to say (reading it
 *     needs global ADMIN, which the operator's principal then lacks)
 * @param permissionProblem HBase's refusal of a call the operator needs (a missing permission), or null
 */
public record ClusterInfo(String version, String clusterId, int regionServers, Boolean rpcThrottleEnabled,
    boolean quotasEnabled, Map<String, Map.Entry<String, Integer>> infoServers,
    Map<String, Integer> regionsByNamespace, String permissionProblem) {}
