package io.hbaseqos.operator.calibration;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Turns cumulative per-RegionServer counters into one period's {@link Observation}: the tenant's
 * successful ops/s summed over servers and the share of its requests that were throttled. Pure.
 *
 * <p>Counters are per server start and per-user sources can be evicted, so they reset: a server
 * whose counters went down, that is new, or that vanished makes the period unusable (the caller
 * holds the limit) and its baseline restarts.
 */
public final class RateWindow {
  private Map<String, ServerCounters> base = Map.of();
  private Instant at;

  /** What a period measured, or why it could not. */
  public record Result(Observation observation, String problem) {
    static final String FIRST = "first measurement: a rate needs two";

    public boolean usable() {
      return problem == null;
    }

    /** Only the baseline was taken (the window had no earlier reading): not a failure, measure again. */
    public boolean baseline() {
      return FIRST.equals(problem);
    }
  }

  public Result next(CounterReading reading) {
    Instant now = reading.at();
    Map<String, ServerCounters> counters = reading.servers();
    Map<String, ServerCounters> prev = base;
    Instant from = at;
    base = new HashMap<>(counters);
    at = now;
    if (from == null) {
      return new Result(Observation.missing(), Result.FIRST);
    }
    double seconds = Duration.between(from, now).toMillis() / 1000.0;
    if (seconds <= 0) {
      return new Result(Observation.missing(), "no time passed between measurements");
    }
    if (counters.isEmpty()) {
      return new Result(Observation.missing(), "no RegionServer reported metrics");
    }
    long succeeded = 0;
    long throttled = 0;
    for (var e : counters.entrySet()) {
      ServerCounters p = prev.get(e.getKey());
      ServerCounters c = e.getValue();
      if (p == null) {
        return new Result(Observation.missing(), "RegionServer " + e.getKey() + " is new since the last measurement");
      }
      if (c.ops() < p.ops() || c.throttled() < p.throttled() || c.throttledCountedAsOps() < p.throttledCountedAsOps()
          || c.gets() < p.gets()) {
        return new Result(Observation.missing(), "counters of RegionServer " + e.getKey()
            + " went down (server restart or per-user metrics evicted)");
      }
      // the refused requests HBase also recorded as operations come out: at most as many as the Gets it recorded
      succeeded += ServerCounters.succeeded(c.ops() - p.ops(), c.throttledCountedAsOps() - p.throttledCountedAsOps(),
          c.gets() - p.gets());
      throttled += c.throttled() - p.throttled();
    }
    for (String gone : prev.keySet()) {
      if (!counters.containsKey(gone)) {
        return new Result(Observation.missing(), "RegionServer " + gone + " stopped reporting");
      }
    }
    double attempted = succeeded + throttled;
    double share = attempted == 0 ? 0 : throttled / attempted;
    return new Result(new Observation(succeeded / seconds, share), null);
  }
}
