package io.hbaseqos.operator.cluster;

/** Turning HBase client exceptions (deeply wrapped) into short messages for events and logs. */
public final class Errors {
  private Errors() {}

  public static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  /** The root cause's class and message on one line, at most 300 characters. */
  public static String rootMessage(Throwable e) {
    Throwable t = rootCause(e);
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + t.getMessage();
    m = m.replaceAll("\\s+", " ");
    return m.length() > 300 ? m.substring(0, 300) + "..." : m;
  }
}
