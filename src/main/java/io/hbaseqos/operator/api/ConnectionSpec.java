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
  @ValidationRule(value = "self.all(k, !(k in ['hbase.security.authentication', 'hadoop.security.authentication', "
      + "'hbase.client.keytab.file', 'hbase.client.keytab.principal', 'hbase.client.kerberos.principal', "
      + "'hadoop.security.auth_to_local', 'hadoop.security.group.mapping', 'hadoop.security.credential.provider.path', "
      + "'hbase.client.userprovider.class', 'hbase.client.sasl.provider.class', 'hbase.client.sasl.provider.extras', "
      + "'hbase.rpc.tls.keystore.location', 'hbase.rpc.tls.keystore.password', 'hbase.rpc.tls.keystore.type', "
      + "'hbase.zookeeper.property.sasl.clientconfig']))",
      message = "clientConfig may not set the operator's own identity (authentication, keytab, principal, SASL "
          + "providers and ZooKeeper login section, identity mapping, its TLS certificate): the operator's "
          + "installation sets it (Helm values "
          + "hbase.kerberos.*, hbase.tls.* and hbase.clientConfig)")
  @ValidationRule(value = "self.all(k, !k.matches('(^|[.])(impl|class|classes|codec|compressor|extras|factory|plugin|plugins)$') "
      + "&& !k.contains('.impl.'))",
      message = "clientConfig may not name a class for the operator to load (keys ending in .impl, .class, .classes, "
          + ".codec, .compressor, .factory, .plugin(s), .extras): such settings come only from the operator's installation")
  @ValidationRule(value = "self.all(k, !k.matches('[\\\\s\\\\p{Cc}\\\\p{Cf}]'))",
      message = "clientConfig keys may not contain whitespace, control or format characters")
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
