package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.hbaseqos.operator.quota.Subject;
import java.util.Objects;

/** Who the throttles apply to. Valid: user, namespace, table, user+table, user+namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "has(self.user) || has(self.namespace) || has(self.table)",
    message = "subject needs a user, a namespace or a table")
@ValidationRule(value = "!(has(self.namespace) && has(self.table))",
    message = "subject cannot set both namespace and table: HBase throttles a user, a namespace, a table, a user on a table or a user on a namespace")
@ValidationRule(value = "!has(self.namespace) || !(self.namespace in ['hbase', 'backup'])",
    message = "namespaces 'hbase' and 'backup' are system namespaces: HBase accepts throttles on them but never enforces them")
@ValidationRule(value = "!has(self.table) || !(self.table.startsWith('hbase:') || self.table.startsWith('backup:'))",
    message = "tables in the 'hbase' and 'backup' system namespaces are never throttled by HBase")
public class QuotaSubject {
  @Size(max = 256)
  @Pattern(Subject.USER_PATTERN)
  @JsonPropertyDescription("HBase user (short name as the RegionServer sees it, or the quota user override).")
  private String user;

  @Size(max = 128)
  @Pattern(Subject.NAMESPACE_PATTERN)
  @JsonPropertyDescription("HBase namespace.")
  private String namespace;

  @Size(max = 384)
  @Pattern(Subject.TABLE_PATTERN)
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
