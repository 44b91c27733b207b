package io.hbaseqos.operator.hbase;

/** What the operator reports about a cluster. */
public record ClusterInfo(String version, String clusterId, int regionServers, boolean rpcThrottleEnabled,
    boolean quotasEnabled) {}
