package io.hbaseqos.operator.app;

import io.hbaseqos.operator.cluster.WriteFence;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Only the holder of the Lease writes to HBase. A write is allowed while this replica leads, the
 * Lease as last read names it, and its last renewal there is younger than the renew deadline, the
 * point at which the election itself gives leadership up. The Lease is read again when what was
 * read is older than {@code recheck} on the monotonic clock, which keeps counting while a process is
 * stopped: a leader paused past its lease and resumed reads the Lease before its first write, finds
 * the new holder (or a renewal older than the deadline) and writes nothing.
 *
 * <p>When the Lease cannot be read (the API server is away), the last reading stands, so a leader
 * goes on writing up to its renew deadline and no further, exactly as long as it may still lead.
 * Renewal times are the holder's own wall clock: a step of the host's clock shortens or lengthens
 * that allowance by the step. What remains unfenced is a pause between the check and the write's
 * RPC, a few microseconds, and a write the HBase client was already retrying.
 */
final class LeaseFence implements WriteFence {

  /** What the Lease said: its holder and last renewal, and when (monotonic) it was read. */
  record Reading(String holder, Instant renewed, long readAtNanos) {}

  private final BooleanSupplier electionOn;
  private final BooleanSupplier leading;
  private final Supplier<Optional<Reading>> readLease;
  private final String identity;
  private final String lease;
  private final Duration renewDeadline;
  private final Duration recheck;
  private final Clock wall;
  private final LongSupplier nanos;
  private volatile Reading last;

  /**
   * @param electionOn whether leader election runs at all (without it every write is allowed)
   * @param leading whether this replica leads, as the election last said
   * @param readLease reads the Lease now (holder and renewal; the read time is filled in here); empty
   *     when there is no such Lease; throws when it cannot be read
   * @param lease the Lease's namespace/name, for messages
   */
  LeaseFence(BooleanSupplier electionOn, BooleanSupplier leading, Supplier<Optional<Reading>> readLease,
      String identity, String lease, Duration renewDeadline, Duration recheck, Clock wall, LongSupplier nanos) {
    this.electionOn = electionOn;
    this.leading = leading;
    this.readLease = readLease;
    this.identity = identity;
    this.lease = lease;
    this.renewDeadline = renewDeadline;
    this.recheck = recheck;
    this.wall = wall;
    this.nanos = nanos;
  }

  @Override
  public void check() throws NotLeaderException {
    if (!electionOn.getAsBoolean()) {
      return;
    }
    if (!leading.getAsBoolean()) {
      throw new NotLeaderException("this replica (" + identity + ") does not lead: only the holder of Lease " + lease
          + " writes to HBase");
    }
    Reading r = last;
    if (r == null || nanos.getAsLong() - r.readAtNanos() >= recheck.toNanos()) {
      r = reread(r);
    }
    if (r == null) {
      throw new NotLeaderException("this replica (" + identity + ") could not read Lease " + lease
          + " yet: no write until it has");
    }
    if (!identity.equals(r.holder())) {
      throw new NotLeaderException("Lease " + lease + " is held by " + r.holder() + ", not by this replica ("
          + identity + "): the write is left to the leader");
    }
    Instant deadline = r.renewed().plus(renewDeadline);
    if (!wall.instant().isBefore(deadline)) {
      throw new NotLeaderException("this replica (" + identity + ") last renewed Lease " + lease + " at " + r.renewed()
          + ", longer ago than the renew deadline (" + renewDeadline.toSeconds() + " s): it may no longer lead");
    }
  }

  private synchronized Reading reread(Reading before) {
    Reading current = last;
    if (current != before) {
      return current; // another writer read it meanwhile
    }
    long at = nanos.getAsLong();
    try {
      Reading r = readLease.get().map(x -> new Reading(x.holder(), x.renewed(), at))
          .orElse(new Reading("nobody", Instant.EPOCH, at));
      last = r;
      return r;
    } catch (RuntimeException e) {
      return before; // the last reading stands: its renew deadline bounds it
    }
  }
}
