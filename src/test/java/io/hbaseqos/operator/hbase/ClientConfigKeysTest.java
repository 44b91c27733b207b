package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ClientConfigKeysTest {
  @ParameterizedTest
  @ValueSource(strings = {"hbase.rpc.timeout", "hbase.client.retries.number", "hbase.master.kerberos.principal",
      "hbase.regionserver.kerberos.principal", "hbase.rpc.protection", "hbase.ssl.enabled",
      "hbase.client.netty.tls.enabled", "hbase.rpc.tls.truststore.location",
      "hbase.client.operation.timeout", "hbase.client.scanner.caching"})
  void theClustersOwnSettingsAreAllowed(String key) {
    assertThat(ClientConfigKeys.refusal(key, "1")).isNull();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "hbase.security.authentication | the operator's own identity",
      "hadoop.security.authentication | the operator's own identity",
      "hbase.client.keytab.principal | the operator's own identity",
      "hbase.client.sasl.provider.extras | the operator's own identity",
      "hbase.rpc.tls.keystore.location | the operator's own identity",
      "hbase.client.connection.impl | names a class the operator would load",
      "hbase.client.registry.impl | names a class the operator would load",
      "hbase.rpc.client.impl | names a class the operator would load",
      "hbase.client.rpc.codec | names a class the operator would load",
      "hbase.zookeeper.quorum | zookeeperQuorum and znodeParent",
      "' hbase.rpc.timeout' | contains whitespace",
      "'hbase.rpc.timeout ' | contains whitespace",
  })
  void theOperatorsIdentityAndClassesAreRefusedInWords(String key, String words) {
    assertThat(ClientConfigKeys.refusal(key, "x")).contains(words);
  }

  @Test
  void controlCharactersAreRefusedAndARefusedKeyNeverReachesAConnection() {
    assertThat(ClientConfigKeys.refusal("hbase.rpc\u0000.timeout", "1")).contains("control or format character");
    assertThat(ClientConfigKeys.refusal("hbase.rpc.timeout", "1\n2")).contains("value of hbase.rpc.timeout");
    Map<String, String> cc = new LinkedHashMap<>();
    cc.put("hbase.rpc.timeout", "4321");
    cc.put("hbase.client.connection.impl", "org.example.Evil");
    cc.put("hbase.security.authentication", "kerberos");
    assertThat(ClientConfigKeys.refusals(cc)).containsExactly(
        "spec.connection.clientConfig[hbase.client.connection.impl]: hbase.client.connection.impl names a class the "
            + "operator would load; such settings come only from the operator's installation",
        "spec.connection.clientConfig[hbase.security.authentication]: hbase.security.authentication is the operator's "
            + "own identity, set by its installation (Helm values hbase.kerberos.*, hbase.tls.* and hbase.clientConfig), not per "
            + "cluster");
    Configuration conf = HBaseQuotaBackend.configuration("zk:2181", "/hbase", null, cc);
    assertThat(conf.get("hbase.rpc.timeout")).isEqualTo("4321");
    assertThat(conf.get("hbase.client.connection.impl")).isNotEqualTo("org.example.Evil");
    assertThat(conf.get("hbase.security.authentication")).isNotEqualTo("kerberos");
  }

  /** Admission refuses what the operator refuses: every identity key is in the CRD's rule on clientConfig. */
  @org.junit.jupiter.api.Test
  void theCrdsRuleNamesEveryIdentityKey() throws Exception {
    String crd = java.nio.file.Files.readString(io.hbaseqos.operator.support.Paths.projectDir()
        .resolve("crds/hbaseclusters.hbaseqos.io.yaml"));
    for (String key : ClientConfigKeys.IDENTITY) {
      if (!key.equals("hbase.zookeeper.quorum") && !key.equals("zookeeper.znode.parent")) {
        assertThat(crd).as(key).contains("'" + key + "'");
      }
    }
  }
}
