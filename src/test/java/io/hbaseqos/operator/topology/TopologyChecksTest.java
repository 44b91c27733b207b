package io.hbaseqos.operator.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.hbaseqos.operator.api.MastersSpec;
import io.hbaseqos.operator.api.PodVolume;
import io.hbaseqos.operator.api.RegionServersSpec;
import io.hbaseqos.operator.api.TopologySpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The operator's own checks of spec.topology, for objects the schema did not check: each names its field. */
class TopologyChecksTest {

  static TopologySpec topology() {
    TopologySpec t = new TopologySpec();
    t.setImage("apache/hbase:2.6.4");
    t.setRootDir("hdfs://nn:8020/hbase");
    t.setRegionServers(new RegionServersSpec());
    return t;
  }

  @Test
  void theDefaultsAndUsualSettingsPass() {
    TopologySpec t = topology();
    t.getRegionServers().setJvmOptions(List.of("-XX:+UseG1GC", "-javaagent:/opt/jmx.jar=7071:/etc/jmx.yaml", "-Xss1m"));
    t.getRegionServers().setSiteProperties(Map.of("hbase.hregion.max.filesize", "10737418240",
        "hbase.coprocessor.region.classes", "a.B,\nc.D"));
    t.getRegionServers().setGracefulShutdown("1500ms");
    t.setVolumes(List.of(new PodVolume("hadoop-conf", Map.of("configMap", Map.of("name", "hadoop-conf",
        "items", List.of(Map.of("key", "hdfs-site.xml", "path", "hdfs-site.xml")))))));
    t.setVolumeMounts(List.of(mount("/etc/hadoop"), mount("/var/lib/..data")));
    assertThat(TopologyChecks.refusals(t)).isEmpty();
  }

