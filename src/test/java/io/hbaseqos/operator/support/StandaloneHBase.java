package io.hbaseqos.operator.support;

import io.hbaseqos.operator.api.ConnectionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * A real HBase 2.6.4 in standalone mode (master, RegionServer and ZooKeeper in one JVM), started
 * as its own process from the jars of {@code hbase-runtime/pom.xml}, with quotas enabled and a
 * short refresh period. One per test JVM; also used by the embedded demo and the benchmarks.
 */
public final class StandaloneHBase implements AutoCloseable {
  public static final List<String> JDK17_FLAGS = List.of(
      "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true", "--add-modules", "jdk.unsupported",
      "--add-opens", "java.base/java.io=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
      "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
      "--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens", "java.base/java.util=ALL-UNNAMED", "--add-opens", "java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
      "--add-exports", "java.security.jgss/sun.security.krb5=ALL-UNNAMED",
      "--add-exports", "java.base/sun.net.dns=ALL-UNNAMED", "--add-exports", "java.base/sun.net.util=ALL-UNNAMED",
      "--add-opens", "java.base/jdk.internal.util.random=ALL-UNNAMED",
      "--add-opens", "java.base/sun.security.x509=ALL-UNNAMED", "--add-opens", "java.base/sun.security.util=ALL-UNNAMED",
      "--add-opens", "java.base/java.net=ALL-UNNAMED");

  private static StandaloneHBase shared;

  private final Path dir;
  private final int zkPort = freePort();
  private final int masterPort = freePort();
  private final int rsPort = freePort();
  private final int rsInfoPort = freePort();
  private final Map<String, String> extraSite;
  private Map<String, String> clientSite = Map.of();
  private List<String> memory = List.of("-Xmx768m", "-XX:+UseSerialGC");
  private List<String> jvmOptions = List.of();
  private java.util.function.BooleanSupplier readiness;
  private final String version;
  private Process process;
  private Connection connection;

  /**
   * The site a benchmark's {@code --limiter fixed|average} asks for: nothing for {@code fixed} (the
   * FixedIntervalRateLimiter with a 100 ms refill, which this HBase runs by default), HBase's default
   * AverageIntervalRateLimiter for {@code average}, whose tokens refill continuously; refused otherwise.
   */
  public static Map<String, String> limiterSite(String limiter) {
    if (!List.of("fixed", "average").contains(limiter)) {
      throw new IllegalArgumentException("--limiter is fixed or average, not " + limiter);
    }
    return limiter.equals("average")
        ? Map.of("hbase.quota.rate.limiter", "org.apache.hadoop.hbase.quotas.AverageIntervalRateLimiter")
        : Map.of();
  }

  /** The limiter {@link #limiterSite} runs, in words for a benchmark's header. */
  public static String limiterName(String limiter) {
    return limiterSite(limiter).isEmpty() ? "FixedIntervalRateLimiter, 100 ms refill"
        : "AverageIntervalRateLimiter (HBase's default)";
  }

  public StandaloneHBase(Path dir, Map<String, String> extraSite) {
    this(dir, extraSite, null);
  }

  /** @param version an HBase release other than hbase-runtime/pom.xml's (null: the pom's, 2.6.4) */
  public StandaloneHBase(Path dir, Map<String, String> extraSite, String version) {
    this.dir = dir;
    this.extraSite = extraSite;
    this.version = version;
  }

  /**
   * Heap and collector flags of the server JVM in place of {@code -Xmx768m -XX:+UseSerialGC}; before
   * {@link #start()}.
   */
  public StandaloneHBase memory(List<String> flags) {
    this.memory = List.copyOf(flags);
    return this;
  }

  /**
   * Client settings of the test side's own connection (e.g. TLS to a server that accepts nothing
   * else); before {@link #start()}, whose readiness check uses that connection.
   */
  public StandaloneHBase clientSite(Map<String, String> settings) {
    this.clientSite = Map.copyOf(settings);
    return this;
  }

  /** More options of the server JVM (e.g. {@code -Djava.security.krb5.conf=...}); before {@link #start()}. */
  public StandaloneHBase jvmOptions(List<String> options) {
    this.jvmOptions = List.copyOf(options);
    return this;
  }

  /**
   * How {@link #start()} knows the server is up, in place of the test side's admin seeing
   * {@code hbase:quota} (which cannot reach a Kerberos-secured server).
   */
  public StandaloneHBase readiness(java.util.function.BooleanSupplier ready) {
    this.readiness = ready;
    return this;
  }

  /** The directory of the server's hbase-site.xml (on its classpath). */
  public Path confDir() {
    return dir.resolve("conf");
  }

  /** The server JVM's process id (-1 when it is not running). */
  public synchronized long pid() {
    return process == null || !process.isAlive() ? -1 : process.pid();
  }

