package io.hbaseqos.operator.hbase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServerConfTest {
  private static final String DUMP = """
      {"properties":[{"key":"hbase.rootdir","value":"file:/tmp/x","isFinal":false,"resource":"hbase-site.xml"},
      {"key":"hbase.quota.refresh.period","value":"30000","isFinal":false,"resource":"hbase-site.xml"}]}""";

  /** One property read through {@link ServerConf#properties}, empty when the dump lacks it. */
  static java.util.Optional<String> property(String json, String key) throws IOException {
    return java.util.Optional.ofNullable(ServerConf.properties(json, java.util.Set.of(key)).get(key));
  }

  @Test
  void findsAProperty() throws IOException {
    assertThat(property(DUMP, "hbase.quota.refresh.period")).contains("30000");
    assertThat(property(DUMP, "hbase.rootdir")).contains("file:/tmp/x");
  }

  @Test
  void anAbsentPropertyIsEmpty() throws IOException {
    assertThat(property(DUMP, "hbase.quota.enabled")).isEmpty();
    assertThat(property("{\"properties\":[]}", "hbase.quota.enabled")).isEmpty();
  }

  @Test
  void somethingElseIsAnError() {
    assertThatThrownBy(() -> property("<configuration/>", "x")).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> property("{\"beans\":[]}", "x")).hasMessageContaining("properties");
  }

  @ParameterizedTest
  @CsvSource({"2.6.4, 43200000", "2.6.3, 43200000", "2.6.4-hadoop3, 43200000", "2.7.0, 43200000",
      "3.0.0-beta-1, 43200000", "2.6.2, 300000", "2.5.11, 300000", "2.6.0, 300000", "garbage, 300000"})
  void defaultRefreshPeriodFollowsTheVersion(String version, long ms) {
    assertThat(ServerConf.defaultRefreshPeriodMs(version)).isEqualTo(ms);
  }

  @Test
  void readsASetOfKeysInOnePass() throws Exception {
    String json = "{\"properties\":[{\"key\":\"a\",\"value\":\"1\"},{\"key\":\"b\",\"value\":null},"
        + "{\"key\":\"c\",\"value\":\"3\"}]}";
    assertThat(ServerConf.properties(json, java.util.Set.of("a", "b", "d"))).containsExactly(java.util.Map.entry("a", "1"));
    assertThat(ServerConf.QUOTA_KEYS).contains("hbase.quota.refresh.period", "hbase.quota.rate.limiter",
        "hbase.quota.default.user.machine.request.num").hasSize(17);
  }
}
