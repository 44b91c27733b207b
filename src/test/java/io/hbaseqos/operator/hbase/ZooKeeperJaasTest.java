package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ZooKeeperJaasTest {
  private Configuration before;

  @BeforeEach
  void keep() {
    before = Configuration.getConfiguration();
  }

  @AfterEach
  void restore() {
    Configuration.setConfiguration(before);
  }

  /** A configuration with one section of its own, as a JAAS file would have. */
  static Configuration file(String section) {
    return new Configuration() {
      @Override
      public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
        return section.equals(name) ? new AppConfigurationEntry[] {new AppConfigurationEntry("x.Module",
            AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, Map.of())} : null;
      }
    };
  }

  static Map<String, Object> options(AppConfigurationEntry e) {
    return new java.util.HashMap<>(e.getOptions());
  }

  @Test
  void theClientSectionLogsInFromTheKeytabAndEveryOtherSectionIsThePreviousOnes() {
    Configuration.setConfiguration(file("KafkaClient"));
    assertThat(ZooKeeperJaas.install("op/host@EXAMPLE.COM", "/etc/hbase-qos/keytab/keytab")).isTrue();
    AppConfigurationEntry[] client = Configuration.getConfiguration().getAppConfigurationEntry("Client");
    assertThat(client).hasSize(1);
    assertThat(client[0].getLoginModuleName()).isEqualTo("com.sun.security.auth.module.Krb5LoginModule");
    assertThat(client[0].getControlFlag()).isEqualTo(AppConfigurationEntry.LoginModuleControlFlag.REQUIRED);
    assertThat(options(client[0])).containsEntry("useKeyTab", "true")
        .containsEntry("keyTab", "/etc/hbase-qos/keytab/keytab").containsEntry("principal", "op/host@EXAMPLE.COM")
        .containsEntry("useTicketCache", "false").containsEntry("doNotPrompt", "true");
    assertThat(Configuration.getConfiguration().getAppConfigurationEntry("KafkaClient")).as("the file's own")
        .hasSize(1);
    assertThat(Configuration.getConfiguration().getAppConfigurationEntry("Server")).isNull();

    // installed again (another login): replaces its own section, still over the file's
    assertThat(ZooKeeperJaas.install("op2@EXAMPLE.COM", "/k2")).isTrue();
    assertThat(options(Configuration.getConfiguration().getAppConfigurationEntry("Client")[0]))
        .containsEntry("principal", "op2@EXAMPLE.COM");
    assertThat(Configuration.getConfiguration().getAppConfigurationEntry("KafkaClient")).hasSize(1);
  }

  @Test
  void aJaasFileWithItsOwnClientSectionWins() {
    Configuration file = file("Client");
    Configuration.setConfiguration(file);
    assertThat(ZooKeeperJaas.install("op@EXAMPLE.COM", "/k")).isFalse();
    assertThat(Configuration.getConfiguration()).isSameAs(file);
  }
}
