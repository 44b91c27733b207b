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
      "null, hbase, null, system namespace",
      "null, backup, null, system namespace",
      "null, null, hbase:meta, system namespace",
      "u, null, backup:x, system namespace",
      "null, bad-ns, null, legal HBase namespace",
      "null, null, .hidden, legal HBase table",
      "null, null, -dash, legal HBase table",
      "null, null, ns:t/x, legal HBase table",
      "null, null, a:b:c, legal HBase table",
      "'with space', null, null, valid user name",
      "'a,b', null, null, valid user name",
  }, nullValues = "null")
  void invalidSubjectsAreRejectedWithTheirField(String user, String ns, String table, String message) {
    assertThat(Subject.validate(user, ns, table, "spec.subject"))
        .anySatisfy(e -> assertThat(e.getMessage()).startsWith("spec.subject").contains(message));
  }

  @ParameterizedTest
  @CsvSource(value = {"alice, null, null", "null, tenant_1, null", "null, null, usertable", "null, null, ns1:t-1.v2",
      "svc@REALM, null, ns:t", "bob, ns, null"}, nullValues = "null")
  void validSubjects(String user, String ns, String table) {
    assertThat(Subject.validate(user, ns, table, "s")).isEmpty();
  }
}
