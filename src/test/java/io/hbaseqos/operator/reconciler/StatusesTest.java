package io.hbaseqos.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class StatusesTest {
  static final ObjectMapper JSON = new ObjectMapper();

  static String diff(String old, String now) throws Exception {
    return Statuses.diff(JSON.readTree(old), JSON.readTree(now)).toString();
  }

  /** Applies a merge patch the way the API server does (RFC 7386), to check a patch really leads to the new status. */
  static JsonNode apply(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch;
    }
    var out = target != null && target.isObject() ? ((com.fasterxml.jackson.databind.node.ObjectNode) target.deepCopy())
        : JSON.createObjectNode();
    patch.fields().forEachRemaining(e -> {
      if (e.getValue().isNull()) {
        out.remove(e.getKey());
      } else {
        out.set(e.getKey(), apply(out.get(e.getKey()), e.getValue()));
      }
    });
    return out;
  }

  @Test
  void nothingChangedIsAnEmptyPatch() throws Exception {
    assertThat(diff("{\"a\":1,\"m\":{\"x\":1}}", "{\"a\":1,\"m\":{\"x\":1}}")).isEqualTo("{}");
  }

  @Test
  void aKeyThatLeavesANestedMapIsSentAsNull() throws Exception {
    String old = "{\"topology\":{\"perNode\":{\"\":2,\"a\":2},\"heap\":\"25g\"},\"n\":1}";
    String now = "{\"topology\":{\"perNode\":{\"a\":2,\"b\":2},\"heap\":\"25g\"},\"n\":1}";
    assertThat(diff(old, now)).isEqualTo("{\"topology\":{\"perNode\":{\"b\":2,\"\":null}}}");
    JsonNode patched = apply(JSON.readTree(old), Statuses.diff(JSON.readTree(old), JSON.readTree(now)));
    assertThat(patched).isEqualTo(JSON.readTree(now));
  }

  @Test
  void removedTopLevelFieldsAndArraysAreHandled() throws Exception {
    String old = "{\"a\":1,\"list\":[1,2],\"gone\":{\"x\":1}}";
    String now = "{\"a\":2,\"list\":[1]}";
    assertThat(diff(old, now)).isEqualTo("{\"a\":2,\"list\":[1],\"gone\":null}");
    assertThat(apply(JSON.readTree(old), Statuses.diff(JSON.readTree(old), JSON.readTree(now))))
        .isEqualTo(JSON.readTree(now));
  }
}
