package io.hbaseqos.operator.qos;

import static io.hbaseqos.operator.qos.ProtectionLaw.CHANGE_Z;
import static io.hbaseqos.operator.qos.ProtectionLaw.JUDGED_AFTER;
import static io.hbaseqos.operator.qos.ProtectionLaw.MAX_EPOCH;
import static io.hbaseqos.operator.qos.ProtectionLaw.MISS_BUDGET;
import static io.hbaseqos.operator.qos.ProtectionLaw.POOL_DECAY;
import static io.hbaseqos.operator.qos.ProtectionLaw.PRIOR_DF;
import static io.hbaseqos.operator.qos.ProtectionLaw.PRIOR_SIGMA;
import static io.hbaseqos.operator.qos.ProtectionLaw.RECENT;
import static io.hbaseqos.operator.qos.ProtectionLaw.Z;
import static io.hbaseqos.operator.qos.ProtectionLaw.Z_AIM;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a protected tenant's readings say about the limits in force: its headroom h = ln(bound /
 * reading) per period measured at unchanged limits (an epoch), and the spread of h within epochs,
 * pooled over the recent ones (older epochs fade by {@link ProtectionLaw#POOL_DECAY} each). Until
 * spreads are measured the spread is taken to be {@link ProtectionLaw#PRIOR_SIGMA}, worth
 * {@link ProtectionLaw#PRIOR_DF} periods. The statistics of {@link ProtectionLaw}, in a class of
 * their own; pure.
 *
 * <p>The world below a protected tenant is not only its limits: its own load, or a tenant of equal
 * priority, changes too. When the mean headroom of the epoch's last periods (at least
 * {@link ProtectionLaw#RECENT}) departs from that of the periods before them (as many) by more than
 * {@link ProtectionLaw#CHANGE_Z} standard errors, the epoch restarts at the split that departs most:
 * the limits are judged by what they do now, not by a record of another world (a floor that missed
 * for many periods is given back once the protected tenant is calm again, and limits that were good
 * are cut once they miss steadily).
 *
 * <p>Consecutive periods are not independent on a machine that drifts: the lag-one correlation of the
 * headroom within epochs, pooled as the spread is, inflates every standard error ({@link #inflation}).
 *
 * <p>Each period also keeps the load of every sheddable tenant below. Between the last epoch of two
 * periods or more and this one, the fall in headroom per unit of ln load of the tenants whose load
 * moved is the plant's elasticity there ({@link #elasticity}), which sizes the law's moves.
 */
public final class Evidence {
  /** The headrooms of the epoch, oldest first. */
  private final List<Double> hs = new ArrayList<>();
  /** Each sheddable tenant's load below in each of those periods, oldest first. */
  private final List<Map<String, Double>> loads = new ArrayList<>();
  /** The last epoch before this one that had two periods or more: its mean headroom, loads and count. */
  private double lastMean = Double.NaN;
  private Map<String, Double> lastLoads = Map.of();
  private int lastN;
  private Moments epoch = Moments.NONE;
  private double pooledM2;
  private double pooledDf;
  /** The sum of lag-one products of deviations in the epoch, and pooled over the recent ones (as the spread). */
  private double epochC1;
  private double pooledC1;

  void add(double h) {
    add(h, Map.of());
  }

  /**
   * @param load each sheddable tenant's load below in the period (its use, within its limit)
   */
  void add(double h, Map<String, Double> load) {
    hs.add(h);
    loads.add(Map.copyOf(load));
    if (hs.size() > MAX_EPOCH) {
      hs.remove(0);
      loads.remove(0);
    }
    // the split of the epoch whose recent part departs most from the older one, in standard errors of
    // the spread within the two parts (prefix sums: every split in one pass)
    int k = hs.size();
    double[] sum = new double[k + 1];
    double[] squares = new double[k + 1];
    for (int i = 0; i < k; i++) {
      sum[i + 1] = sum[i] + hs.get(i);
      squares[i + 1] = squares[i] + hs.get(i) * hs.get(i);
    }
    int split = 0;
    double most = CHANGE_Z;
    for (int at = RECENT; at <= k - RECENT; at++) {
      Moments older = Moments.of(at, sum[at], squares[at]);
      Moments recent = Moments.of(k - at, sum[k] - sum[at], squares[k] - squares[at]);
      double within = Math.sqrt((PRIOR_DF * PRIOR_SIGMA * PRIOR_SIGMA + pooledM2 + older.m2 + recent.m2)
          / (PRIOR_DF + pooledDf + older.n - 1 + recent.n - 1));
      double t = Math.abs(recent.mean - older.mean)
          / (within * Math.sqrt(inflation() * (1.0 / older.n + 1.0 / recent.n)));
      if (t > most) {
        most = t;
        split = at;
      }
    }
    if (split > 0) {
      pooledC1 = pooledC1 * POOL_DECAY + lag1(split, sum[split] / split);
      pool(Moments.of(split, sum[split], squares[split]));
      remember(sum[split] / split, split);
      hs.subList(0, split).clear();
      loads.subList(0, split).clear();
    }
    epoch = Moments.of(k - split, sum[k] - sum[split], squares[k] - squares[split]);
    epochC1 = lag1(epoch.n, epoch.mean);
  }

  /** The sum of (h_i - mean)(h_{i-1} - mean) over the epoch's first {@code n} periods, of mean {@code mean}. */
  private double lag1(int n, double mean) {
    double c = 0;
    for (int i = 1; i < n; i++) {
      c += (hs.get(i) - mean) * (hs.get(i - 1) - mean);
    }
    return c;
  }

  /**
   * How much the variance of a mean of periods exceeds that of as many independent ones: (1 + r) / (1 - r)
   * for the lag-one correlation r of the headroom at fixed limits, measured within epochs and pooled as the
   * spread is (the prior counts as uncorrelated periods); 1 when none is measured or it is negative, and r at
   * most 0.9 (a record never counts as less than a nineteenth of its periods). A machine that drifts makes
   * consecutive periods alike: their mean says less than their count.
   */
  double inflation() {
    double r = (pooledC1 + epochC1) / deviations();
    r = Math.max(0, Math.min(0.9, r));
    return (1 + r) / (1 - r);
  }

  private void pool(Moments m) {
    pooledM2 = pooledM2 * POOL_DECAY + m.m2;
    pooledDf = pooledDf * POOL_DECAY + Math.max(0, m.n - 1);
  }

  void newEpoch() {
    pooledC1 = pooledC1 * POOL_DECAY + epochC1;
    epochC1 = 0;
    pool(epoch);
    remember(epoch.mean, epoch.n);
    hs.clear();
    loads.clear();
    epoch = Moments.NONE;
  }

  /** Keeps the first {@code n} periods' mean headroom and loads as the last epoch, when there are two or more. */
  private void remember(double mean, int n) {
    if (n >= 2) {
      lastMean = mean;
      lastLoads = meanLoads(n);
      lastN = n;
    }
  }

  /** Each tenant's mean load over the first {@code n} periods of the epoch (those it was in every one of). */
  private Map<String, Double> meanLoads(int n) {
    Map<String, Double> sum = new HashMap<>();
    Map<String, Integer> periods = new HashMap<>();
    for (int i = 0; i < n; i++) {
      loads.get(i).forEach((k, v) -> {
        sum.merge(k, v, Double::sum);
        periods.merge(k, 1, Integer::sum);
      });
    }
    Map<String, Double> mean = new HashMap<>();
    sum.forEach((k, v) -> {
      if (periods.get(k) == n) {
        mean.put(k, v / n);
      }
    });
    return mean;
  }

  /**
   * How much the headroom falls per unit of ln load, as measured between the last epoch and this one
   * (two periods or more each): the plant's elasticity where the limits are now, to the load that moved
   * (the tenants whose load changed by more than a twentieth; the others are background, the same in
   * both). 1 (latency in proportion to load) unless the two epochs show, by more than two standard
   * errors, that it is steeper, and at most {@link ProtectionLaw#STEEPEST}.
   */
  public double elasticity() {
    if (lastN < 2 || epoch.n < 2) {
      return 1;
    }
    Map<String, Double> now = meanLoads(epoch.n);
    double before = 0;
    double after = 0;
    for (var e : now.entrySet()) {
      Double was = lastLoads.get(e.getKey());
      if (was != null && was > 0 && e.getValue() > 0 && Math.abs(Math.log(e.getValue() / was)) > Math.log(1.05)) {
        before += was;
        after += e.getValue();
      }
    }
    if (before == 0) {
      return 1;
    }
    double d = Math.log(after / before);
    if (Math.abs(d) < Math.log(1.05)) {
      return 1;
    }
    double slope = -(epoch.mean - lastMean) / d;
    double se = sigma() * Math.sqrt(inflation() * (1.0 / epoch.n + 1.0 / lastN)) / Math.abs(d);
    return slope - 2 * se > 1 ? Math.min(ProtectionLaw.STEEPEST, slope) : 1;
  }

  /** The spread of a period's headroom at fixed limits (log scale). */
  public double sigma() {
    double df = PRIOR_DF + pooledDf + Math.max(0, epoch.n - 1);
    return Math.sqrt(deviations() / df);
  }

  /** The squared deviations behind the spread: the prior's, the pooled epochs' and this one's. */
  private double deviations() {
    return PRIOR_DF * PRIOR_SIGMA * PRIOR_SIGMA + pooledM2 + epoch.m2;
  }

  /** The mean headroom a limit must leave for at most {@link ProtectionLaw#AIM} of its periods to miss. */
  public double needed() {
    return Z_AIM * sigma();
  }

  /** The mean headroom below which more than {@link ProtectionLaw#MISS_BUDGET} of the periods miss. */
  double budget() {
    return Z * sigma();
  }

  /** Periods measured at the limits in force (since the world below last changed). */
  public int periods() {
    return epoch.n;
  }

  /** Enough periods at the limits in force for their record to judge them, not a confirmed miss. */
  boolean judgedByRecord() {
    return epoch.n >= JUDGED_AFTER;
  }

  /** The mean headroom at the limits in force. */
  public double mean() {
    return epoch.mean;
  }

  double se() {
    return sigma() * Math.sqrt(inflation() / epoch.n);
  }

  /** Two periods or more at these limits, and confidently fewer misses than the aim. */
  boolean underBudget() {
    return epoch.n >= 2 && epoch.mean - se() >= needed();
  }

  /**
   * Three periods or more at these limits, more of them missed than the budget allows, and their mean
   * headroom is under the budget's: more of their periods would miss than the budget allows (one
   * outlier, which widens the spread, is not enough alone). A stricter test (the mean two standard
   * errors under) held limits that missed one period in seven for forty periods on a noisy reading.
   */
  boolean overBudget() {
    return epoch.n >= 3 && hs.stream().filter(h -> h < 0).count() > MISS_BUDGET * epoch.n
        && epoch.mean < budget();
  }

  /** Count, mean and sum of squared deviations of some headrooms. */
  private record Moments(int n, double mean, double m2) {
    static final Moments NONE = new Moments(0, 0, 0);

    /** From the count, sum and sum of squares (headrooms are clipped to ±ln 4: no cancellation to fear). */
    static Moments of(int n, double sum, double squares) {
      return n == 0 ? NONE : new Moments(n, sum / n, Math.max(0, squares - sum * sum / n));
    }
  }
}
