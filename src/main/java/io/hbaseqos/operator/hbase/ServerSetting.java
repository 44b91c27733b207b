package io.hbaseqos.operator.hbase;

/**
 * One configuration property as a RegionServer runs with it, read from its info server's
 * {@code /conf}: the value, {@code null} when the property is not set (HBase's built-in default
 * applies), or an error when the endpoint could not be read.
 */
public record ServerSetting(String value, String error) {
  public static ServerSetting of(String value) {
    return new ServerSetting(value, null);
  }

  public static ServerSetting unreadable(String error) {
    return new ServerSetting(null, error);
  }

  public boolean readable() {
    return error == null;
  }
}
