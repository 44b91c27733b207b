package io.hbaseqos.operator.hbase;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.hadoop.conf.Configuration;

/**
 * Which certificates the operator trusts when it reads HTTPS info servers ({@code hbase.ssl.enabled}):
 * the truststore of Hadoop's HTTPS client settings ({@code ssl.client.truststore.*}), else the one of
 * HBase's RPC TLS ({@code hbase.rpc.tls.truststore.*}, usually the same CA), else the JVM's own.
 * A PEM file of certificates needs no password; PKCS12 and JKS files take the matching
 * {@code .password} key. The type is the {@code .type} key, or follows the file's extension
 * ({@code .pem}/{@code .crt}, {@code .p12}/{@code .pfx}, {@code .jks}); otherwise JKS for Hadoop's
 * keys (their default) and PEM for HBase's. Read once per connection: a rotated CA is seen when the
 * cluster's connection is made again (an operator restart, a changed {@code spec.connection}).
 */
public final class InfoServerTrust {
  private InfoServerTrust() {}

  static final String[] PREFIXES = {"ssl.client.truststore.", "hbase.rpc.tls.truststore."};

  /**
   * The TLS context for the cluster's info servers: null for plain HTTP or the JVM's default trust.
   *
   * @throws IllegalArgumentException a truststore is configured but cannot be read (named, with why)
   */
  public static SSLContext context(Configuration conf) {
    if (!conf.getBoolean("hbase.ssl.enabled", false)) {
      return null;
    }
    KeyStore trust = trusted(conf);
    if (trust == null) {
      return null;
    }
    try {
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("the truststore for HTTPS info servers: " + e.getMessage(), e);
    }
  }

  /** The certificates trusted, from the first truststore configured; null when none is. */
  static KeyStore trusted(Configuration conf) {
    for (String prefix : PREFIXES) {
      String location = conf.getTrimmed(prefix + "location", "");
      if (!location.isEmpty()) {
        // Hadoop's HTTPS client settings default to JKS, HBase's RPC TLS guesses from the file name
        String type = conf.getTrimmed(prefix + "type", "");
        return load(Path.of(location), type.isEmpty() ? typeOf(Path.of(location), prefix.startsWith("ssl.client.")
            ? "JKS" : "PEM") : type, password(conf, prefix + "password"), prefix + "location");
      }
    }
    return null;
  }

  private static char[] password(Configuration conf, String key) {
    try {
      char[] p = conf.getPassword(key);
      return p == null || p.length == 0 ? null : p;
    } catch (IOException e) {
      throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
    }
  }

  static KeyStore load(Path file, String type, char[] password, String key) {
    String kind = type.toUpperCase(Locale.ROOT);
    try {
      KeyStore trust;
      if ("PEM".equals(kind)) {
        trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(file)) {
          int i = 0;
          for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
            trust.setCertificateEntry("ca-" + i++, c);
          }
          if (i == 0) {
            throw new IllegalArgumentException(key + " " + file + ": no certificate in the file");
          }
        }
      } else {
        trust = KeyStore.getInstance(kind);
        try (InputStream in = Files.newInputStream(file)) {
          trust.load(in, password);
        }
        if (trust.size() == 0) {
          // PKCS12 loaded without its password skips the certificates it encrypts, silently
          throw new IllegalArgumentException(key + " " + file + " (" + kind + "): no certificate read (is "
              + key.replace(".location", ".password") + " set?)");
        }
      }
      return trust;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(key + " " + file + " (" + kind + "): " + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
    }
  }

  static String typeOf(Path file, String otherwise) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".p12") || name.endsWith(".pfx")) {
      return "PKCS12";
    }
    if (name.endsWith(".jks")) {
      return "JKS";
    }
    if (name.endsWith(".pem") || name.endsWith(".crt")) {
      return "PEM"; // a cert-manager Secret's ca.crt
    }
    return otherwise;
  }
}
