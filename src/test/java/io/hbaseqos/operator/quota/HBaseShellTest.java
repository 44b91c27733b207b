package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HBaseShellTest {
  @Test
  void plainNamesAreSingleQuotedAndAnythingElseIsSpelledOut() {
    assertThat(HBaseShell.deleteQuotaCell("u.svc_a-1.x", "q:s")).isEqualTo("deleteall 'hbase:quota', 'u.svc_a-1.x', 'q:s'");
    // a name read from HBase may hold anything: no quote ends the string, no #{} interpolates, no ; or newline
    assertThat(HBaseShell.quote("u.a'; drop_all #{x}\n\\")).isEqualTo(
        "\"u.a\\u{27}\\u{3b}\\u{20}drop_all\\u{20}\\u{23}\\u{7b}x\\u{7d}\\u{a}\\u{5c}\"");
    assertThat(HBaseShell.quote("élodie")).isEqualTo("\"\\u{e9}lodie\"");
  }
}
