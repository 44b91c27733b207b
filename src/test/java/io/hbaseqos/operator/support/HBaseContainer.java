package io.hbaseqos.operator.support;

import io.hbaseqos.operator.api.ConnectionSpec;
import io.hbaseqos.operator.topology.ClusterObjects;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.PullPolicy;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * A standalone HBase 2.6.4 (master, RegionServer and ZooKeeper in one JVM) started by
 * Testcontainers from the project's HBase image (src/main/docker/Dockerfile.hbase, built by
 * hack/images.sh or {@code docker build}; never pulled). It runs on the host's network, on free
 * ports, and advertises localhost: clients on the host and containers on the host's network reach
 * it by the names it registers, with no port mapping (which HBase's self-advertised addresses do
 * not survive).
 */
public final class HBaseContainer extends GenericContainer<HBaseContainer> {
  public static final String IMAGE = "ghcr.io/hbase-qos-operator/hbase:2.6.4";
  private final int zkPort = StandaloneHBase.freePort();

  public HBaseContainer() {
    super(DockerImageName.parse(IMAGE));
    Map<String, String> site = new LinkedHashMap<>();
    site.put("hbase.cluster.distributed", "false");
    site.put("hbase.rootdir", "file:///var/lib/hbase/data");
    site.put("hbase.zookeeper.property.dataDir", "/var/lib/hbase/zookeeper");
    site.put("hbase.zookeeper.quorum", "localhost");
    site.put("hbase.zookeeper.property.clientPort", String.valueOf(zkPort));
    site.put("hbase.master.port", String.valueOf(StandaloneHBase.freePort()));
    site.put("hbase.master.info.port", "-1");
    site.put("hbase.regionserver.port", String.valueOf(StandaloneHBase.freePort()));
    site.put("hbase.regionserver.info.port", String.valueOf(StandaloneHBase.freePort()));
    site.put("hbase.master.hostname", "localhost");
    site.put("hbase.unsafe.regionserver.hostname", "localhost");
    site.put("hbase.unsafe.stream.capability.enforce", "false");
    site.put("hbase.quota.enabled", "true");
    site.put("hbase.quota.refresh.period", "2000");
    withImagePullPolicy(PullPolicy.defaultPolicy());
    withNetworkMode("host");
    withCopyToContainer(Transferable.of(ClusterObjects.siteXml(site), 0644), "/etc/hbase/hbase-site.xml");
    withEnv("HBASE_MASTER_OPTS", "-Xms512m -Xmx512m -XX:+UseSerialGC");
    withCommand("hbase", "master", "start");
    waitingFor(Wait.forLogMessage(".*Master has completed initialization.*", 1)
        .withStartupTimeout(Duration.ofMinutes(3)));
  }

  public String quorum() {
    return "localhost:" + zkPort;
  }

  public ConnectionSpec connectionSpec() {
    ConnectionSpec c = new ConnectionSpec();
    c.setZookeeperQuorum(quorum());
    return c;
  }

  public Configuration clientConfiguration() {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", quorum());
    conf.setInt("hbase.client.retries.number", 10);
    return conf;
  }
}
