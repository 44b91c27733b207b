package io.hbaseqos.operator.hbase;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import io.hbaseqos.operator.quota.Subject;
import java.util.regex.Pattern;

/**
 * Which HBase client settings an HBaseCluster's {@code spec.connection.clientConfig} may carry.
 * Timeouts, retries, server principals, RPC protection and TLS (which servers to trust) are the
 * cluster's business; the operator's own identity (authentication, keytab, principal, SASL
 * providers, identity mapping, the TLS certificate it presents) is
 * set by its installation, and no key may name a class for the operator to load (connection,
 * registry, RPC client, codec implementations). Plain Java; the CRD's rule and the reconciler's
 * check both come from here, and a connection never applies a refused key.
 */
public final class ClientConfigKeys {
  private ClientConfigKeys() {}

  /** Keys of the operator's identity: set with the Helm values {@code hbase.kerberos.*} and {@code hbase.clientConfig}. */
  public static final Set<String> IDENTITY = Set.of("hbase.security.authentication", "hadoop.security.authentication",
      "hbase.client.keytab.file", "hbase.client.keytab.principal", "hbase.client.kerberos.principal",
      "hadoop.security.auth_to_local", "hadoop.security.group.mapping", "hadoop.security.credential.provider.path",
      "hbase.client.userprovider.class", "hbase.client.sasl.provider.class", "hbase.client.sasl.provider.extras",
      "hbase.rpc.tls.keystore.location", "hbase.rpc.tls.keystore.password", "hbase.rpc.tls.keystore.type",
      "hbase.zookeeper.property.sasl.clientconfig", "hbase.zookeeper.quorum", "zookeeper.znode.parent");

  /** A key naming something the operator would load or instantiate. */
  static final Pattern CLASS_KEY = Pattern.compile("(^|.*[.])(impl|class|classes|codec|compressor|extras|factory|plugin|plugins)$"
      + "|.*[.]impl[.].*");

  /** Characters XML 1.0 cannot carry, and control and format characters. */
  static final Pattern ILLEGAL = Pattern.compile("[\\p{Cc}\\p{Cf}\\x{FFFE}\\x{FFFF}]");

  /** Why {@code key} may not be set to {@code value} through clientConfig, in words; null when it may. */
  public static String refusal(String key, String value) {
    if (key.isBlank() || !key.equals(key.strip()) || key.chars().anyMatch(Character::isWhitespace)) {
      return "key '" + Subject.printable(key) + "' contains whitespace";
    }
    if (ILLEGAL.matcher(key).find()) {
      return "key '" + Subject.printable(key) + "' contains a control or format character";
    }
    if (value != null && ILLEGAL.matcher(value.replace('\t', ' ')).find()) {
      return "the value of " + key + " contains a control or format character";
    }
    if (key.equals("hbase.zookeeper.quorum") || key.equals("zookeeper.znode.parent")) {
      return key + " is set with zookeeperQuorum and znodeParent";
    }
    if (IDENTITY.contains(key)) {
      return key + " is the operator's own identity, set by its installation (Helm values hbase.kerberos.*, hbase.tls.* "
          + "and hbase.clientConfig), not per cluster";
    }
    if (CLASS_KEY.matcher(key).matches()) {
      return key + " names a class the operator would load; such settings come only from the operator's installation";
    }
    return null;
  }

  /** Every refused entry of a clientConfig, as {@code spec.connection.clientConfig[key]: reason}. */
  public static List<String> refusals(Map<String, String> clientConfig) {
    List<String> out = new ArrayList<>();
    if (clientConfig != null) {
      clientConfig.forEach((k, v) -> {
        String r = refusal(k, v);
        if (r != null) {
          out.add("spec.connection.clientConfig[" + Subject.printable(k) + "]: " + r);
        }
      });
    }
    return out;
  }

}