  @Test
  void siteKeysThatAreNotPropertyNamesReservedKeysAndIllegalValuesAreRefused() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put(" hbase.rootdir", "file:///x");
    props.put("hbase.rootdir", "file:///x");
    props.put("hbase.quota.default.user.machine.read.num", "5");
    props.put("a.b", "x\u0001y");
    props.put("c.d", "x\uFFFFy");
    props.put("e.f", "x".repeat(8193));
    assertThat(TopologyChecks.siteProperties(props)).containsExactly(
        "spec.topology.regionServers.siteProperties[ hbase.rootdir]: not a Hadoop property name (letters, digits, "
            + "'.', '_' and '-', at most 256)",
        "spec.topology.regionServers.siteProperties[a.b]: values are at most 8192 characters, without control "
            + "characters other than tab and line breaks",
        "spec.topology.regionServers.siteProperties[c.d]: values are at most 8192 characters, without control "
            + "characters other than tab and line breaks",
        "spec.topology.regionServers.siteProperties[e.f]: values are at most 8192 characters, without control "
            + "characters other than tab and line breaks",
        "spec.topology.regionServers.siteProperties[hbase.quota.default.user.machine.read.num]: set by "
            + "spec.quotas.defaultUserQuotas",
        "spec.topology.regionServers.siteProperties[hbase.rootdir]: set by spec.topology.rootDir");
  }

  @Test
  void jvmOptionsThatHideTheHeapOrReadAFileAreRefused() {
    List<String> opts = List.of(" -Xmx64g", "-Dx=1 -Xmx64g", "Xmx64g", "-XX:InitialHeapSize=64g", "-Xms1g",
        "-XX:Flags=/tmp/f", "-D" + "a".repeat(1023), "-XX:+UseG1GC");
    List<String> errors = TopologyChecks.jvmOptions(opts);
    assertThat(errors).hasSize(7);
    assertThat(errors.get(0)).startsWith("spec.topology.regionServers.jvmOptions[0]: one option");
    assertThat(errors.get(1)).startsWith("spec.topology.regionServers.jvmOptions[1]: one option");
    assertThat(errors.get(2)).startsWith("spec.topology.regionServers.jvmOptions[2]: one option");
    assertThat(errors.get(3)).isEqualTo("spec.topology.regionServers.jvmOptions[3]: '-XX:InitialHeapSize=64g' sizes "
        + "the heap; use spec.topology.regionServers.heap");
    assertThat(errors.get(4)).startsWith("spec.topology.regionServers.jvmOptions[4]: '-Xms1g' sizes the heap");
    assertThat(errors.get(5)).isEqualTo("spec.topology.regionServers.jvmOptions[5]: '-XX:Flags=/tmp/f' reads options "
        + "from a file the operator cannot check");
    assertThat(errors.get(6)).startsWith("spec.topology.regionServers.jvmOptions[6]: one option of at most 1024");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "//etc/hbase", "/etc/./hbase", "/etc/x/../hbase", "etc/hbase", "/etc/hbase/",
      "/etc/hbase\n", "/etc/hb ase", ""})
  void mountPathsThatAreNotCleanAbsolutePathsAreRefused(String path) {
    TopologySpec t = topology();
    t.setVolumeMounts(List.of(mount(path)));
    assertThat(TopologyChecks.refusals(t)).singleElement().asString()
        .startsWith("spec.topology.volumeMounts[0].mountPath: must be an absolute path without '//'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/etc", "/etc/hbase", "/etc/hbase/conf"})
  void mountPathsOverTheOperatorsConfigurationAreRefused(String path) {
    TopologySpec t = topology();
    t.setVolumeMounts(List.of(mount(path)));
    assertThat(TopologyChecks.refusals(t)).containsExactly(
        "spec.topology.volumeMounts[0].mountPath: /etc/hbase is where the operator mounts hbase-site.xml");
  }

  @Test
  void sizesAndDurationsThatOverflowOrRoundToZeroAreRefused() {
    TopologySpec t = topology();
    t.setRootDir("hdfs://nn:8020/hbase\u0007");
    t.getRegionServers().setHeap("99999999999999999999g");
    t.getRegionServers().setNodeReserve("99999999999Gi");
    t.getRegionServers().setGracefulShutdown("500ms");
    MastersSpec m = new MastersSpec();
    m.setHeap("1m");
    t.setMasters(m);
    assertThat(TopologyChecks.refusals(t)).containsExactly(
        "spec.topology.rootDir: must be a URI such as hdfs://namenode:8020/hbase, without spaces or control characters",
        "spec.topology.regionServers.nodeReserve: '99999999999Gi' is too large: at most seven digits",
        "spec.topology.regionServers.heap: '99999999999999999999g' is too large: at most seven digits",
        "spec.topology.regionServers.gracefulShutdown: must be from 1s to 24h",
        "spec.topology.masters.heap: at least 256m (a master does not start in less)");
    t = topology();
    t.getRegionServers().setGracefulShutdown("99999999999999999999s");
    assertThat(TopologyChecks.refusals(t)).containsExactly(
        "spec.topology.regionServers.gracefulShutdown: '99999999999999999999s' is too long a duration");
  }

  @Test
  void aFieldAVolumeDoesNotHaveIsRefusedWhereverItIs() {
    TopologySpec t = topology();
    t.setVolumes(List.of(
        new PodVolume("a", Map.of("configMap", Map.of("name", "x", "items", List.of(Map.of("key", "k", "paht", "p"))))),
        new PodVolume("b", Map.of("secret", Map.of("secretName", "s", "defaultMod", 256))),
        new PodVolume("c", Map.of("configmap", Map.of("name", "x"))),
        new PodVolume("d", Map.of("nfs", Map.of("server", "n", "path", "/", "readonly", true)))));
    t.setVolumeMounts(List.of(mount("/etc/hadoop")));
    assertThat(TopologyChecks.refusals(t)).containsExactly(
        "spec.topology.volumes[0].configMap.items[0].paht: not a field of a Kubernetes volume",
        "spec.topology.volumes[1].secret.defaultMod: not a field of a Kubernetes volume",
        "spec.topology.volumes[2].configmap: not a field of a Kubernetes volume",
        "spec.topology.volumes[3].nfs.readonly: not a field of a Kubernetes volume");
  }

  @Test
  void aSourceOfTheWrongShapeIsRefusedNotThrown() {
    TopologySpec t = topology();
    t.setVolumes(List.of(new PodVolume("a", Map.of("csi", "x")),
        new PodVolume("b", Map.of("nfs", Map.of("server", "n", "path", "/", "readOnly", List.of(1))))));
    List<String> errors = TopologyChecks.refusals(t);
    assertThat(errors).hasSize(2);
    assertThat(errors.get(0)).startsWith("spec.topology.volumes[0]: not a Kubernetes volume: ");
    assertThat(errors.get(1)).startsWith("spec.topology.volumes[1]: not a Kubernetes volume: ");
  }

  @Test
  void theSchemasReservedKeysAreThePlanners() {
    String list = RegionServersSpec.RESERVED_SITE_KEYS;
    Set<String> schema = new TreeSet<>(List.of(list.substring(2, list.length() - 2).split("', '")));
    Set<String> planner = new TreeSet<>();
    for (String k : TopologyPlanner.RESERVED_KEYS.keySet()) {
      if (!k.startsWith(RegionServersSpec.RESERVED_SITE_PREFIX)) {
        planner.add(k);
      }
    }
    assertThat(schema).isEqualTo(planner);
    assertThat(TopologyPlanner.RESERVED_KEYS.keySet()).anyMatch(k -> k.startsWith(RegionServersSpec.RESERVED_SITE_PREFIX));
  }

  static VolumeMount mount(String path) {
    return new VolumeMountBuilder().withName("hadoop-conf").withMountPath(path).build();
  }
}
