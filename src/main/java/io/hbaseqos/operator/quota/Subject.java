package io.hbaseqos.operator.quota;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Who a quota applies to: a user, a namespace, a table, a user on a table or a user on a
 * namespace (the five throttle subjects HBase stores in {@code hbase:quota}). Tables are kept
 * fully qualified ({@code ns:table}, {@code default:} for the default namespace).
 */
public record Subject(String user, String namespace, String table) implements Comparable<Subject> {

  /** HBase namespace names: word characters only ({@code TableName.isLegalNamespaceName}). */
  public static final String NAMESPACE_PATTERN = "^[a-zA-Z0-9_]{1,128}$";
  /** Table: optional namespace, then a qualifier of word characters, '-' and '.', not starting with '.' or '-'. */
  public static final String TABLE_PATTERN = "^([a-zA-Z0-9_]{1,128}:)?[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,254}$";
  /** Users: a short user name as HBase sees it (no whitespace, no ',' which HBase uses as separator). */
  public static final String USER_PATTERN = "^[^\\s,:]{1,256}$";

  /** Namespaces whose tables HBase never throttles, though it accepts quotas for them. */
  public static final List<String> SYSTEM_NAMESPACES = List.of("hbase", "backup");

  private static final Pattern NS = Pattern.compile(NAMESPACE_PATTERN);
  private static final Pattern TABLE = Pattern.compile(TABLE_PATTERN);
  private static final Pattern USER = Pattern.compile(USER_PATTERN);

  public enum Kind { USER, NAMESPACE, TABLE, USER_TABLE, USER_NAMESPACE }

  public Subject {
    user = blankToNull(user);
    namespace = blankToNull(namespace);
    table = blankToNull(table);
    if (table != null && !table.contains(":")) {
      table = "default:" + table;
    }
  }

  public static Subject user(String u) {
    return new Subject(u, null, null);
  }

  public static Subject namespace(String ns) {
    return new Subject(null, ns, null);
  }

  public static Subject table(String t) {
    return new Subject(null, null, t);
  }

  public Kind kind() {
    if (user != null) {
      if (table != null) {
        return Kind.USER_TABLE;
      }
      return namespace != null ? Kind.USER_NAMESPACE : Kind.USER;
    }
    return table != null ? Kind.TABLE : Kind.NAMESPACE;
  }

  /** The namespace the subject's data lives in, if any. */
  public String effectiveNamespace() {
    if (namespace != null) {
      return namespace;
    }
    return table == null ? null : table.substring(0, table.indexOf(':'));
  }

  /** The table qualifier without its namespace. */
  public String tableQualifier() {
    return table == null ? null : table.substring(table.indexOf(':') + 1);
  }

  /** Validates names and the combination; returns every problem, field by field. */
  public static List<InvalidSpecException> validate(String user, String namespace, String table, String field) {
    List<InvalidSpecException> errors = new ArrayList<>();
    boolean u = blankToNull(user) != null;
    boolean n = blankToNull(namespace) != null;
    boolean t = blankToNull(table) != null;
    if (!u && !n && !t) {
      errors.add(new InvalidSpecException(field, "names no user, namespace or table; set at least one"));
      return errors;
    }
    if (n && t) {
      errors.add(new InvalidSpecException(field, "sets both namespace and table; HBase throttles a user, a namespace, "
          + "a table, a user on a table or a user on a namespace"));
    }
    if (u && !USER.matcher(user).matches()) {
      errors.add(new InvalidSpecException(field + ".user", "'" + user + "' is not a valid user name"));
    }
    if (n) {
      if (!NS.matcher(namespace).matches()) {
        errors.add(new InvalidSpecException(field + ".namespace", "'" + namespace
            + "' is not a legal HBase namespace name (letters, digits and '_')"));
      } else if (SYSTEM_NAMESPACES.contains(namespace)) {
        errors.add(systemNamespace(field + ".namespace", namespace));
      }
    }
    if (t) {
      if (!TABLE.matcher(table).matches()) {
        errors.add(new InvalidSpecException(field + ".table", "'" + table
            + "' is not a legal HBase table name ([namespace:]qualifier of letters, digits, '_', '-', '.')"));
      } else if (table.contains(":") && SYSTEM_NAMESPACES.contains(table.substring(0, table.indexOf(':')))) {
        errors.add(systemNamespace(field + ".table", table.substring(0, table.indexOf(':'))));
      }
    }
    return errors;
  }

  private static InvalidSpecException systemNamespace(String field, String ns) {
    return new InvalidSpecException(field, "'" + ns + "' is a system namespace: HBase accepts throttles on it "
        + "but never enforces them");
  }

  /** A short, stable rendering such as {@code user=alice,table=default:t1}. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    if (user != null) {
      sb.append("user=").append(user);
    }
    if (namespace != null) {
      sb.append(sb.isEmpty() ? "" : ",").append("namespace=").append(namespace);
    }
    if (table != null) {
      sb.append(sb.isEmpty() ? "" : ",").append("table=").append(table);
    }
    return sb.toString();
  }

  @Override
  public int compareTo(Subject o) {
    return toString().compareTo(o.toString());
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
