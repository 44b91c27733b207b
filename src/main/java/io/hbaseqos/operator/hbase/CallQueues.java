package io.hbaseqos.operator.hbase;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every live RegionServer's call queues at one moment: the calls waiting in them and the calls ever
 * taken from them. Neither is a histogram, so no reader of the server's metrics (the operator's own
 * or a monitoring agent's) takes anything from the next: the mean wait of a call over a period
 * follows from two such readings by Little's law. Pure.
 *
 * @param at when they were read
 * @param servers per server name its queues, or why they could not be read
 */
public record CallQueues(Instant at, Map<String, Server> servers) {
  /**
   * The queues every call waits in: the general one (whose gauge already counts the read, write and
   * scan queues when {@code hbase.ipc.server.callqueue.read.ratio} splits it: HBase sums every queue
   * of its executor), and the priority, replication, meta and bulk-load queues, since the count of
   * calls taken covers theirs too. A queue a version does not have reads as empty. All seen on 2.6.4.
   */
  private static final String[] QUEUED = {"region_server_num_calls_in_general_queue",
      "region_server_num_calls_in_priority_queue", "region_server_num_calls_in_replication_queue",
      "region_server_num_calls_in_meta_priority_queue", "region_server_num_calls_in_bulk_load_queue"};
  /** How many calls ever left the queues to a handler (the queue-time histogram's count, cumulative). */
  private static final String TAKEN = "region_server_queue_call_time_num_ops";

  /**
   * One server's queues.
   *
   * @param queued calls waiting in them when read
   * @param taken calls ever taken from them (a server that restarted counts from 0 again)
   * @param problem why they could not be read (null: read)
   */
  public record Server(long queued, long taken, String problem) {
    static Server unread(String problem) {
      return new Server(0, 0, problem);
    }

    static Server of(Map<String, Double> values) {
      if (!values.containsKey(TAKEN)) {
        return unread("reports no call queue metrics (" + TAKEN + ")");
      }
      long queued = 0;
      for (String q : QUEUED) {
        queued += Math.round(values.getOrDefault(q, 0.0));
      }
      return new Server(queued, Math.round(values.get(TAKEN)), null);
    }
  }

  /**
   * The mean wait of a call in one server's queues between two readings, in milliseconds, by
   * Little's law: the calls waiting (taken as the mean over the period from the reading at its end)
   * over the rate of calls taken from the queues.
   *
   * @param before the server's reading at the period's start
   * @param now its reading at the end
   * @param seconds the time between them
   * @return the wait, 0 when no call came and none waits, NaN when the counter went back (a restart)
   *     or the readings are not in order; a server that took no call while calls wait has waited the
   *     whole period
   */
  public static double meanWaitMillis(Server before, Server now, double seconds) {
    long calls = now.taken() - before.taken();
    if (calls < 0 || !(seconds > 0)) {
      return Double.NaN;
    }
    if (calls == 0) {
      return now.queued() == 0 ? 0 : seconds * 1000;
    }
    return now.queued() / (calls / seconds) * 1000;
  }

  /**
   * Per server read both times, the mean wait of a call since {@code before} (see
   * {@link #meanWaitMillis}); servers unread either time, or whose counter went back, are left out.
   */
  public Map<String, Double> meanWaitsSince(CallQueues before) {
    Map<String, Double> out = new LinkedHashMap<>();
    double seconds = Duration.between(before.at(), at).toNanos() / 1e9;
    servers.forEach((name, now) -> {
      Server then = before.servers().get(name);
      if (now.problem() == null && then != null && then.problem() == null) {
        double w = meanWaitMillis(then, now, seconds);
        if (!Double.isNaN(w)) {
          out.put(name, w);
        }
      }
    });
    return out;
  }

  /** The first server that could not be read, with why (null: all were). */
  public String problem() {
    return servers.entrySet().stream().filter(e -> e.getValue().problem() != null)
        .map(e -> "RegionServer " + e.getKey() + ": " + e.getValue().problem()).findFirst().orElse(null);
  }
}
