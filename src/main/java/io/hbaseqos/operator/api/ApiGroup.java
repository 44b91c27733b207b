package io.hbaseqos.operator.api;

/** API group and version shared by the project's custom resources. */
public final class ApiGroup {
  public static final String GROUP = "hbaseqos.io";
  public static final String VERSION = "v1alpha1";

  private ApiGroup() {}
}
