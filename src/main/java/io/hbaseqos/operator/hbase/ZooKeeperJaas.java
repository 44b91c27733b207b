package io.hbaseqos.operator.hbase;

import java.util.Map;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;

/**
 * The JAAS section ZooKeeper's client reads to authenticate its sessions with SASL (Kerberos):
 * the operator's own keytab and principal, made in memory, so that the operator needs no JAAS
 * file. ZooKeeper looks the section up (default name {@code Client}, or
 * {@code zookeeper.sasl.clientconfig}) in the process-wide {@link Configuration}; every other
 * section is asked of the configuration that was in place, and a JAAS file that already has the
 * section wins. Hadoop's own login passes a configuration of its own, so it is not affected.
 */
final class ZooKeeperJaas extends Configuration {
  static final String LOGIN_MODULE = "com.sun.security.auth.module.Krb5LoginModule";

  private final Configuration previous;
  private final String section;
  private final AppConfigurationEntry entry;

  private ZooKeeperJaas(Configuration previous, String section, String principal, String keytab) {
    this.previous = previous;
    this.section = section;
    this.entry = new AppConfigurationEntry(LOGIN_MODULE, AppConfigurationEntry.LoginModuleControlFlag.REQUIRED,
        Map.of("useKeyTab", "true", "keyTab", keytab, "principal", principal, "storeKey", "true",
            "useTicketCache", "false", "doNotPrompt", "true", "refreshKrb5Config", "true"));
  }

  /**
   * Installs the section for this principal and keytab.
   *
   * @return false when a JAAS configuration in place already has the section (an installer's file)
   */
  static synchronized boolean install(String principal, String keytab) {
    Configuration previous;
    try {
      previous = Configuration.getConfiguration();
    } catch (SecurityException e) {
      previous = null; // no JAAS file: the JDK's default configuration could not be made
    }
    if (previous instanceof ZooKeeperJaas own) {
      previous = own.previous;
    }
    String section = section();
    if (previous != null && previous.getAppConfigurationEntry(section) != null) {
      return false;
    }
    Configuration.setConfiguration(new ZooKeeperJaas(previous, section, principal, keytab));
    return true;
  }

  /** The section ZooKeeper's client asks for. */
  static String section() {
    return System.getProperty("zookeeper.sasl.clientconfig", "Client");
  }

  @Override
  public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
    if (section.equals(name)) {
      return new AppConfigurationEntry[] {entry};
    }
    return previous == null ? null : previous.getAppConfigurationEntry(name);
  }

  @Override
  public void refresh() {
    if (previous != null) {
      previous.refresh();
    }
  }
}
