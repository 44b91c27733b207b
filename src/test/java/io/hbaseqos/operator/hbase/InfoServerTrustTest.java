package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import io.hbaseqos.operator.support.Certificates;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which certificates the HTTPS info-server client trusts, from a cluster's configuration. */
class InfoServerTrustTest {
  @TempDir
  static Path dir;
  static Path p12;
  static Path pem;

  @BeforeAll
  static void certificate() throws Exception {
    p12 = dir.resolve("server.p12");
    pem = dir.resolve("ca.crt");
    Certificates.selfSigned(p12, pem, "hbase", "CN=localhost", "changeit");
    // a truststore whose certificates are encrypted with its password, as OpenSSL writes them by default
    encrypted = dir.resolve("encrypted.p12");
    Certificates.keytool("-J-Dkeystore.pkcs12.certProtectionAlgorithm=PBEWithSHA1AndRC2_40", "-importcert",
        "-noprompt", "-alias", "ca", "-file", pem.toString(), "-storetype", "PKCS12", "-keystore", encrypted.toString(),
        "-storepass", "changeit");
  }

  static Path encrypted;

  static Configuration conf(String... kv) {
    Configuration c = new Configuration(false);
    for (int i = 0; i < kv.length; i += 2) {
      c.set(kv[i], kv[i + 1]);
    }
    return c;
  }

  @Test
  void plainHttpOrNoTruststoreLeavesTheJvmsDefault() {
    assertThat(InfoServerTrust.context(conf("hbase.rpc.tls.truststore.location", pem.toString()))).isNull();
    assertThat(InfoServerTrust.context(conf("hbase.ssl.enabled", "true"))).isNull();
  }

  @Test
  void aPemFileOrAPasswordedPkcs12IsTrusted() throws Exception {
    for (Configuration c : List.of(conf("hbase.ssl.enabled", "true", "hbase.rpc.tls.truststore.location",
        pem.toString()), conf("hbase.ssl.enabled", "true", "ssl.client.truststore.location", p12.toString(),
        "ssl.client.truststore.password", "changeit"))) {
      KeyStore trusted = InfoServerTrust.trusted(c);
      assertThat(java.util.Collections.list(trusted.aliases())).singleElement().satisfies(a -> assertThat(
          ((X509Certificate) trusted.getCertificate(a)).getSubjectX500Principal().getName()).isEqualTo("CN=localhost"));
      assertThat(InfoServerTrust.context(c)).isNotNull();
    }
  }

  @Test
  void aPkcs12ReadWithoutItsPasswordIsRefusedNotTrustedEmpty() throws Exception {
    assertThatThrownBy(() -> InfoServerTrust.context(conf("hbase.ssl.enabled", "true",
        "hbase.rpc.tls.truststore.location", encrypted.toString())))
        .hasMessageContaining("no certificate read (is hbase.rpc.tls.truststore.password set?)");
    assertThat(InfoServerTrust.trusted(conf("hbase.rpc.tls.truststore.location", encrypted.toString(),
        "hbase.rpc.tls.truststore.password", "changeit")).size()).isEqualTo(1);
  }

  @Test
  void anUnreadableTruststoreIsNamedWithWhy() throws Exception {
    assertThatThrownBy(() -> InfoServerTrust.context(conf("hbase.ssl.enabled", "true",
        "hbase.rpc.tls.truststore.location", dir.resolve("missing.pem").toString())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("hbase.rpc.tls.truststore.location " + dir.resolve("missing.pem") + " (PEM): "
            + "NoSuchFileException");
    // Hadoop's HTTPS client keys come first: theirs is the file named
    assertThatThrownBy(() -> InfoServerTrust.context(conf("hbase.ssl.enabled", "true",
        "ssl.client.truststore.location", p12.toString(), "ssl.client.truststore.password", "wrong",
        "hbase.rpc.tls.truststore.location", pem.toString())))
        .hasMessageStartingWith("ssl.client.truststore.location " + p12 + " (PKCS12): IOException");
    Path empty = Files.writeString(dir.resolve("empty.pem"), "no certificate here\n");
    assertThatThrownBy(() -> InfoServerTrust.context(conf("hbase.ssl.enabled", "true",
        "hbase.rpc.tls.truststore.location", empty.toString())))
        .hasMessageContaining("hbase.rpc.tls.truststore.location " + empty);
  }
}
