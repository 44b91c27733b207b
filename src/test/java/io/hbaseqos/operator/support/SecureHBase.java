package io.hbaseqos.operator.support;

import io.hbaseqos.operator.api.ConnectionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A Kerberos-secured standalone HBase: the {@link Kdc}'s principals, Kerberos RPC authentication,
 * HBase's {@code AccessController} (ACLs), SPNEGO on the info servers, and a ZooKeeper that
 * requires SASL of every session (so HBase secures its znodes). The test side reaches it
 * only through {@link SecureClientMain} in a JVM of its own (logged in as the superuser
 * {@code hbase}), so the test JVM's Hadoop login stays as the other suites need it.
 */
public final class SecureHBase implements AutoCloseable {
  /** The host the server's principals are for: standalone HBase names its servers {@code localhost}. */
  public static final String HOST = "localhost";
  private static SecureHBase shared;

  private final Kdc kdc;
  private final Path dir;
  private final Path serverKeytab;
  private final Path clientConf;
  private final Path jaas;
  private final StandaloneHBase hbase;

  private SecureHBase(Kdc kdc, Path dir) throws IOException {
    this.kdc = kdc;
    this.dir = dir;
    this.serverKeytab = kdc.keytab("hbase.keytab", "hbase/" + HOST, "HTTP/" + HOST);
    Map<String, String> site = new LinkedHashMap<>();
    site.put("hbase.security.authentication", "kerberos");
    site.put("hadoop.security.authentication", "kerberos");
    site.put("hbase.security.authorization", "true");
    site.put("hbase.coprocessor.master.classes", "org.apache.hadoop.hbase.security.access.AccessController");
    site.put("hbase.coprocessor.region.classes", "org.apache.hadoop.hbase.security.token.TokenProvider,"
        + "org.apache.hadoop.hbase.security.access.AccessController");
    site.put("hbase.coprocessor.regionserver.classes", "org.apache.hadoop.hbase.security.access.AccessController");
    site.put("hbase.master.kerberos.principal", serverPrincipal());
    site.put("hbase.master.keytab.file", serverKeytab.toString());
    site.put("hbase.regionserver.kerberos.principal", serverPrincipal());
    site.put("hbase.regionserver.keytab.file", serverKeytab.toString());
    site.put("hbase.superuser", "hbase");
    site.put("hbase.security.authentication.ui", "kerberos");
    site.put("hbase.security.authentication.spnego.kerberos.principal", kdc.principal("HTTP/" + HOST));
    site.put("hbase.security.authentication.spnego.kerberos.keytab", serverKeytab.toString());
    // ZooKeeper (embedded in the standalone master) requires SASL of every session: HBase's own
    // sessions log in from the JAAS file's Client section, and HBase secures its znodes
    Path zkKeytab = kdc.keytab("zookeeper.keytab", "zookeeper/" + HOST);
    this.jaas = Files.createDirectories(dir).resolve("jaas.conf");
    Files.writeString(jaas, jaasSection("Server", kdc.principal("zookeeper/" + HOST), zkKeytab)
        + jaasSection("Client", serverPrincipal(), serverKeytab));
    this.hbase = new StandaloneHBase(dir.resolve("server"), site)
        .jvmOptions(List.of("-Djava.security.krb5.conf=" + kdc.krb5conf(), "-Djava.security.auth.login.config=" + jaas,
            "-Dzookeeper.authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
            "-Dzookeeper.sessionRequireClientSASLAuth=true"))
        .readiness(() -> run("ready").exit() == 0);
    // Hadoop's login reads core-site.xml, not hbase-site.xml
    Files.createDirectories(hbase.confDir());
    // (and the shutdown hooks' timeout: a RegionServer whose ZooKeeper has stopped keeps retrying its
    // SASL session until Hadoop's default 30 s runs out)
    Files.writeString(hbase.confDir().resolve("core-site.xml"), StandaloneHBase.siteXml(Map.of("hadoop.security.authentication",
        "kerberos", "hadoop.service.shutdown.timeout", "5s")));
    this.clientConf = Files.createDirectories(dir.resolve("client"));
  }

  static String jaasSection(String name, String principal, Path keytab) {
    return name + " {\n  com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab=\"" + keytab
        + "\" storeKey=true useTicketCache=false principal=\"" + principal + "\";\n};\n";
  }

