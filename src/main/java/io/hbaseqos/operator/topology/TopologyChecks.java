package io.hbaseqos.operator.topology;

import io.hbaseqos.operator.api.MastersSpec;
import io.hbaseqos.operator.api.PodVolume;
import io.hbaseqos.operator.api.RegionServersSpec;
import io.hbaseqos.operator.api.TopologySpec;
import io.hbaseqos.operator.quota.Durations;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The schema's checks of spec.topology, repeated by the operator for objects stored without them
 * (an older CRD, a client that skipped validation), each naming its field. Pure, no I/O. Nothing
 * of a refused topology is written.
 */
public final class TopologyChecks {
  static final String F = "spec.topology";
  static final String RS = F + ".regionServers";
  private static final Pattern SITE_KEY = Pattern.compile("^[A-Za-z0-9_][A-Za-z0-9._-]{0,255}$");
  private static final Pattern XML_ILLEGAL = Pattern.compile("[\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F\\x{FFFE}\\x{FFFF}]");
  private static final Pattern JVM_OPTION = Pattern.compile("^-[^\\s\\p{Cc}\\p{Cf}]+$");
  private static final Pattern JVM_HEAP = Pattern.compile("^-(Xmx|Xms|XX:(MaxHeapSize|InitialHeapSize|MinHeapSize)=)");
  private static final Pattern JVM_FILE = Pattern.compile("^-XX:(Flags|VMOptionsFile)=");
  private static final Pattern MOUNT_PATH = Pattern.compile("^(/[^/\\s\\p{Cc}\\p{Cf}]+)+$");
  private static final Pattern DOT_SEGMENT = Pattern.compile("(^|/)[.][.]?(/|$)");
  private static final Pattern URI = Pattern.compile("^[a-z][a-z0-9+.-]*://[^\\s\\p{Cc}\\p{Cf}]+$");
  static final long MIN_MASTER_HEAP = 256 * Memory.MIB;

  private TopologyChecks() {}

  /** Every refusal of the topology, each as "field: reason". */
  public static List<String> refusals(TopologySpec t) {
    List<String> errors = new ArrayList<>();
    if (t == null) {
      return errors;
    }
    if (t.getRootDir() == null || !URI.matcher(t.getRootDir()).matches()) {
      errors.add(F + ".rootDir: must be a URI such as hdfs://namenode:8020/hbase, without spaces or control characters");
    }
    RegionServersSpec rs = t.getRegionServers();
    if (rs == null) {
      errors.add(RS + ": is required");
    } else {
      size(errors, RS + ".nodeReserve", rs.getNodeReserve(), 0);
      if (rs.getHeap() != null && !"auto".equals(rs.getHeap())) {
        size(errors, RS + ".heap", rs.getHeap(), 1);
      }
      errors.addAll(siteProperties(rs.getSiteProperties()));
      errors.addAll(jvmOptions(rs.getJvmOptions()));
      try {
        Duration grace = Durations.parse(rs.getGracefulShutdown(), Duration.ofSeconds(120));
        if (grace.compareTo(Duration.ofSeconds(1)) < 0 || grace.compareTo(Duration.ofHours(24)) > 0) {
          errors.add(RS + ".gracefulShutdown: must be from 1s to 24h");
        }
      } catch (IllegalArgumentException e) {
        errors.add(RS + ".gracefulShutdown: " + e.getMessage());
      }
    }
    MastersSpec m = t.getMasters();
    if (m != null && m.getHeap() != null && size(errors, F + ".masters.heap", m.getHeap(), 1)
        && Memory.parse(m.getHeap()) < MIN_MASTER_HEAP) {
      errors.add(F + ".masters.heap: at least 256m (a master does not start in less)");
    }
    List<PodVolume> volumes = t.getVolumes() == null ? List.of() : t.getVolumes();
    for (int i = 0; i < volumes.size(); i++) {
      try {
        for (String field : volumes.get(i).unknownFields(F + ".volumes[" + i + "]")) {
          errors.add(field + ": not a field of a Kubernetes volume");
        }
      } catch (RuntimeException e) {
        // a source the schema keeps as written, of the wrong shape (nfs: {readOnly: "yes"}, csi: "x")
        errors.add(F + ".volumes[" + i + "]: not a Kubernetes volume: " + io.hbaseqos.operator.quota.Subject
            .printable(String.valueOf(e.getMessage())).lines().findFirst().orElse(""));
      }
    }
    List<VolumeMount> mounts = t.getVolumeMounts() == null ? List.of() : t.getVolumeMounts();
    for (int i = 0; i < mounts.size(); i++) {
      String path = mounts.get(i).getMountPath();
      String field = F + ".volumeMounts[" + i + "].mountPath";
      if (path == null || !MOUNT_PATH.matcher(path).matches() || DOT_SEGMENT.matcher(path).find()) {
        errors.add(field + ": must be an absolute path without '//', '.' or '..' segments, a trailing '/', spaces "
            + "or control characters");
      } else if (path.equals("/etc") || path.equals("/etc/hbase") || path.startsWith("/etc/hbase/")) {
        errors.add(field + ": /etc/hbase is where the operator mounts hbase-site.xml");
      }
    }
    return errors;
  }

