package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class HBaseRefusalsTest {
  @Test
  void aRefusedPermissionIsToldApartAndQuotedInOneLine() {
    // as the client reports it: the server's exception as the message of a remote exception, with its stack
    IOException remote = new IOException("org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient "
        + "permissions for user 'hbase-qos-operator' (global, action=ADMIN)\n\tat org.apache.hadoop.hbase.security"
        + ".access.AccessChecker.requirePermission(AccessChecker.java:160)");
    assertThat(HBaseRefusals.permissionDenied(new RuntimeException("wrapped", remote))).contains(
        "Insufficient permissions for user 'hbase-qos-operator' (global, action=ADMIN)");
    assertThat(HBaseRefusals.permissionDenied(new IOException("Connection refused"))).isEmpty();
    assertThat(HBaseRefusals.permissionDenied(new IOException(
        "org.apache.hadoop.hbase.security.AccessDeniedException: Authentication is required")))
        .as("a client without Kerberos is not missing a permission").isEmpty();
  }
}
