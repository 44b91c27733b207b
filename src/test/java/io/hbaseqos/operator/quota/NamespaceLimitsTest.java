package io.hbaseqos.operator.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class NamespaceLimitsTest {

  @Test
  void readsTheDescriptorKeys() {
    assertThat(NamespaceLimits.of(Map.of())).isEqualTo(NamespaceLimits.NONE);
    assertThat(NamespaceLimits.of(Map.of(NamespaceLimits.MAX_TABLES, "5", NamespaceLimits.MAX_REGIONS, " 100 ")))
        .isEqualTo(new NamespaceLimits(5L, 100L));
    assertThat(NamespaceLimits.of(Map.of(NamespaceLimits.MAX_REGIONS, "7"))).isEqualTo(new NamespaceLimits(null, 7L));
  }

  @Test
  void aValueHBaseWouldRefuseMatchesNoDeclaration() {
    for (String bad : new String[] {"0", "-4", "ten", "1.5", "99999999999999999999"}) {
      NamespaceLimits read = NamespaceLimits.of(Map.of(NamespaceLimits.MAX_TABLES, bad));
      assertThat(read.maxTables()).as(bad).isEqualTo(NamespaceLimits.INVALID);
      assertThat(read).as(bad).isNotEqualTo(new NamespaceLimits(1L, null)).isNotEqualTo(NamespaceLimits.NONE);
      assertThat(read.describe()).isEqualTo("maxTables=invalid");
    }
  }

  @Test
  void applyingSetsAndRemovesOnlyItsOwnKeys() {
    Map<String, String> config = Map.of("team", "payments", NamespaceLimits.MAX_REGIONS, "10",
        NamespaceLimits.MAX_TABLES, "3");
    assertThat(new NamespaceLimits(4L, null).applyTo(config)).containsOnly(Map.entry("team", "payments"),
        Map.entry(NamespaceLimits.MAX_TABLES, "4"));
    assertThat(NamespaceLimits.NONE.applyTo(config)).containsOnly(Map.entry("team", "payments"));
    assertThat(NamespaceLimits.of(new NamespaceLimits(2L, 9L).applyTo(Map.of()))).isEqualTo(new NamespaceLimits(2L, 9L));
  }

  @Test
  void describesLimitsAndUsage() {
    assertThat(NamespaceLimits.NONE.describe()).isEqualTo("no limits");
    assertThat(new NamespaceLimits(5L, 100L).describe()).isEqualTo("maxTables=5, maxRegions=100");
    assertThat(new NamespaceLimits(null, 100L).describe()).isEqualTo("maxRegions=100");
    assertThat(new NamespaceState("ns", new NamespaceLimits(5L, 100L), 3, 12).describeUsage())
        .isEqualTo("3 of 5 tables, 12 of 100 regions");
    assertThat(new NamespaceState("ns", new NamespaceLimits(1L, null), 0, 0).describeUsage())
        .isEqualTo("0 of 1 table, 0 regions");
    assertThat(new NamespaceState("ns", NamespaceLimits.NONE, 1, 1).describeUsage()).isEqualTo("1 table, 1 region");
  }
}
