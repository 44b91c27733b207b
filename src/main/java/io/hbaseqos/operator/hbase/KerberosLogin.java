package io.hbaseqos.operator.hbase;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;
import org.ietf.jgss.Oid;
import org.jboss.logging.Logger;

/**
 * The operator's Kerberos identity, when its {@code hbase-site.xml} asks for one
 * ({@code hbase.security.authentication=kerberos}, {@code hbase.client.keytab.file},
 * {@code hbase.client.keytab.principal}, as the Helm chart writes them). Hadoop's login code reads
 * its static configuration, not a connection's: without this login every connection would go
 * out with SIMPLE authentication. The principal's {@code _HOST} becomes this host's canonical
 * name. The ticket is checked on a schedule and renewed from the keytab before it expires, and
 * the same login answers the info servers' SPNEGO challenges. With
 * {@code hbase.zookeeper.client.kerberos.principal} and {@code hbase.zookeeper.client.keytab.file}
 * (HBase's own keys for a process's ZooKeeper login) ZooKeeper sessions authenticate with SASL too,
 * from a JAAS section made in memory ({@link ZooKeeperJaas}); ZooKeeper's client renews that login
 * itself.
 */
public final class KerberosLogin implements Negotiator, AutoCloseable {
  private static final Logger LOG = Logger.getLogger(KerberosLogin.class);
  static final String ZK_PRINCIPAL = "hbase.zookeeper.client.kerberos.principal";
  static final String ZK_KEYTAB = "hbase.zookeeper.client.keytab.file";

  /** The SPNEGO mechanism. */
  private static final String SPNEGO = "1.3.6.1.5.5.2";

  private final String principal;
  private final ScheduledExecutorService renewer;

  private KerberosLogin(String principal, Duration renewCheck) {
    this.principal = principal;
    this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "hbaseqos-kerberos-renewal");
      t.setDaemon(true);
      return t;
    });
    long ms = renewCheck.toMillis();
    renewer.scheduleWithFixedDelay(this::renew, ms, ms, TimeUnit.MILLISECONDS);
  }

  /**
   * Logs in from the keytab {@code siteFile} names when it asks for Kerberos; empty when it does
   * not (or there is no site file).
   *
   * @throws IOException when the login fails (a wrong keytab or principal, an unreachable KDC)
   * @throws IllegalStateException when Kerberos is asked for without a keytab and principal
   */
  public static Optional<KerberosLogin> fromSite(Path siteFile, Duration renewCheck) throws IOException {
    if (siteFile == null) {
      return Optional.empty();
    }
    Configuration site = new Configuration(false);
    site.addResource(siteFile.toUri().toURL());
    if (!"kerberos".equalsIgnoreCase(site.get("hbase.security.authentication", "").trim())) {
      return Optional.empty();
    }
    String keytab = site.get("hbase.client.keytab.file");
    String principal = site.get("hbase.client.keytab.principal");
    if (keytab == null || keytab.isBlank() || principal == null || principal.isBlank()) {
      throw new IllegalStateException(siteFile + " sets hbase.security.authentication=kerberos without "
          + "hbase.client.keytab.file and hbase.client.keytab.principal");
    }
    Configuration ugi = new Configuration(false);
    ugi.set("hadoop.security.authentication", "kerberos");
    String mapping = site.get("hadoop.security.auth_to_local");
    if (mapping != null) {
      ugi.set("hadoop.security.auth_to_local", mapping);
    }
    UserGroupInformation.setConfiguration(ugi);
    String host = InetAddress.getLocalHost().getCanonicalHostName();
    String resolved = SecurityUtil.getServerPrincipal(principal.trim(), host);
    UserGroupInformation.loginUserFromKeytab(resolved, keytab.trim());
    LOG.infof("logged in to Kerberos as %s from %s", resolved, keytab.trim());
    String zkPrincipal = site.get(ZK_PRINCIPAL);
    String zkKeytab = site.get(ZK_KEYTAB);
    if (zkPrincipal != null && !zkPrincipal.isBlank()) {
      if (zkKeytab == null || zkKeytab.isBlank()) {
        throw new IllegalStateException(siteFile + " sets " + ZK_PRINCIPAL + " without " + ZK_KEYTAB);
      }
      // ZooKeeper's client logs in on its own, from a JAAS section
      String zk = SecurityUtil.getServerPrincipal(zkPrincipal.trim(), host);
      if (ZooKeeperJaas.install(zk, zkKeytab.trim())) {
        LOG.infof("ZooKeeper sessions authenticate with SASL as %s", zk);
      } else {
        LOG.infof("ZooKeeper sessions authenticate with SASL as the JAAS file's section %s says",
            ZooKeeperJaas.section());
      }
    }
    return Optional.of(new KerberosLogin(resolved, renewCheck));
  }

  public String principal() {
    return principal;
  }

  /** Renews the ticket from the keytab when it nears its end (a no-op otherwise), and says so when it did. */
  void renew() {
    try {
      UserGroupInformation ugi = UserGroupInformation.getLoginUser();
      java.util.Date before = ticketEnd(ugi);
      ugi.checkTGTAndReloginFromKeytab();
      java.util.Date after = ticketEnd(ugi);
      if (after != null && !after.equals(before)) {
        LOG.infof("renewed the Kerberos ticket of %s from its keytab (valid until %s)", principal, after.toInstant());
      }
    } catch (IOException | RuntimeException e) {
      LOG.warnf("could not renew the Kerberos ticket of %s: %s", principal, e.getMessage());
    }
  }

  /** When the login's ticket-granting ticket ends (null: it holds none). */
  @SuppressWarnings("removal")
  private static java.util.Date ticketEnd(UserGroupInformation ugi) {
    return ugi.doAs((java.security.PrivilegedAction<java.util.Date>) () -> {
      javax.security.auth.Subject subject = javax.security.auth.Subject.getSubject(
          java.security.AccessController.getContext());
      return subject == null ? null : subject.getPrivateCredentials(javax.security.auth.kerberos.KerberosTicket.class)
          .stream().filter(t -> t.getServer().getName().startsWith("krbtgt/"))
          .map(javax.security.auth.kerberos.KerberosTicket::getEndTime).max(java.util.Comparator.naturalOrder())
          .orElse(null);
    });
  }

  @Override
  public String token(String host) throws IOException {
    try {
      return UserGroupInformation.getLoginUser().doAs((PrivilegedExceptionAction<String>) () -> {
        GSSManager manager = GSSManager.getInstance();
        GSSName server = manager.createName("HTTP@" + host, GSSName.NT_HOSTBASED_SERVICE);
        GSSContext context = manager.createContext(server, new Oid(SPNEGO), null, GSSContext.DEFAULT_LIFETIME);
        try {
          context.requestMutualAuth(false);
          context.requestCredDeleg(false);
          return Base64.getEncoder().encodeToString(context.initSecContext(new byte[0], 0, 0));
        } finally {
          context.dispose();
        }
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      Throwable cause = e instanceof java.lang.reflect.UndeclaredThrowableException u ? u.getCause() : e;
      throw new IOException("no SPNEGO token for HTTP@" + host + ": " + (cause instanceof GSSException g
          ? g.getMessage() : String.valueOf(cause)), cause);
    }
  }

  @Override
  public void close() {
    renewer.shutdownNow();
  }
}
