package io.hbaseqos.operator.hbase;

import java.time.Instant;
import java.util.Map;

/**
 * Every live RegionServer's metrics at one moment, by Prometheus name: one read per server.
 *
 * @param at when they were read
 * @param servers per server its metrics
 */
public record ServersSample(Instant at, Map<String, Map<String, Double>> servers) {}