  /** The server JVM's collector log: one line per pause, stamped with the wall clock in ms. */
  public Path gcLog() {
    return dir.resolve("logs/gc.log");
  }

  /**
   * The HBase shared by every test of this JVM, started on first use. Its ports are chosen free
   * before the server binds them, so another process may take one meanwhile: a start that fails is
   * tried again on new ports and a new directory (three times), and a failed server is never shared,
   * so one lost race does not fail every test after it.
   */
  public static synchronized StandaloneHBase shared() {
    if (shared == null) {
      IllegalStateException failed = null;
      for (int attempt = 0; attempt < 3 && shared == null; attempt++) {
        StandaloneHBase hbase;
        try {
          hbase = new StandaloneHBase(Files.createTempDirectory("hbaseqos-hbase"), Map.of());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        try {
          hbase.start();
          shared = hbase;
        } catch (IllegalStateException e) {
          hbase.close();
          failed = failed == null ? e : failed;
          if (failed != e) {
            failed.addSuppressed(e);
          }
        }
      }
      if (shared == null) {
        throw failed;
      }
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }

  public synchronized void start() {
    try {
      writeSite();
      String cp = dir.resolve("conf") + ":" + classpath(version);
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
      cmd.addAll(memory);
      cmd.addAll(List.of("-Xlog:gc:file=" + gcLog() + ":timemillis", "-Dhbase.log.dir=" + dir.resolve("logs")));
      cmd.addAll(JDK17_FLAGS);
      cmd.addAll(jvmOptions);
      cmd.addAll(List.of("-cp", cp, "org.apache.hadoop.hbase.master.HMaster", "start"));
      Files.createDirectories(dir.resolve("logs"));
      process = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("logs/hbase.out").toFile())).start();
      awaitReady(Duration.ofSeconds(180));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitReady(Duration timeout) throws IOException {
    Instant deadline = Instant.now().plus(timeout);
    Exception last = null;
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("HBase exited with " + process.exitValue() + ":\n" + logTail());
      }
      if (readiness != null) {
        if (readiness.getAsBoolean()) {
          return;
        }
        sleep(1000);
        continue;
      }
      try {
        Admin admin = admin();
        TableName quota = TableName.valueOf("hbase", "quota");
        if (admin.tableExists(quota) && admin.isTableAvailable(quota)) {
          admin.close();
          return;
        }
        admin.close();
      } catch (Exception e) {
        last = e;
      }
      sleep(500);
    }
    throw new IllegalStateException("HBase not ready within " + timeout + " (" + last + "):\n" + logTail());
  }

  public String logTail() {
    return Processes.tail(dir.resolve("logs/hbase.out"), 40);
  }

  /** Stops the server process (a real outage: clients see connection failures). */
  public synchronized void stop() {
    Processes.stop(process, Duration.ofSeconds(30));
  }

  /**
   * Ends the server for good: killed, not stopped. Its directory is thrown away, and a stopped
   * standalone server spends some 20 s retrying to remove its RegionServer's node from the ZooKeeper
   * it has already stopped (seen on most classes' servers, about a fifth of their set-up). A test of
   * an outage stops it with {@link #stop()}.
   */
  @Override
  public synchronized void close() {
    try {
      if (connection != null) {
        connection.close();
      }
    } catch (IOException e) {
      // exiting anyway
    }
    Processes.kill(process);
  }

  public int zkPort() {
    return zkPort;
  }

  /** The in-process RegionServer's {@code Server} metrics bean, from its own {@code /jmx}. */
  public com.fasterxml.jackson.databind.JsonNode serverBean() throws IOException, InterruptedException {
    java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newBuilder()
        .version(java.net.http.HttpClient.Version.HTTP_1_1).build().send(java.net.http.HttpRequest
        .newBuilder(java.net.URI.create("http://127.0.0.1:" + regionServerInfoPort()
            + "/jmx?qry=Hadoop:service=HBase,name=RegionServer,sub=Server")).timeout(java.time.Duration.ofSeconds(30))
        .build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).path("beans").get(0);
  }

