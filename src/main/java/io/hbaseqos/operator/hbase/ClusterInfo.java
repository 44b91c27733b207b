package io.hbaseqos.operator.hbase;

import java.util.Map;

/**
 * What the operator reports about a cluster.
 *
 * @param refreshPeriods {@code hbase.quota.refresh.period} as each live RegionServer runs with it
 *     (server name to setting); servers not read yet are absent
 */
public record ClusterInfo(String version, String clusterId, int regionServers, boolean rpcThrottleEnabled,
    boolean quotasEnabled, Map<String, ServerSetting> refreshPeriods) {}
