package io.hbaseqos.operator.hbase;

import java.io.IOException;

/** SPNEGO ({@code Authorization: Negotiate}) tokens for an info server that asks for them. */
@FunctionalInterface
public interface Negotiator {
  /** No credentials: an info server that asks for SPNEGO answers 401, reported as such. */
  Negotiator NONE = host -> null;

  /** A token for the HTTP service on {@code host}, base64; null when this operator has no Kerberos login. */
  String token(String host) throws IOException;
}