  /** Refusals of siteProperties: names that are not property names, reserved keys, values XML cannot hold. */
  public static List<String> siteProperties(Map<String, String> props) {
    List<String> errors = new ArrayList<>();
    for (String key : new TreeSet<>(props == null ? java.util.Set.of() : props.keySet())) {
      String field = RS + ".siteProperties[" + io.hbaseqos.operator.quota.Subject.printable(key) + "]";
      String value = props.get(key) == null ? "" : props.get(key);
      if (!SITE_KEY.matcher(key).matches()) {
        errors.add(field + ": not a Hadoop property name (letters, digits, '.', '_' and '-', at most 256)");
      } else if (TopologyPlanner.RESERVED_KEYS.containsKey(key)) {
        errors.add(field + ": set by " + TopologyPlanner.RESERVED_KEYS.get(key));
      } else if (key.startsWith(RegionServersSpec.RESERVED_SITE_PREFIX)) {
        errors.add(field + ": set by spec.quotas.defaultUserQuotas");
      }
      if (value.length() > 8192 || XML_ILLEGAL.matcher(value).find()) {
        errors.add(field + ": values are at most 8192 characters, without control characters other than tab and "
            + "line breaks");
      }
    }
    return errors;
  }

  /** Refusals of jvmOptions: one option per item, never the heap, never options read from a file. */
  public static List<String> jvmOptions(List<String> options) {
    List<String> errors = new ArrayList<>();
    List<String> opts = options == null ? List.of() : options;
    for (int i = 0; i < opts.size(); i++) {
      String o = opts.get(i) == null ? "" : opts.get(i);
      String field = RS + ".jvmOptions[" + i + "]";
      if (o.length() > 1024 || !JVM_OPTION.matcher(o).matches()) {
        errors.add(field + ": one option of at most 1024 characters, starting with '-', without spaces, control or "
            + "format characters");
      } else if (JVM_HEAP.matcher(o).find()) {
        errors.add(field + ": '" + o + "' sizes the heap; use " + RS + ".heap");
      } else if (JVM_FILE.matcher(o).find()) {
        errors.add(field + ": '" + o + "' reads options from a file the operator cannot check");
      }
    }
    return errors;
  }

  /** Whether {@code text} is a size of at least {@code min} bytes; adds the refusal when not. */
  private static boolean size(List<String> errors, String field, String text, long min) {
    try {
      if (Memory.parse(text) < min) {
        errors.add(field + ": must be above zero");
        return false;
      }
      return true;
    } catch (IllegalArgumentException e) {
      errors.add(field + ": " + e.getMessage());
      return false;
    }
  }
}
