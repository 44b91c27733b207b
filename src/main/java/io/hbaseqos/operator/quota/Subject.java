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
  /**
   * Users: a short user name as HBase sees it: no whitespace, no ',' or ':' (separators in HBase's
   * metric and quota names), no '@' (HBase matches quotas against the short name, never a
   * Kerberos {@code user@REALM}, and quotas have no {@code @group}), and no Unicode control,
   * format or separator character (zero-width spaces, bidi overrides, line separators), which would
   * let a second tenant look exactly like the first; and nothing but letters, digits (any script),
   * '_', '.' and '-', so a user name never carries a shell or Ruby metacharacter into a command printed for an
   * admin. Valid both in Java and in the API server's RE2.
   */
  public static final String USER_PATTERN = "^[\\p{L}\\p{N}_][\\p{L}\\p{N}_.-]{0,255}$";

  /**
   * HBase's system namespaces: up to HBase 2.6.7 (and 2.7/3.0 before HBASE-30348) their tables are
   * never throttled, though HBase accepts and stores quotas for them.
   */
  public static final List<String> SYSTEM_NAMESPACES = List.of("hbase", "backup");

  /** Tables HBase never throttles on any version: the quota machinery itself reads them (HBASE-30348). */
  public static final List<String> UNTHROTTLED_TABLES = List.of("hbase:meta", "hbase:quota", "hbase:namespace");

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

  /** The system namespace ({@link #SYSTEM_NAMESPACES}) this subject's namespace or table is in, or null. */
  public String systemNamespace() {
    String ns = namespace != null ? namespace : table == null ? null : table.substring(0, table.indexOf(':'));
    return ns != null && SYSTEM_NAMESPACES.contains(ns) ? ns : null;
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

  /**
   * The subject, if HBase could hold quotas for it: names HBase accepts and a valid combination.
   * Looser than {@link #validate}, which also applies the operator's own rules (they may tighten
   * with a new version): a resource whose subject fails only those may still have written to HBase.
   */
  public static Subject storable(String user, String namespace, String table) {
    boolean u = blankToNull(user) != null;
    boolean n = blankToNull(namespace) != null;
    boolean t = blankToNull(table) != null;
    if ((!u && !n && !t) || (n && t) || (n && !NS.matcher(namespace).matches())
        || (t && !TABLE.matcher(table).matches())) {
      return null;
    }
    return new Subject(user, namespace, table);
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
    if (u) {
      userProblem(user).ifPresent(p -> errors.add(new InvalidSpecException(field + ".user", p)));
    }
    if (n) {
      if (!NS.matcher(namespace).matches()) {
        errors.add(new InvalidSpecException(field + ".namespace", "'" + namespace
            + "' is not a legal HBase namespace name (letters, digits and '_')"));
      }
    }
    if (t) {
      if (!TABLE.matcher(table).matches()) {
        errors.add(new InvalidSpecException(field + ".table", "'" + table
            + "' is not a legal HBase table name ([namespace:]qualifier of letters, digits, '_', '-', '.')"));
      } else if (UNTHROTTLED_TABLES.contains(table)) {
        errors.add(new InvalidSpecException(field + ".table", "'" + table + "' is never throttled by HBase, on any "
            + "version: the quota machinery itself reads hbase:meta, hbase:quota and hbase:namespace"));
      }
    }
    return errors;
  }

  /** What is wrong with a user name, in words (the same rules as {@link #USER_PATTERN}). */
  public static java.util.Optional<String> userProblem(String user) {
    if (USER.matcher(user).matches()) {
      return java.util.Optional.empty();
    }
    if (user.length() > 256) {
      return java.util.Optional.of("is longer than 256 characters");
    }
    if (user.startsWith("@")) {
      return java.util.Optional.of("'" + printable(user) + "' names a group: HBase quotas apply to users, not groups");
    }
    if (user.contains("@")) {
      return java.util.Optional.of("'" + printable(user) + "' has a realm: HBase matches quotas against the short user "
          + "name (the principal's name before '@', after auth_to_local), so use '" + printable(user.substring(0,
          user.indexOf('@'))) + "'");
    }
    if (user.codePoints().anyMatch(Subject::invisible)) {
      return java.util.Optional.of("'" + printable(user) + "' contains a control, format or separator character "
          + "(such as a zero-width space, a bidi override or a line separator): it would look like another user");
    }
    if (user.contains(" ") || user.contains(",") || user.contains(":")) {
      return java.util.Optional.of("'" + printable(user) + "' contains a space, ',' or ':', which HBase uses as "
          + "separators");
    }
    return java.util.Optional.of("'" + printable(user) + "' may contain only letters, digits, '_', '.' and '-', and "
        + "must not start with '.' or '-': quotes, ';', '#', '$', parentheses, backslashes and other shell or Ruby "
        + "characters are refused");
  }

  /** Control, format and separator characters, except the ASCII space (refused with its own message). */
  private static boolean invisible(int c) {
    int type = Character.getType(c);
    return type == Character.CONTROL || type == Character.FORMAT || (Character.isSpaceChar(c) && c != ' ');
  }

  /** The name with invisible characters shown as {@code \\uXXXX}, for messages. */
  public static String printable(String s) {
    StringBuilder sb = new StringBuilder();
    s.codePoints().forEach(c -> {
      if (invisible(c)) {
        sb.append(String.format("\\u%04X", c));
      } else {
        sb.appendCodePoint(c);
      }
    });
    return sb.toString();
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