  /** What the in-process RegionServer's {@code /prometheus} serves for {@code query} ({@code qry}), raw. */
  public String regionServerPrometheus(String query) throws IOException, InterruptedException {
    return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
        "http://127.0.0.1:" + regionServerInfoPort() + "/prometheus?qry=" + query)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
  }

  public int regionServerInfoPort() {
    return rsInfoPort;
  }

  public String quorum() {
    return "localhost:" + zkPort;
  }

  /** Connection settings an HBaseCluster resource uses to reach this server. */
  public ConnectionSpec connectionSpec() {
    ConnectionSpec c = new ConnectionSpec();
    c.setZookeeperQuorum(quorum());
    c.setZnodeParent("/hbase");
    c.setClientConfig(new LinkedHashMap<>());
    return c;
  }

  public Configuration clientConfiguration() {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", quorum());
    conf.setInt("hbase.client.retries.number", 5);
    conf.setInt("zookeeper.recovery.retry", 1);
    clientSite.forEach(conf::set);
    return conf;
  }

  /** A test-side admin on its own connection (plays the HBase shell). Close it after use. */
  public synchronized Admin admin() throws IOException {
    return connection().getAdmin();
  }

  /** The test side's own connection (not the operator's), made on first use. */
  public synchronized Connection connection() throws IOException {
    if (connection == null || connection.isClosed()) {
      connection = ConnectionFactory.createConnection(clientConfiguration());
    }
    return connection;
  }

  /** SIGSTOP / SIGCONT of the whole HBase process: calls hang instead of failing. */
  public synchronized void pause(boolean paused) {
    Processes.pause(process, paused);
  }

  /**
   * Kills the whole HBase process (master, RegionServer and ZooKeeper) with SIGKILL, the way a
   * crash or an abort after a lost ZooKeeper session ends it; {@link #start()} brings it back on the
   * same ports and data.
   */
  public synchronized void kill() {
    Processes.kill(process);
    try {
      if (connection != null) {
        connection.close();
      }
    } catch (IOException e) {
      // the server is gone
    }
    connection = null;
  }

  private void writeSite() throws IOException {
    Map<String, String> site = new LinkedHashMap<>();
    site.put("hbase.cluster.distributed", "false");
    site.put("hbase.rootdir", dir.resolve("root").toUri().toString());
    site.put("hbase.zookeeper.property.dataDir", dir.resolve("zk").toString());
    site.put("hbase.zookeeper.quorum", "localhost");
    site.put("hbase.zookeeper.property.clientPort", String.valueOf(zkPort));
    site.put("hbase.master.port", String.valueOf(masterPort));
    site.put("hbase.master.info.port", "-1");
    site.put("hbase.regionserver.port", String.valueOf(rsPort));
    site.put("hbase.regionserver.info.port", String.valueOf(rsInfoPort));
    site.put("hbase.unsafe.stream.capability.enforce", "false");
    site.put("hbase.wal.provider", "filesystem");
    site.put("hbase.quota.enabled", "true");
    site.put("hbase.quota.refresh.period", "5000");
    site.put("hbase.regionserver.user.metrics.enabled", "true");
    // the limiter docs/operations.md recommends for calibrated tenants: refills every 100 ms, so the
    // achievable rates are not the 1000 req/s steps of the default limiter's whole-millisecond refill
    site.put("hbase.quota.rate.limiter", "org.apache.hadoop.hbase.quotas.FixedIntervalRateLimiter");
    site.put("hbase.quota.rate.limiter.refill.interval.ms", "100");
    site.put("hbase.regionserver.msginterval", "1000");
    // one RegionServer starts with the master: it need not wait the default 4.5 s for more (a second
    // one, where a test starts it, joins later and is waited for)
    site.put("hbase.master.wait.on.regionservers.maxtostart", "1");
    site.putAll(extraSite);
    writeConf(dir.resolve("conf"), site);
  }

  /** A Hadoop configuration file (hbase-site.xml, core-site.xml) holding {@code props}. */
  static String siteXml(Map<String, String> props) {
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
    props.forEach((k, v) -> xml.append("  <property><name>").append(k).append("</name><value>").append(v)
        .append("</value></property>\n"));
    return xml.append("</configuration>\n").toString();
  }

  private static void writeConf(Path conf, Map<String, String> site) throws IOException {
    Files.createDirectories(conf);
    Files.writeString(conf.resolve("hbase-site.xml"), siteXml(site));
    // The info servers (RegionServer /jmx) want their webapp folders on the classpath; the jars on
    // Maven Central do not ship them, and /jmx needs nothing inside them.
    for (String w : List.of("master", "regionserver", "static")) {
      Files.createDirectories(conf.resolve("hbase-webapps").resolve(w));
    }
    Files.writeString(conf.resolve("log4j.properties"), String.join("\n",
        "log4j.rootLogger=WARN,console",
        "log4j.logger.org.apache.hadoop.hbase.master.HMaster=INFO",
        "log4j.logger.org.apache.hadoop.hbase.ScheduledChore=FATAL",
        "log4j.appender.console=org.apache.log4j.ConsoleAppender",
        "log4j.appender.console.layout=org.apache.log4j.PatternLayout",
        "log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n", ""));
  }

  /**
   * A RegionServer in a process of its own that joins this HBase (same ZooKeeper and root
   * directory), so that a RegionServer can be killed and restarted while the master, ZooKeeper and
   * the in-process RegionServer stay up.
   */
  public RegionServerProcess regionServerProcess() {
    return regionServerProcess(Map.of());
  }

  /** As {@link #regionServerProcess()}, with properties of its own over the defaults (and this HBase's). */
  public RegionServerProcess regionServerProcess(Map<String, String> site) {
    return new RegionServerProcess(site);
  }

  public final class RegionServerProcess implements AutoCloseable {
    private final Map<String, String> ownSite;
    private final int port = freePort();
    private final int infoPort = freePort();
    private final Path conf = dir.resolve("rs-" + port);
    private Process rs;

    private RegionServerProcess(Map<String, String> ownSite) {
      this.ownSite = ownSite;
    }

    public int port() {
      return port;
    }

    /** Starts it and waits until the master counts it among the live servers. */
    public void start() {
      try {
        Map<String, String> site = new LinkedHashMap<>();
        site.put("hbase.cluster.distributed", "true");
        site.put("hbase.rootdir", dir.resolve("root").toUri().toString());
        site.put("hbase.zookeeper.quorum", "localhost");
        site.put("hbase.zookeeper.property.clientPort", String.valueOf(zkPort));
        site.put("hbase.regionserver.port", String.valueOf(port));
        site.put("hbase.regionserver.info.port", String.valueOf(infoPort));
        site.put("hbase.tmp.dir", conf.resolve("tmp").toString());
        site.put("hbase.unsafe.stream.capability.enforce", "false");
        site.put("hbase.wal.provider", "filesystem");
        site.put("hbase.quota.enabled", "true");
        site.put("hbase.quota.refresh.period", "5000");
        site.put("hbase.regionserver.user.metrics.enabled", "true");
        site.put("hbase.regionserver.msginterval", "1000");
        site.put("zookeeper.session.timeout", "6000");
        site.putAll(extraSite);
        site.putAll(ownSite);
        writeConf(conf, site);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx384m", "-XX:+UseSerialGC", "-Dhbase.log.dir=" + conf.resolve("logs")));
        cmd.addAll(JDK17_FLAGS);
        cmd.addAll(List.of("-cp", conf + ":" + classpath(version), "org.apache.hadoop.hbase.regionserver.HRegionServer", "start"));
        rs = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(conf.resolve("rs.out").toFile())).start();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
        while (Instant.now().isBefore(deadline)) {
          if (!rs.isAlive()) {
            throw new IllegalStateException("the RegionServer exited:\n" + Processes.tail(conf.resolve("rs.out"), 30));
          }
          try (Admin admin = admin()) {
            if (admin.getRegionServers().stream().anyMatch(sn -> sn.getPort() == port)) {
              return;
            }
          } catch (Exception e) {
            // not yet
          }
          sleep(500);
        }
        throw new IllegalStateException("the RegionServer did not join:\n" + Processes.tail(conf.resolve("rs.out"), 30));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The server name the master knows it by. */
    public org.apache.hadoop.hbase.ServerName serverName() throws IOException {
      try (Admin admin = admin()) {
        return admin.getRegionServers().stream().filter(sn -> sn.getPort() == port).findFirst()
            .orElseThrow(() -> new IllegalStateException("RegionServer on port " + port + " is not live"));
      }
    }

    /** SIGSTOP / SIGCONT: its ports accept connections and answer nothing. */
    public void pause(boolean paused) {
      Processes.pause(rs, paused);
    }

    /** SIGKILL: the master finds out when its ZooKeeper session expires, then reassigns its regions. */
    public void kill() {
      Processes.kill(rs);
    }

    @Override
    public void close() {
      if (rs != null && rs.isAlive()) {
        Processes.stop(rs, Duration.ofSeconds(60));
      }
    }
  }

  /** The classpath the HBase processes run with (hack/hbase-classpath.sh). */
  public static String classpath() throws IOException {
    return classpath(null);
  }

  /** The classpath of an HBase release (null: hbase-runtime/pom.xml's), resolved on first use. */
  static String classpath(String version) throws IOException {
    Path script = Paths.projectDir().resolve("hack/hbase-classpath.sh");
    List<String> cmd = new ArrayList<>(List.of("bash", script.toString()));
    if (version != null) {
      cmd.add(version);
    }
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    try {
      if (p.waitFor() != 0 || out.isEmpty()) {
        throw new IllegalStateException("hack/hbase-classpath.sh failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return out;
  }

  /**
   * A port free now, below Linux's ephemeral range (32768-60999): a port the kernel hands out for
   * {@code bind(0)} or an outbound connection can be taken by another process between this pick and
   * the server's bind (a CI run: an HBase info server's "Port in use" on 35379), and these cannot.
   */
  public static int freePort() {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = 20000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(12000);
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(true);
        s.bind(new java.net.InetSocketAddress(port));
        return port;
      } catch (IOException taken) {
        // in use: another
      }
    }
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
