package io.hbaseqos.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.List;

/**
 * The RegionServers and masters the operator runs for this cluster (StatefulSets, ConfigMap,
 * headless Services, PodDisruptionBudgets). Absent: the cluster runs elsewhere and the operator
 * only manages its quotas.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.volumeMounts) || self.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name))",
    message = "every volumeMount must name one of volumes")
@ValidationRule(value = "!has(self.volumes) || self.volumes.all(v, self.volumes.exists_one(w, w.name == v.name))",
    message = "volume names must be unique")
public class TopologySpec {
  /** An absolute path of non-empty segments without whitespace, control or format characters (RE2 in CEL). */
  static final String MOUNT_PATH = "^(/[^/\\\\s\\\\p{Cc}\\\\p{Cf}]+)+$";
  /** A '.' or '..' segment. */
  static final String DOT_SEGMENT = "(^|/)[.][.]?(/|$)";
  @Required
  @ValidationRule(value = "self.matches('^[a-z0-9][a-z0-9._/:@-]*$')",
      message = "image must be an image reference such as registry.example.com/hbase:2.6.4")
  @JsonPropertyDescription("Container image with HBase (its bin/hbase is started with the generated hbase-site.xml).")
  private String image;

  @Required
  @ValidationRule(value = "self.matches('^[a-z][a-z0-9+.-]*://[^\\\\s\\\\p{Cc}\\\\p{Cf}]+$')",
      message = "rootDir must be a URI such as hdfs://namenode:8020/hbase, without spaces or control characters")
  @JsonPropertyDescription("hbase.rootdir, e.g. hdfs://namenode:8020/hbase.")
  private String rootDir;

  @Default("false")
  @JsonPropertyDescription("Stop changing the Kubernetes objects of this cluster (quotas are still managed).")
  private Boolean paused = Boolean.FALSE;

  @Required
  @JsonPropertyDescription("RegionServers: the node pool, how many per node, heap and HBase settings.")
  private RegionServersSpec regionServers;

  @JsonPropertyDescription("HBase masters.")
  private MastersSpec masters = new MastersSpec();

  @Size(max = 16)
  @JsonPropertyDescription("Volumes of the master and RegionServer pods, in the Kubernetes Volume format: e.g. a "
      + "configMap with core-site.xml and hdfs-site.xml, a secret with a keytab, a hostPath or a persistentVolumeClaim.")
  @SchemaFrom(type = PodVolume.Schema[].class)
  private List<PodVolume> volumes = new ArrayList<>();

  @Size(max = 16)
  @SchemaFrom(type = MountSchema[].class)
  @JsonPropertyDescription("Where volumes are mounted in the master and RegionServer containers.")
  private List<VolumeMount> volumeMounts = new ArrayList<>();

  /** The CRD schema of a volume mount: Kubernetes' VolumeMount, its path checked. */
  static final class MountSchema {
    @Required
    @Size(max = 63)
    @JsonPropertyDescription("The volume's name (one of volumes).")
    public String name;

    @Required
    @Size(max = 1024)
    @ValidationRule(value = "self.matches('" + MOUNT_PATH + "') && !self.matches('" + DOT_SEGMENT + "')",
        message = "mountPath must be an absolute path without '//', '.' or '..' segments, a trailing '/', spaces or "
            + "control characters, such as /etc/hadoop")
    @ValidationRule(value = "!(self in ['/', '/etc', '/etc/hbase']) && !self.startsWith('/etc/hbase/')",
        message = "/etc/hbase is where the operator mounts hbase-site.xml: a volume may not be mounted on /, /etc, "
            + "/etc/hbase or under it")
    @JsonPropertyDescription("Where the volume is mounted in the containers.")
    public String mountPath;

    @Size(max = 1024)
    @JsonPropertyDescription("A path within the volume to mount instead of its root.")
    public String subPath;

    @Size(max = 1024)
    @JsonPropertyDescription("Like subPath, with $(VAR) references to the container's environment expanded.")
    public String subPathExpr;

    @JsonPropertyDescription("Mounted read-only.")
    public Boolean readOnly;

    @JsonPropertyDescription("None, HostToContainer or Bidirectional.")
    public String mountPropagation;

    @JsonPropertyDescription("Disabled, IfPossible or Enabled.")
    public String recursiveReadOnly;
  }

  @io.fabric8.generator.annotation.Min(1)
  @io.fabric8.generator.annotation.Max(2147483647)
  @JsonPropertyDescription("User id the HBase containers run as (also their group and fsGroup). Absent: the image's "
      + "user, which must then be numeric and not root: the pods run as non-root without privilege escalation or "
      + "capabilities, under the restricted Pod Security Standard.")
  private Long runAsUser;

  public Long getRunAsUser() {
    return runAsUser;
  }

  public void setRunAsUser(Long runAsUser) {
    this.runAsUser = runAsUser;
  }

  @Default("true")
  @JsonPropertyDescription("PodDisruptionBudgets that allow at most one RegionServer and one master down at a time.")
  private Boolean podDisruptionBudget = Boolean.TRUE;

  public String getImage() {
    return image;
  }

  public void setImage(String image) {
    this.image = image;
  }

  public String getRootDir() {
    return rootDir;
  }

  public void setRootDir(String rootDir) {
    this.rootDir = rootDir;
  }

  public Boolean getPaused() {
    return paused;
  }

  public void setPaused(Boolean paused) {
    this.paused = paused;
  }

  public RegionServersSpec getRegionServers() {
    return regionServers;
  }

  public void setRegionServers(RegionServersSpec regionServers) {
    this.regionServers = regionServers;
  }

  public MastersSpec getMasters() {
    return masters;
  }

  public void setMasters(MastersSpec masters) {
    this.masters = masters;
  }

  public List<PodVolume> getVolumes() {
    return volumes;
  }

  public void setVolumes(List<PodVolume> volumes) {
    this.volumes = volumes;
  }

  public List<VolumeMount> getVolumeMounts() {
    return volumeMounts;
  }

  public void setVolumeMounts(List<VolumeMount> volumeMounts) {
    this.volumeMounts = volumeMounts;
  }

  public Boolean getPodDisruptionBudget() {
    return podDisruptionBudget;
  }

  public void setPodDisruptionBudget(Boolean podDisruptionBudget) {
    this.podDisruptionBudget = podDisruptionBudget;
  }
}
