package io.hbaseqos.operator.hbase;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/** The requests an operator sent to RegionServer info servers, by path: one instance, shared by every cluster's reader. */
public final class InfoServerRequests {
  /** The info-server paths the operator reads, each counted apart. */
  public static final List<String> PATHS = List.of("/prometheus", "/jmx", "/conf");
  private final Map<String, LongAdder> requests = PATHS.stream()
      .collect(Collectors.toUnmodifiableMap(p -> p, p -> new LongAdder()));

  void count(String path) {
    LongAdder n = requests.get(path);
    if (n != null) {
      n.increment();
    }
  }

  /** The requests sent so far to {@code path} (one of {@link #PATHS}). */
  public long requests(String path) {
    LongAdder n = requests.get(path);
    return n == null ? 0 : n.sum();
  }
}
