package io.hbaseqos.operator.sync;

import io.hbaseqos.operator.cluster.ClusterState;
import io.hbaseqos.operator.cluster.ClusterUnavailableException;
import io.hbaseqos.operator.cluster.Errors;
import io.hbaseqos.operator.quota.HBaseShell;
import io.hbaseqos.operator.quota.QuotaDiff;
import io.hbaseqos.operator.quota.QuotaOp;
import io.hbaseqos.operator.quota.QuotaPlan;
import io.hbaseqos.operator.quota.Subject;
import io.hbaseqos.operator.quota.SubjectQuota;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one place that writes a subject's quotas: it diffs, plans around HBase's row semantics
 * ({@link QuotaPlan}), writes, and says what happened. Everything about a subject's row is done
 * holding that row's lock, so two reconciles never interleave writes to one user's row (one
 * removing the user's own settings while another adds a per-table throttle the removal would take).
 *
 * <p>Reads: the shared snapshot for a plain change; HBase itself, just before, when the subject's
 * last setting goes (removal, deletion) or when the snapshot may be wrong after a failed write.
 */
public final class QuotaSync {

  /** What a sync did. */
  public enum Result { UNCHANGED, WRITTEN, DRIFT_CORRECTED }

  /**
   * @param found what HBase held for the subject before
   * @param now what it holds after
   * @param written the writes made, in order
   * @param pinned other cells of the user's row that the plan kept by pinning the user's own cell
   * @param leftBehind why an empty cell could not be dropped (null when nothing was left behind)
   */
  public record Outcome(Result result, SubjectQuota found, SubjectQuota now, List<QuotaOp> written, boolean pinned,
      String leftBehind) {
    public boolean wrote() {
      return !written.isEmpty();
    }
  }

  /** A write to the subject was abandoned at its deadline and may still land: removal must wait. */
  public static final class InDoubtException extends IOException {
    private final Duration retryAfter;

    InDoubtException(Subject subject, Duration retryAfter) {
      super("an earlier write to " + subject + " timed out and may still land in HBase for another "
          + Math.max(1, retryAfter.toSeconds()) + " s; removing after that");
      this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
      return retryAfter;
    }
  }

  /**
   * Brings HBase to the desired settings of one subject.
   *
   * @param settled the caller had seen HBase hold exactly {@code desired}: a difference now is drift
   */
  public Outcome sync(ClusterState cluster, SubjectQuota desired, boolean settled) throws IOException {
    Subject s = desired.subject();
    return cluster.withRowLock(s, () -> {
      SubjectQuota actual = cluster.isUnsure(s) ? cluster.read(s) : cluster.actual(s);
      if (QuotaDiff.matches(desired, actual) && (desired.hasSettings() || actual.isEmpty())) {
        return new Outcome(Result.UNCHANGED, actual, actual, List.of(), false, null);
      }
      Map<Subject, SubjectQuota> row = null;
      if (QuotaPlan.needsRow(desired, actual)) {
        row = cluster.readUser(s.user());
        actual = row.getOrDefault(s, SubjectQuota.empty(s));
      }
      return write(cluster, desired, actual, row, settled);
    });
  }

  /** Removes everything HBase holds for the subject, as read from HBase just before. */
  public Outcome remove(ClusterState cluster, Subject s) throws IOException {
    return cluster.withRowLock(s, () -> {
      Duration doubt = cluster.inDoubt(s);
      if (!doubt.isZero()) {
        throw new InDoubtException(s, doubt);
      }
      Map<Subject, SubjectQuota> row = s.user() != null ? cluster.readUser(s.user()) : null;
      SubjectQuota actual = row != null ? row.getOrDefault(s, SubjectQuota.empty(s)) : cluster.read(s);
      return write(cluster, SubjectQuota.empty(s), actual, row, false);
    });
  }

  private static Outcome write(ClusterState cluster, SubjectQuota desired, SubjectQuota actual,
      Map<Subject, SubjectQuota> row, boolean settled) throws IOException {
    Subject s = desired.subject();
    List<QuotaOp> ops = QuotaPlan.plan(desired, actual, row);
    if (ops.isEmpty()) {
      return new Outcome(Result.UNCHANGED, actual, actual, List.of(), false, null);
    }
    List<QuotaOp> written = new ArrayList<>();
    String leftBehind = null;
    for (QuotaOp op : ops) {
      try {
        cluster.write(op);
        written.add(op);
      } catch (ClusterUnavailableException e) {
        throw e;
      } catch (IOException e) {
        if (!(op instanceof QuotaOp.DropEmptySettings)) {
          throw e;
        }
        // the cell limits nothing; it only hides later rows from HBase's own listing. Reported.
        leftBehind = "HBase refused to delete the empty settings cell of user " + op.subject().user()
            + " (" + Errors.rootMessage(e) + "); it holds only bypass_globals=false. Remove it with the HBase shell: "
            + HBaseShell.deleteQuotaCell("u." + op.subject().user(), "q:s");
      }
    }
    boolean pinned = !ops.isEmpty() && ops.get(0) instanceof QuotaOp.SetBypassGlobals b && !b.bypass()
        && !actual.bypassStored();
    Result result = settled && !written.isEmpty() ? Result.DRIFT_CORRECTED : Result.WRITTEN;
    return new Outcome(result, actual, cluster.actual(s), List.copyOf(written), pinned, leftBehind);
  }
}
