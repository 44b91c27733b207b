package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SubjectTest {

  @Test
  void kindsOfTheFiveValidCombinations() {
    assertThat(Subject.user("a").kind()).isEqualTo(Subject.Kind.USER);
    assertThat(Subject.namespace("n").kind()).isEqualTo(Subject.Kind.NAMESPACE);
    assertThat(Subject.table("t").kind()).isEqualTo(Subject.Kind.TABLE);
    assertThat(new Subject("a", null, "n:t").kind()).isEqualTo(Subject.Kind.USER_TABLE);
    assertThat(new Subject("a", "n", null).kind()).isEqualTo(Subject.Kind.USER_NAMESPACE);
  }

  @Test
  void tablesAreFullyQualified() {
    assertThat(Subject.table("t1").table()).isEqualTo("default:t1");
    assertThat(Subject.table("t1")).isEqualTo(Subject.table("default:t1"));
    assertThat(Subject.table("ns:t1").effectiveNamespace()).isEqualTo("ns");
    assertThat(Subject.table("ns:t1").tableQualifier()).isEqualTo("t1");
    assertThat(new Subject("a", null, "ns:t").toString()).isEqualTo("user=a,table=ns:t");
  }

  @ParameterizedTest
  @CsvSource(value = {
      "null, null, null, names no user",
      "null, ns, t, both namespace and table",
      "a, ns, ns:t, both namespace and table",
      "null, null, hbase:meta, never throttled by HBase, on any version",
      "u, null, hbase:quota, never throttled by HBase, on any version",
      "null, null, hbase:namespace, never throttled by HBase, on any version",
      "null, bad-ns, null, legal HBase namespace",
      "null, null, .hidden, legal HBase table",
      "null, null, -dash, legal HBase table",
      "null, null, ns:t/x, legal HBase table",
      "null, null, a:b:c, legal HBase table",
      "'with space', null, null, HBase uses as separators",
      "'a,b', null, null, HBase uses as separators",
      "'a:b', null, null, HBase uses as separators",
      "svc@REALM, null, null, has a realm",
      "@admins, null, null, names a group",
  }, nullValues = "null")
  void invalidSubjectsAreRejectedWithTheirField(String user, String ns, String table, String message) {
    assertThat(Subject.validate(user, ns, table, "spec.subject"))
        .anySatisfy(e -> assertThat(e.getMessage()).startsWith("spec.subject").contains(message));
  }

  /** Nothing a shell or the HBase shell (JRuby) would read as syntax reaches a command the operator prints. */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"a'b", "a\"b", "a;id", "a#b", "a$(id)", "a`id`", "a(b)", "a\\b", "a|b", "a&b",
      "a<b", "a>b", "a*", "a?b", "a{b}", "a[b]", "a!b", "a~b", "a/b", "a=b", "a+b", "a%b", ".a", "-a"})
  void shellAndRubyMetacharactersInUserNamesAreRefusedInWords(String user) {
    assertThat(Subject.validate(user, null, null, "spec.subject")).singleElement()
        .satisfies(e -> assertThat(e.getMessage()).startsWith("spec.subject.user").contains("shell or Ruby characters"));
    assertThat(java.util.regex.Pattern.matches(Subject.USER_PATTERN, user)).isFalse();
  }

  @ParameterizedTest
  @CsvSource(value = {"alice, null, null", "null, tenant_1, null", "null, null, usertable", "null, null, ns1:t-1.v2",
      "svc.batch-1, null, ns:t", "bob, ns, null", "élodie, null, null",
      // the system namespaces: whether HBase enforces throttles there depends on its version
      "null, hbase, null", "u, backup, null", "null, null, backup:system", "null, null, hbase:acl"}, nullValues = "null")
  void validSubjects(String user, String ns, String table) {
    assertThat(Subject.validate(user, ns, table, "s")).isEmpty();
  }

  @Test
  void theSystemNamespaceOfASubject() {
    assertThat(Subject.namespace("hbase").systemNamespace()).isEqualTo("hbase");
    assertThat(Subject.table("backup:system").systemNamespace()).isEqualTo("backup");
    assertThat(new Subject("u", "backup", null).systemNamespace()).isEqualTo("backup");
    assertThat(Subject.table("t").systemNamespace()).isNull();
    assertThat(Subject.namespace("hbase_tenant").systemNamespace()).isNull();
    assertThat(Subject.user("hbase").systemNamespace()).isNull();
  }

  /** Names that would look like another tenant's: refused, and shown with the character spelled out. */
  @ParameterizedTest
  @CsvSource(value = {
      "200B, zero-width space", "202E, bidi override", "000B, vertical tab", "2028, line separator",
      "2029, paragraph separator", "00A0, no-break space", "FEFF, byte order mark", "0009, tab", "0085, next line",
  })
  void invisibleCharactersInUserNamesAreRefusedInWords(String hex, String what) {
    String user = "ali" + Character.toString(Integer.parseInt(hex, 16)) + "ce";
    assertThat(Subject.validate(user, null, null, "spec.subject")).as(what)
        .singleElement().satisfies(e -> assertThat(e.getMessage()).startsWith("spec.subject.user")
            .contains("control, format or separator character").contains("ali\\u" + hex + "ce"));
    assertThat(java.util.regex.Pattern.matches(Subject.USER_PATTERN, user)).isFalse();
  }

  @Test
  void namespacesAndTablesAreAsciiOnly() {
    assertThat(Subject.validate(null, "ns" + Character.toString(0x200B), null, "s")).isNotEmpty();
    assertThat(Subject.validate(null, null, "t" + Character.toString(0x2028), "s")).isNotEmpty();
  }

  @Test
  void whatHBaseCouldHoldIsLooserThanWhatIsValid() {
    assertThat(Subject.storable("svc@REALM", null, null)).isEqualTo(Subject.user("svc@REALM"));
    assertThat(Subject.storable(null, "hbase", null)).isEqualTo(Subject.namespace("hbase"));
    assertThat(Subject.storable(null, null, "bad/table")).isNull();
    assertThat(Subject.storable(null, "ns", "t")).isNull();
    assertThat(Subject.storable(null, null, null)).isNull();
  }

}