  public static synchronized SecureHBase shared() {
    if (shared == null) {
      try {
        shared = new SecureHBase(Kdc.shared(), Files.createTempDirectory("hbaseqos-secure"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      shared.writeClientConf();
      shared.hbase.start();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }

  public Kdc kdc() {
    return kdc;
  }

  public String serverPrincipal() {
    return kdc.principal("hbase/" + HOST);
  }

  public StandaloneHBase server() {
    return hbase;
  }

  /** Connection settings of an HBaseCluster for this server: the servers' principals, as a cluster's own settings. */
  public ConnectionSpec connectionSpec() {
    ConnectionSpec c = hbase.connectionSpec();
    c.getClientConfig().put("hbase.master.kerberos.principal", kdc.principal("hbase/_HOST"));
    c.getClientConfig().put("hbase.regionserver.kerberos.principal", kdc.principal("hbase/_HOST"));
    return c;
  }

  private void writeClientConf() {
    Map<String, String> site = new LinkedHashMap<>();
    site.put("hbase.zookeeper.quorum", hbase.quorum());
    site.put("hbase.security.authentication", "kerberos");
    site.put("hadoop.security.authentication", "kerberos");
    site.put("hbase.master.kerberos.principal", serverPrincipal());
    site.put("hbase.regionserver.kerberos.principal", serverPrincipal());
    site.put("hbase.client.retries.number", "3");
    site.put("zookeeper.recovery.retry", "1");
    try {
      Files.writeString(clientConf.resolve("hbase-site.xml"), StandaloneHBase.siteXml(site));
      Files.writeString(clientConf.resolve("core-site.xml"), StandaloneHBase.siteXml(Map.of("hadoop.security.authentication",
          "kerberos")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@link SecureClientMain} as the superuser {@code hbase}. */
  public Kubectl.Result run(String... command) {
    try {
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Djava.security.krb5.conf=" + kdc.krb5conf(),
          "-Djava.security.auth.login.config=" + jaas));
      cmd.addAll(StandaloneHBase.JDK17_FLAGS);
      cmd.addAll(List.of("-cp", clientConf + ":" + Paths.projectDir().resolve("target/test-classes") + ":"
          + StandaloneHBase.classpath(), SecureClientMain.class.getName(), serverPrincipal(), serverKeytab.toString()));
      cmd.addAll(List.of(command));
      Path err = Files.createTempFile(dir, "client", ".log");
      Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int rc = p.waitFor();
      String result = rc == 0 ? out : out + Processes.tail(err, 30);
      Files.deleteIfExists(err);
      return new Kubectl.Result(rc, result);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Every cell of hbase:quota as {@link QuotaTableRaw#read(StandaloneHBase)} gives them, read as the superuser. */
  public Map<String, String> quotaTable() {
    Kubectl.Result r = run("dump");
    if (r.exit() != 0) {
      throw new IllegalStateException("could not read hbase:quota: " + r.output());
    }
    Map<String, String> out = new TreeMap<>();
    for (String line : r.output().split("\n")) {
      String[] f = line.split("\t");
      if (f.length == 3 && f[1].startsWith("q:")) {
        try {
          out.put(f[0] + " " + f[1], QuotaTableRaw.describe(Base64.getDecoder().decode(f[2])));
        } catch (IOException e) {
          out.put(f[0] + " " + f[1], "unparseable");
        }
      }
    }
    return out;
  }

  /** Global permissions for {@code user}, as the shell's {@code grant 'user', 'RWXCA'}. */
  public void grant(String user, String actions) {
    Kubectl.Result r = run("grant", user, actions);
    if (r.exit() != 0) {
      throw new IllegalStateException("grant failed: " + r.output());
    }
  }

  /** Permissions on one table, as the shell's {@code grant 'user', 'R', 'hbase:quota'}. */
  public void grant(String user, String actions, String table) {
    Kubectl.Result r = run("grant", user, actions, table);
    if (r.exit() != 0) {
      throw new IllegalStateException("grant failed: " + r.output());
    }
  }

  /** Every global permission of {@code user} (table permissions stay). */
  public void revoke(String user) {
    Kubectl.Result r = run("revoke", user);
    if (r.exit() != 0) {
      throw new IllegalStateException("revoke failed: " + r.output());
    }
  }

  @Override
  public void close() {
    hbase.close();
  }
}
