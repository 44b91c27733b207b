package io.hbaseqos.operator.quota;

import java.util.Optional;

/**
 * HBase refusing the operator's principal a call ({@code AccessDeniedException}, from HBase's
 * {@code AccessController}), told apart from an unreachable cluster: the cluster answers, the
 * principal lacks a permission, and the message says which.
 */
public final class HBaseRefusals {
  private static final String ACCESS_DENIED = "org.apache.hadoop.hbase.security.AccessDeniedException";

  private HBaseRefusals() {}

  /** What a resource says when HBase refuses the operator's principal: HBase's words, and what it needs. */
  public static String explain(String words) {
    return "HBase refuses the operator's principal: " + words + ". It needs global ADMIN and READ on hbase:quota "
        + "(docs/install.md)";
  }

  /**
   * HBase's words when {@code e} (or a cause) is a refused permission, such as
   * {@code Insufficient permissions for user 'op' (global, action=ADMIN)}; empty otherwise.
   */
  public static Optional<String> permissionDenied(Throwable e) {
    int depth = 0;
    for (Throwable t = e; t != null && depth < 20; t = t.getCause() == t ? null : t.getCause(), depth++) {
      String message = t.getMessage() == null ? "" : t.getMessage();
      // "Authentication is required" (a client without Kerberos) is an AccessDeniedException too: not a permission
      if ((t.getClass().getName().equals(ACCESS_DENIED) || message.startsWith(ACCESS_DENIED))
          && message.contains("Insufficient permissions")) {
        String words = message.startsWith(ACCESS_DENIED) ? message.substring(ACCESS_DENIED.length()) : message;
        words = words.replaceFirst("^[:\\s]+", "");
        int end = words.indexOf('\n');
        words = (end < 0 ? words : words.substring(0, end)).replaceAll("\\s+at org\\.apache\\..*$", "").trim();
        return Optional.of(words.length() > 300 ? words.substring(0, 300) + "..." : words);
      }
    }
    return Optional.empty();
  }
}
