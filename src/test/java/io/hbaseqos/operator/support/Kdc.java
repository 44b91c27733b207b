package io.hbaseqos.operator.support;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.apache.hadoop.minikdc.MiniKdc;

/**
 * A real KDC (Apache Kerby through hadoop-minikdc) for the secured-HBase suite, one per test JVM.
 * Tickets live {@link #TICKET_LIFETIME}, shorter than the suite, so a client that does not renew
 * its ticket from its keytab fails within it.
 */
public final class Kdc {
  /** How long a ticket lives: shorter than the secured suite, so renewal is exercised. */
  public static final Duration TICKET_LIFETIME = Duration.ofSeconds(90);
  private static Kdc shared;

  private final MiniKdc kdc;
  private final Path dir;

  private Kdc(MiniKdc kdc, Path dir) {
    this.kdc = kdc;
    this.dir = dir;
  }

  public static synchronized Kdc shared() {
    if (shared == null) {
      try {
        Path dir = Files.createTempDirectory("hbaseqos-kdc");
        Properties conf = MiniKdc.createConf();
        // Kerby reads both in seconds (MiniKdc's defaults, in milliseconds, mean years)
        conf.setProperty(MiniKdc.MAX_TICKET_LIFETIME, String.valueOf(TICKET_LIFETIME.toSeconds()));
        conf.setProperty(MiniKdc.MAX_RENEWABLE_LIFETIME, String.valueOf(TICKET_LIFETIME.toSeconds()));
        MiniKdc kdc = new MiniKdc(conf, dir.toFile());
        kdc.start();
        shared = new Kdc(kdc, dir);
        Runtime.getRuntime().addShutdownHook(new Thread(kdc::stop));
      } catch (Exception e) {
        throw new IllegalStateException("could not start the KDC", e);
      }
    }
    return shared;
  }

  public String realm() {
    return kdc.getRealm();
  }

  /** The krb5.conf that points at this KDC. */
  public Path krb5conf() {
    return kdc.getKrb5conf().toPath();
  }

  /** A keytab holding new principals (each {@code name} or {@code service/host}) with random keys. */
  public Path keytab(String file, String... principals) {
    File keytab = dir.resolve(file).toFile();
    try {
      kdc.createPrincipal(keytab, principals);
    } catch (Exception e) {
      throw new IllegalStateException("could not create " + String.join(", ", principals), e);
    }
    return keytab.toPath();
  }

  /** {@code principal@REALM}. */
  public String principal(String principal) {
    return principal + "@" + realm();
  }
}
