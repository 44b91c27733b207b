package io.hbaseqos.operator.quota;

/**
 * A declared quota setting of the RegionServers: the key, the value every RegionServer is to run
 * with ({@code null}: the key is to be unset, as when a default user quota type is left out of a
 * declared list), and the spec field that declares it, for messages.
 */
public record RuntimeSetting(RuntimeKey key, String value, String field) {}
