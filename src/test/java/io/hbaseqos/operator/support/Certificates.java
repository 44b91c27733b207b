package io.hbaseqos.operator.support;

import java.net.InetAddress;
import java.nio.file.Path;

/** Self-signed certificates made with the JDK's keytool, for TLS tests. */
public final class Certificates {
  private Certificates() {}

  /**
   * A self-signed certificate for localhost and this host, in a PKCS12 keystore, and as PEM.
   *
   * @param subject its name, e.g. {@code CN=hbase}: give each certificate of one truststore its own
   *     (two anchors of one name can check a chain against the wrong one)
   */
  public static void selfSigned(Path keystore, Path pem, String alias, String subject, String password)
      throws Exception {
    String host = InetAddress.getLocalHost().getHostName();
    String canonical = InetAddress.getLocalHost().getCanonicalHostName();
    keytool("-genkeypair", "-alias", alias, "-keyalg", "RSA", "-keysize", "2048", "-validity", "30", "-dname", subject,
        "-ext", "SAN=dns:localhost,ip:127.0.0.1,dns:" + host + ",dns:" + canonical, "-storetype", "PKCS12",
        "-keystore", keystore.toString(), "-storepass", password, "-keypass", password);
    keytool("-exportcert", "-rfc", "-alias", alias, "-keystore", keystore.toString(), "-storepass", password, "-file",
        pem.toString());
  }

  /** Runs the JDK's keytool; fails with its output when it fails. */
  public static void keytool(String... args) throws Exception {
    String[] cmd = new String[args.length + 1];
    cmd[0] = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    System.arraycopy(args, 0, cmd, 1, args.length);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + "\n" + out);
    }
  }
}
