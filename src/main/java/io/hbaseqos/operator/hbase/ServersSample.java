package io.hbaseqos.operator.hbase;

import java.time.Instant;
import java.util.Map;

/**
 * Every live RegionServer's metrics at one moment, by Prometheus name, as usage reads them from a {@link MetricsSample}.
 *
 * @param at when they were read
 * @param servers per server its metrics
 */
public record ServersSample(Instant at, Map<String, Map<String, Double>> servers) {}
