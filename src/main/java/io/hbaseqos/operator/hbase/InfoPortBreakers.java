package io.hbaseqos.operator.hbase;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * A circuit breaker per RegionServer info port, for the metric reads of one cluster. A port that
 * did not answer in time (a hung process, a black-holed address) is not asked again on the read
 * path: every read fails for it at once, naming why, instead of waiting out its timeout again
 * while reconciles queue behind the read. Off the read path, one probe at a time asks it again,
 * first after {@link #FIRST} and then after twice as long each time it stays silent, up to
 * {@link #LONGEST}; the first answer closes the breaker. One that goes silent again within
 * {@link #MEMORY} of closing starts from twice its last wait, not from the first: a port whose probe
 * answers but whose metrics do not is asked less and less often, not every few seconds. A port that
 * answers, even with an error, or refuses the connection at once, costs no waiting and opens nothing.
 */
final class InfoPortBreakers {
  static final Duration FIRST = Duration.ofSeconds(5);
  static final Duration LONGEST = Duration.ofSeconds(30);
  /** How long a closed breaker remembers its last wait. */
  static final Duration MEMORY = Duration.ofMinutes(2);

  private record Open(String problem, Instant probeAt, Duration cooldown, boolean probing) {}

  private final Clock clock;
  private final Map<String, Open> open = new HashMap<>();
  /** Servers whose breaker closed: when, and the wait it had reached. */
  private final Map<String, Map.Entry<Instant, Duration>> closed = new HashMap<>();

  InfoPortBreakers(Clock clock) {
    this.clock = clock;
  }

  /** Why {@code server} is not asked now (null: it may be). */
  synchronized String refusal(String server) {
    Open o = open.get(server);
    return o == null ? null : o.problem() + "; not asked again until its info port answers (circuit open)";
  }

  /** Whether a probe of {@code server} is due now; if so, it is marked as under way. */
  synchronized boolean probeDue(String server) {
    Open o = open.get(server);
    if (o == null || o.probing() || clock.instant().isBefore(o.probeAt())) {
      return false;
    }
    open.put(server, new Open(o.problem(), o.probeAt(), o.cooldown(), true));
    return true;
  }

  /** The server did not answer in time: opened, or kept open for twice as long as before. */
  synchronized void silent(String server, String problem) {
    Open o = open.get(server);
    if (o == null && problem == null) {
      return; // a probe of a server no longer live
    }
    Map.Entry<Instant, Duration> last = closed.remove(server);
    Duration before = o != null ? o.cooldown()
        : last != null && !clock.instant().isAfter(last.getKey().plus(MEMORY)) ? last.getValue() : null;
    Duration next = before == null ? FIRST : before.multipliedBy(2);
    next = next.compareTo(LONGEST) > 0 ? LONGEST : next;
    // the problem that opened it stays: the words a loop reports do not change with every probe
    open.put(server, new Open(o == null ? problem : o.problem(), clock.instant().plus(next), next, false));
  }

  /** The server answered: closed. */
  synchronized void answered(String server) {
    Open o = open.remove(server);
    if (o != null) {
      closed.put(server, Map.entry(clock.instant(), o.cooldown()));
    }
  }

  /** A probe ended without an answer or an error that tells (it failed to start, or broke): probed again later. */
  synchronized void probeEnded(String server) {
    Open o = open.get(server);
    if (o != null && o.probing()) {
      open.put(server, new Open(o.problem(), clock.instant().plus(o.cooldown()), o.cooldown(), false));
    }
  }

  synchronized boolean isOpen(String server) {
    return open.containsKey(server);
  }

  /** Forgets servers that are no longer live. */
  synchronized void retain(java.util.Set<String> servers) {
    open.keySet().retainAll(servers);
    closed.keySet().retainAll(servers);
  }
}
