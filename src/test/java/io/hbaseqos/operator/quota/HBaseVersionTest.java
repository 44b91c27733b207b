package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HBaseVersionTest {
  static final Limit L = new Limit(100, TimeUnit.SECONDS, Limit.Scope.MACHINE);

  @Test
  void readsWhatClustersReport() {
    assertThat(HBaseVersion.parse("2.6.4")).contains(new HBaseVersion(2, 6, 4));
    assertThat(HBaseVersion.parse("2.6.4-hadoop3")).contains(new HBaseVersion(2, 6, 4));
    assertThat(HBaseVersion.parse("3.0.0-beta-2")).contains(new HBaseVersion(3, 0, 0));
    assertThat(HBaseVersion.parse("2.6.8-SNAPSHOT")).contains(new HBaseVersion(2, 6, 8));
    assertThat(HBaseVersion.parse("2.7")).contains(new HBaseVersion(2, 7, 0));
    assertThat(HBaseVersion.parse("unknown")).isEmpty();
    assertThat(HBaseVersion.parse(null)).isEmpty();
    assertThat(new HBaseVersion(2, 10, 0).atLeast(new HBaseVersion(2, 6, 3))).as("numbers, not text").isTrue();
    assertThat(new HBaseVersion(2, 6, 2).atLeast(new HBaseVersion(2, 6, 3))).isFalse();
    assertThat(new HBaseVersion(3, 0, 0).atLeast(new HBaseVersion(2, 6, 3))).isTrue();
  }

  @Test
  void typesNewerThanTheClusterAreNamedWithTheReleaseTheyNeed() {
    SubjectQuota q = new SubjectQuota(Subject.user("u"), Map.of(ThrottleKind.REQUEST_NUMBER, L,
        ThrottleKind.ATOMIC_REQUEST_NUMBER, L, ThrottleKind.REQUEST_HANDLER_USAGE_MS, L), false);
    assertThat(HBaseVersion.unsupported(q, "2.6.2-hadoop3")).hasValueSatisfying(m -> assertThat(m)
        .startsWith("ATOMIC_REQUEST_NUMBER, REQUEST_HANDLER_USAGE_MS need HBase 2.6.3 or later; this cluster runs "
            + "2.6.2-hadoop3"));
    assertThat(HBaseVersion.unsupported(q, "2.6.3")).isEmpty();
    assertThat(HBaseVersion.unsupported(q, "3.0.0-beta-2")).isEmpty();
    assertThat(HBaseVersion.unsupported(q, null)).as("unknown version: nothing refused on a guess").isEmpty();
    SubjectQuota classic = new SubjectQuota(Subject.user("u"), Map.of(ThrottleKind.READ_SIZE, L), false);
    assertThat(HBaseVersion.unsupported(classic, "2.4.17")).isEmpty();
    assertThat(ThrottleKind.READ_SIZE.since()).isNull();
    assertThat(ThrottleKind.ATOMIC_WRITE_SIZE.since()).isEqualTo(new HBaseVersion(2, 6, 3));
  }

  @Test
  void throttlesOnSystemTablesAreWrittenOnlyWhereHBaseEnforcesThem() {
    SubjectQuota backup = new SubjectQuota(Subject.table("backup:system"), Map.of(ThrottleKind.READ_SIZE, L), false);
    assertThat(HBaseVersion.unsupported(backup, "2.6.4")).hasValueSatisfying(m -> assertThat(m).isEqualTo(
        "throttles on the tables of the system namespace 'backup' are enforced from HBase 2.6.8, 2.7.0 and 3.0.1 "
            + "(HBASE-30348); this cluster runs 2.6.4, which stores them but never enforces them: nothing of this "
            + "resource is written until HBase is upgraded"));
    for (String v : new String[] {"2.5.12", "2.6.7", "3.0.0", "3.0.0-beta-2", "1.4.14"}) {
      assertThat(HBaseVersion.unsupported(backup, v)).as(v).isPresent();
    }
    for (String v : new String[] {"2.6.8", "2.6.10", "2.7.0", "2.7.1-hadoop3", "3.0.1", "3.1.0", "4.0.0"}) {
      assertThat(HBaseVersion.unsupported(backup, v)).as(v).isEmpty();
    }
    SubjectQuota ns = new SubjectQuota(new Subject("u", "hbase", null), Map.of(ThrottleKind.REQUEST_NUMBER, L), false);
    assertThat(HBaseVersion.unsupported(ns, "2.6.4")).hasValueSatisfying(m -> assertThat(m).contains("'hbase'"));
    assertThat(HBaseVersion.unsupported(ns, null)).as("unknown version: nothing refused on a guess").isEmpty();
    SubjectQuota lookalike = new SubjectQuota(Subject.namespace("hbase_tenant"), Map.of(ThrottleKind.REQUEST_NUMBER, L), false);
    assertThat(HBaseVersion.unsupported(lookalike, "2.6.4")).isEmpty();
  }
}
