package io.hbaseqos.operator.quota;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An HBase release as {@code major.minor.patch}, read from what a cluster reports
 * ({@code 2.6.4}, {@code 2.6.4-hadoop3}, {@code 3.0.0-beta-2}, {@code 2.6.8-SNAPSHOT}); anything
 * after the numbers is ignored.
 */
public record HBaseVersion(int major, int minor, int patch) implements Comparable<HBaseVersion> {

  private static final Pattern NUMBERS = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

  public static Optional<HBaseVersion> parse(String reported) {
    if (reported == null) {
      return Optional.empty();
    }
    Matcher m = NUMBERS.matcher(reported.trim());
    if (!m.find()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new HBaseVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
          m.group(3) == null ? 0 : Integer.parseInt(m.group(3))));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether this release throttles requests to the tables of the system namespaces ({@code hbase},
   * {@code backup}), except those the quota machinery reads: HBASE-30348, in 2.6.8, 2.7.0 and 3.0.1.
   */
  public boolean enforcesSystemTableThrottles() {
    if (major != 2 && major != 3) {
      return major > 3;
    }
    if (major == 3) {
      return minor > 0 || patch >= 1;
    }
    return minor >= 7 || (minor == 6 && patch >= 8);
  }

  /**
   * Whether a release, as a cluster reports it, counts per user and table the requests it refuses with
   * a throttling exception ({@code RpcThrottlingException_Type_*_User_*}, 2.6.4+): before, nothing says
   * how many of a tenant's requests were refused. False when the version is not known.
   */
  public static boolean countsRefusals(String reported) {
    return parse(reported).map(v -> v.atLeast(new HBaseVersion(2, 6, 4))).orElse(false);
  }

  public boolean atLeast(HBaseVersion other) {
    return compareTo(other) >= 0;
  }

  @Override
  public int compareTo(HBaseVersion o) {
    return major != o.major ? Integer.compare(major, o.major)
        : minor != o.minor ? Integer.compare(minor, o.minor) : Integer.compare(patch, o.patch);
  }

  @Override
  public String toString() {
    return major + "." + minor + "." + patch;
  }

  /**
   * Why the cluster cannot hold these settings, or empty when it can (or its version is unknown:
   * nothing is refused on a guess). A server that does not know a throttle type drops it from the
   * settings it stores, so the operator would find it missing and write it again on every resync.
   */
  public static Optional<String> unsupported(SubjectQuota desired, String reportedVersion) {
    Optional<HBaseVersion> v = parse(reportedVersion);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    String system = desired.subject().systemNamespace();
    if (system != null && !desired.throttles().isEmpty() && !v.get().enforcesSystemTableThrottles()) {
      return Optional.of("throttles on the tables of the system namespace '" + system + "' are enforced from HBase "
          + "2.6.8, 2.7.0 and 3.0.1 (HBASE-30348); this cluster runs " + reportedVersion + ", which stores them but "
          + "never enforces them: nothing of this resource is written until HBase is upgraded");
    }
    List<ThrottleKind> missing = desired.throttles().keySet().stream()
        .filter(k -> k.since() != null && !v.get().atLeast(k.since())).toList();
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(String.join(", ", missing.stream().map(Enum::name).toList())
        + (missing.size() == 1 ? " needs" : " need") + " HBase " + missing.get(0).since() + " or later; this cluster runs "
        + reportedVersion + ", which would drop " + (missing.size() == 1 ? "it" : "them")
        + ": nothing of this resource is written until HBase is upgraded or the type is removed");
  }
}
