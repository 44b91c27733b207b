package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/** Who the throttles apply to. Valid: user, namespace, table, user+table, user+namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "has(self.user) || has(self.namespace) || has(self.table)",
    message = "subject needs a user, a namespace or a table")
@ValidationRule(value = "!(has(self.namespace) && has(self.table))",
    message = "subject cannot set both namespace and table: HBase throttles a user, a namespace, a table, a user on a table or a user on a namespace")
@ValidationRule(value = "!has(self.table) || !(self.table in ['hbase:meta', 'hbase:quota', 'hbase:namespace'])",
    message = "hbase:meta, hbase:quota and hbase:namespace are never throttled by HBase, on any version: the quota "
        + "machinery itself reads them")
public class QuotaSubject {
  /**
   * Unicode control (Cc, includes tab, newline, vertical tab), format (Cf: zero-width spaces, bidi
   * overrides) and separator characters (line and paragraph separators, and every space but the
   * ASCII one, which has a rule of its own), as an RE2 class: the API server's {@code \\s} is ASCII only.
   */
  static final String UNICODE_INVISIBLE = "[\\\\p{Cc}\\\\p{Cf}\\\\p{Zl}\\\\p{Zp}\\\\x{00A0}\\\\x{1680}"
      + "\\\\x{2000}-\\\\x{200A}\\\\x{202F}\\\\x{205F}\\\\x{3000}]";

  @Size(min = 1, max = 256)
  @ValidationRule(value = "!self.startsWith('@')",
      message = "user names a group ('@...'): HBase quotas apply to users, not groups")
  @ValidationRule(value = "self.startsWith('@') || !self.contains('@')",
      message = "user has a realm ('user@REALM'): HBase matches quotas against the short user name, the part before '@'")
  @ValidationRule(value = "!self.matches('" + UNICODE_INVISIBLE + "')",
      message = "user contains a control, format or separator character (such as a zero-width space, a bidi override, "
          + "a vertical tab or a line separator): it would look like another user")
  @ValidationRule(value = "!self.matches('[ ,:]')",
      message = "user contains a space, ',' or ':', which HBase uses as separators")
  @ValidationRule(value = "self.matches('^[\\\\p{L}\\\\p{N}_][\\\\p{L}\\\\p{N}_.-]*$') || self.startsWith('@') "
      + "|| self.matches('[@ ,:]') || self.matches('" + UNICODE_INVISIBLE + "')",
      message = "user may contain only letters, digits, '_', '.' and '-', and must not start with '.' or '-': quotes, "
          + "';', '#', '$', parentheses, backslashes and other shell or Ruby characters are refused")
  @JsonPropertyDescription("HBase user (short name as the RegionServer sees it, or the quota user override).")
  private String user;

  @Size(min = 1, max = 128)
  @ValidationRule(value = "self.matches('^[a-zA-Z0-9_]+$')",
      message = "namespace may contain only letters, digits and '_' (HBase namespace names)")
  @JsonPropertyDescription("HBase namespace.")
  private String namespace;

  @Size(min = 1, max = 384)
  @ValidationRule(value = "self.matches('^([a-zA-Z0-9_]+:)?[a-zA-Z0-9_][a-zA-Z0-9_.-]*$')",
      message = "table must be [namespace:]qualifier: letters, digits and '_' in the namespace; letters, digits, '_', "
          + "'-' and '.' in the qualifier, which must not start with '.' or '-'")
  @JsonPropertyDescription("HBase table, as 'namespace:table' or 'table' (default namespace).")
  private String table;

  public QuotaSubject() {}

  public QuotaSubject(String user, String namespace, String table) {
    this.user = user;
    this.namespace = namespace;
    this.table = table;
  }

  public String getUser() {
    return user;
  }

  public void setUser(String user) {
    this.user = user;
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public String getTable() {
    return table;
  }

  public void setTable(String table) {
    this.table = table;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof QuotaSubject s && Objects.equals(user, s.user) && Objects.equals(namespace, s.namespace)
        && Objects.equals(table, s.table);
  }

  @Override
  public int hashCode() {
    return Objects.hash(user, namespace, table);
  }
}
