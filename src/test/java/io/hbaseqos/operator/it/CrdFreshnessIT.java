package io.hbaseqos.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.hbaseqos.operator.support.Paths;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The committed CRDs in crds/ (and the Helm chart's crds/) are exactly what the build generates from the API classes
 * (target/kubernetes, written by the Quarkus build in the package phase). Regenerate with
 * {@code ./mvnw package -DskipTests -Pupdate-crds}.
 */
class CrdFreshnessIT {

  @ParameterizedTest
  @ValueSource(strings = {"hbaseclusters.hbaseqos.io", "tenantquotas.hbaseqos.io"})
  void committedCrdMatchesTheGeneratedOne(String name) throws Exception {
    Path generated = Paths.projectDir().resolve("target/kubernetes/" + name + "-v1.yml");
    Path committed = Paths.projectDir().resolve("crds/" + name + ".yaml");
    assertThat(generated).exists();
    assertThat(Files.readString(committed))
        .as("crds/%s.yaml is stale: run ./mvnw package -DskipTests -Pupdate-crds and commit it", name)
        .isEqualTo(Files.readString(generated));
    Path chart = Paths.projectDir().resolve("helm/hbase-qos-operator/crds/" + name + ".yaml");
    assertThat(Files.readString(chart))
        .as("the Helm chart's copy of %s is stale: run ./mvnw package -DskipTests -Pupdate-crds and commit it", name)
        .isEqualTo(Files.readString(generated));
  }
}
