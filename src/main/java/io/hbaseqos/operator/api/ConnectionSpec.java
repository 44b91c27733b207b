package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.LinkedHashMap;
import java.util.Map;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class ConnectionSpec {
  @Required
  @ValidationRule(value = "self.matches('^[A-Za-z0-9.-]+(:[0-9]{1,5})?(,[A-Za-z0-9.-]+(:[0-9]{1,5})?)*$')",
      message = "zookeeperQuorum must be host or host:port entries separated by commas, such as zk1:2181,zk2:2181")
  @JsonPropertyDescription("ZooKeeper quorum: comma-separated host or host:port (hbase.zookeeper.quorum).")
  private String zookeeperQuorum;

  @Default("/hbase")
  @ValidationRule(value = "self.matches('^/[A-Za-z0-9_./-]*$')",
      message = "znodeParent must be an absolute ZooKeeper path such as /hbase")
  @JsonPropertyDescription("Parent znode (zookeeper.znode.parent).")
  private String znodeParent = "/hbase";

  @io.fabric8.generator.annotation.Size(max = 256)
  @ValidationRule(value = "!('hbase.zookeeper.quorum' in self) && !('zookeeper.znode.parent' in self)",
      message = "set the quorum and znode parent with zookeeperQuorum and znodeParent, not clientConfig")
  @JsonPropertyDescription("Extra HBase client configuration (hbase-site.xml keys), e.g. timeouts or security settings.")
  private Map<String, String> clientConfig = new LinkedHashMap<>();

  public String getZookeeperQuorum() {
    return zookeeperQuorum;
  }

  public void setZookeeperQuorum(String zookeeperQuorum) {
    this.zookeeperQuorum = zookeeperQuorum;
  }

  public String getZnodeParent() {
    return znodeParent;
  }

  public void setZnodeParent(String znodeParent) {
    this.znodeParent = znodeParent;
  }

  public Map<String, String> getClientConfig() {
    return clientConfig;
  }

  public void setClientConfig(Map<String, String> clientConfig) {
    this.clientConfig = clientConfig;
  }
}
