package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientConfigurationTest {

  @Test
  void clusterSettingsBeatTheSiteFileWhichBeatsTheDefaults(@TempDir Path dir) throws Exception {
    Path site = dir.resolve("hbase-site.xml");
    Files.writeString(site, """
        <configuration>
          <property><name>hbase.rpc.timeout</name><value>5000</value></property>
          <property><name>hbase.security.authentication</name><value>kerberos</value></property>
          <property><name>hbase.client.pause</name><value>50</value></property>
        </configuration>""");
    Configuration c = HBaseQuotaBackend.configuration("zk1:2181", "/hbase-x", site,
        Map.of("hbase.client.pause", "75"));
    assertThat(c.get("hbase.zookeeper.quorum")).isEqualTo("zk1:2181");
    assertThat(c.get("zookeeper.znode.parent")).isEqualTo("/hbase-x");
    assertThat(c.getInt("hbase.rpc.timeout", 0)).as("site file over built-in default").isEqualTo(5000);
    assertThat(c.get("hbase.security.authentication")).isEqualTo("kerberos");
    assertThat(c.getInt("hbase.client.pause", 0)).as("cluster clientConfig over site file").isEqualTo(75);
    assertThat(c.getInt("hbase.client.retries.number", 0)).as("built-in default kept").isEqualTo(3);
  }

  @Test
  void withoutASiteFileTheBuiltInDefaultsApply() {
    Configuration c = HBaseQuotaBackend.configuration("zk1:2181", null, null, null);
    assertThat(c.getInt("hbase.rpc.timeout", 0)).isEqualTo(10_000);
    assertThat(c.get("zookeeper.znode.parent")).isEqualTo("/hbase");
  }
}
