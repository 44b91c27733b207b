package io.hbaseqos.operator.calibration;

/**
 * The operator's law: a damped Newton step in log space, {@code ln L += g * ln(T/y) / e}, where
 * {@code e} is the plant's local elasticity {@code d ln y / d ln L}, learnt from the last move
 * (a secant between the mean measurements at two limits) and blended with what was known before
 * in proportion to how large the move was.
 *
 * <p>Until a secant is learnt, a move assumes the elasticity is 1, the most a throttle can give
 * (ops at most proportional to the limit), so the first move falls short of the target instead of
 * overshooting it on a plant steeper than assumed; HBase under a saturating client is such a plant
 * (elasticity near 1), where an assumed 0.3 overshot by 37-64%.
 *
 * <p>Measurements at one limit are averaged. The first period after a large move still partly
 * reflects the old limit (the metrics window straddles the change), so it may trigger another
 * move but does not count toward the average. Inside the tolerance band the loop moves only when
 * the average differs from the target by more than half the band and by more than twice its own
 * standard error (noise estimated from the spread of measurements at a fixed limit, {@link Noise}),
 * and reports
 * Converged once the average is confidently inside the band.
 *
 * <p>Once converged it writes nothing until a cumulative-sum detector (drift allowance
 * {@link #ALARM_DRIFT} noise deviations a period, alarm at {@link #ALARM_SIGMAS} of them) sees the
 * tenant's rate leave its converged level for real, or the average at the limit turns out to be
 * outside the band, so measurement noise never makes a converged loop write.
 *
 * <p>Real throttles are not smooth: HBase's default rate limiter refills in whole milliseconds, so
 * under a saturating client the achieved rate climbs in steps of about 1000 req/s per RegionServer.
 * The law therefore remembers the closest limits known to give too little and too much (a bracket
 * around the target, {@link Bracket}). Once the loop has crossed the target {@link #CYCLE} times (fewer would let
 * noise on a smooth plant trigger it), a proposal at or beyond either end (the local slope misleads
 * there) is replaced by the bracket's middle, so a limit cycle becomes a bisection. When the
 * bracket is narrower than {@link #MIN_BRACKET} (or one req/s) the target lies on a step the plant
 * cannot stop on: the law holds the end measured nearer the target, reports Converged if that
 * is within the tolerance and LimiterStep if not, and writes nothing more until the rate there
 * changes.
 *
 * <p>Guard rails: at most {@code maxStep} per period; min/max clamps; missing or absurd metrics
 * hold the last limit (never zero, never unlimited); and a demand guard against wind-up: below
 * target while HBase throttles almost nothing (under 0.1% of the tenant's requests refused), or
 * after a raise that returned under {@link #UNDERPAID} of its predicted gain, raising the limit
 * would not help. The second needs the refused share to agree: while HBase refuses enough of the
 * tenant's requests that serving them would reach the target, the throttle holds it back and the
 * law never says DemandLimited; nor while it refuses a {@link #MATERIAL} share. A raise that paid
 * little then teaches a small elasticity (a flat plant, as scans are) and the next move is sized by
 * it, up to the maximum limit, where AtBound names the refused share and the elasticity. A bursty
 * tenant near its demand, refused 1% at any limit, is still held; so is a flat one whose client
 * backs off on each refusal, which HBase refuses as little. The law says DemandLimited and holds at
 * most {@link #HEADROOM} times the last limit a clean period found throttling the tenant, until its
 * rate there changes.
 *
 * <p>How it is built: a state machine of four named phases ({@link Phase}, its transitions listed
 * there) under a demand hold that can overlay any of them ({@link DemandHold}); each period goes
 * through {@link #next}: usable reading, hold, average, then by phase {@link #watch} (converged),
 * {@link #nearTarget} (averaging near the target) or {@link #move}. Its statistics are classes of
 * their own: the periods at the limit in force ({@link AtLimit}), the noise ({@link Noise}), the
 * elasticity and the far end of its next secant ({@link Elasticity}), the bracket
 * ({@link Bracket}) and the change detector ({@link ChangeDetector}).
 */
public final class LogNewtonLaw implements ControlLaw {
  public static final String NAME = "ours";
  /** What a raise is expected to return before any secant is learnt, to judge whether it paid. */
  static final double TYPICAL_ELASTICITY = 0.3;
  static final double MIN_ELASTICITY = 0.05;
  static final double MAX_ELASTICITY = 1.0;
  /**
   * Below this share of refused requests the throttle is not binding. Small, because a client
   * sleeps the wait HBase asks for: with a 100 ms refill interval one refusal per thread per
   * refill holds a tenant at its limit, which on HBase 2.6.4 measured 0.6% of its requests.
   */
  static final double NOT_BINDING = 0.001;
  /**
   * A share of refused requests that is material: HBase holds the tenant back and the law never says
   * DemandLimited, whatever a raise paid. Above what a tenant is refused at any limit when it is near
   * its demand (about 1% for a bursty one) or when its client waits on each refusal (1.4% while capped
   * at an eighth of its demand, CalibrationIT on HBase 2.6.4), which are held by the raise's pay.
   */
  public static final double MATERIAL = 0.05;
  /**
   * Gain of a move made with a learnt elasticity. Before one is learnt, a move takes the elasticity to
   * be {@link #MAX_ELASTICITY} with a gain of 1: the move that would just reach the target if the
   * tenant's ops followed its limit one for one, the most a throttle can give (a limit k times higher
   * admits at most k times the requests). On any plant whose elasticity is at most 1 it falls short
   * of the target, either way, and never overshoots; the secant it yields teaches the next move.
   */
  static final double GAIN = 0.85;
  /**
   * Headroom of a demand-limited hold: below its target, a tenant HBase no longer throttles keeps
   * at most this many times the last limit at which HBase was measured throttling it.
   */
  static final double HEADROOM = 2.0;
  /** A raise below target that gained less than this share of what the elasticity predicted did not pay. */
  static final double UNDERPAID = 1.0 / 3;
  /** Prior noise (standard deviation of ln y between periods) and how many periods it is worth. */
  static final double PRIOR_NOISE = 0.02;
  static final double PRIOR_NOISE_WEIGHT = 2;
  /** Observations this far from the target (either way) are treated as broken metrics. */
  static final double ABSURD = 1000;
  /** Converged when the average is inside the band by this many of its standard errors. */
  static final double CONFIDENCE = 1.5;
  /**
   * A converged loop looks again when a cumulative sum of the deviations from its converged rate,
   * less this many noise deviations per period, reaches {@link #ALARM_SIGMAS} of them.
   */
  static final double ALARM_DRIFT = 0.75;
  static final double ALARM_SIGMAS = 5;
  /** Within this many tolerance bands of the target, moves wait for an average of two periods. */
  static final double NEAR_BANDS = 2;
  /** A bracket narrower than this (in ln of the limit) holds a step: the target is not achievable in it. */
  static final double MIN_BRACKET = 0.004;
  /** Crossings of the target after which a proposal outside the bracket is replaced by its middle. */
  static final int CYCLE = 5;
  /** Spread of the elasticity between moves (a random walk), for weighing a new secant. */
  static final double ELASTICITY_SPREAD = 0.15;

  private final Settings s;
  private final double lnT;
  private final double band;

  // the law's statistics, each a class of its own
  /** How the rate follows the limit, and the far end of the next secant. */
  private final Elasticity elasticity = new Elasticity();
  /** The periods measured at the limit in force. */
  private final AtLimit at = new AtLimit();
  /** The spread of a period's measurement at a fixed limit. */
  private final Noise noise = new Noise();
  /** Closest limits known to give a rate below / above the band, and the moves that crossed the target. */
  private final Bracket bracket = new Bracket();
  /** Watches a converged rate for a real change. */
  private final ChangeDetector detector = new ChangeDetector();
  /** The demand-limited hold and the cautious climb after it, which overlay any phase. */
  private final DemandHold hold = new DemandHold();

  /**
   * Where the loop stands. Its transitions, each made in one place:
   * <pre>
   *   SEEKING, RECHECKING ── average inside the band by {@link #CONFIDENCE} s.e.
   *                          ({@link #nearTarget}) ──▶ CONVERGED
   *   SEEKING, RECHECKING ── bracket narrower than {@link #MIN_BRACKET}, measured at its nearer end
   *                          ({@link #holdNearest}) ──▶ ON_STEP
   *   CONVERGED, ON_STEP  ── the detector fires, or (CONVERGED) the average is off target
   *                          ({@link #watch}) ──▶ RECHECKING
   *   any ── a move of its own ({@link #move}) ──▶ SEEKING
   *   CONVERGED, ON_STEP  ── a limit set from outside, or a demand hold's move ({@link #moveTo}) ──▶ SEEKING
   * </pre>
   * A restart resumes CONVERGED or ON_STEP from status ({@link #resumeConverged}, {@link #resumeLimiterStep}).
   */
  enum Phase {
    /** Moving toward the target, or measuring at a limit before judging it. */
    SEEKING,
    /** Measuring again at the converged limit after the detector fired: only leaving the band counts. */
    RECHECKING,
    /** Within the band: nothing is written until the detector fires. */
    CONVERGED,
    /** Holding the nearer side of a limiter step (Converged or LimiterStep) until the rate there changes. */
    ON_STEP;

    boolean converged() {
      return this == CONVERGED || this == ON_STEP;
    }
  }

  private Phase phase = Phase.SEEKING;
  /** RECHECKING: the converged average (and its count) before the recheck; a write needs the rate to differ from it. */
  private double recheckFrom;
  private int recheckWeight = 1;
  /** ON_STEP: the step and why its nearer side is held. */
  private String nearestText;
  /** The last limit (ln) at which a clean period found HBase throttling the tenant; NaN if none. */
  private double bindLnL = Double.NaN;
  /**
   * The move to the limit in force was a raise made below the target (its first measurement judges
   * whether it paid); any other way of arriving at a limit clears it ({@link #moveTo}).
   */
  private boolean raisedBelow;

  /**
   * One period's reading at the limit in force {@code limit} ({@code u} its ln): ops/s {@code y} and
   * its ln {@code x}, the share HBase refused, whether that share binds, whether the period straddles
   * a large move.
   */
  private record Reading(double limit, double u, double y, double x, double share, boolean binding,
      boolean provisional) {}

  public LogNewtonLaw(Settings settings) {
    this.s = settings;
    this.lnT = Math.log(settings.target());
    this.band = settings.band();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public double initial(double currentLimit) {
    return s.clamp(currentLimit);
  }

  public double elasticity() {
    return elasticity.value();
  }

  /** Standard deviation of one period's ln(ops), from the data seen so far blended with the prior. */
  double noise() {
    return noise.sigma();
  }

  /**
   * One period: a reading that cannot be used holds the limit; then the demand hold, which overlays
   * every phase; then the measurement is averaged at its limit and judged by the phase (a converged
   * loop watches its rate, one near the target waits for a significant average); what is left is a
   * move.
   */
  @Override
  public Step next(double limit, Observation obs) {
    double y = obs.ops();
    // only the period right after a large move is partly the old limit's
    boolean provisional = at.takeProvisional(Math.log(limit), obs.aligned());
    if (Double.isNaN(y) || y < 0 || Double.isInfinite(y) || y > s.target() * ABSURD) {
      return new Step(limit, State.MetricsUnavailable, "no usable measurement: holding the limit");
    }
    if (y == 0) {
      // nothing at all went through: either no demand or a broken source; never drop the limit for it
      return new Step(limit, State.DemandLimited, "the tenant did no operations: holding the limit");
    }
    double share = obs.throttledShare();
    Reading r = new Reading(limit, Math.log(limit), y, Math.log(y), share,
        Double.isNaN(share) || share >= NOT_BINDING, provisional);
    if (!at.isAt(r.u())) {
      // the limit in force is not the one we were averaging at (first call, or set from outside)
      moveTo(r.u(), false);
    }
    noteBinding(r);
    if (hold.held()) {
      Step held = whileHeld(r);
      if (held != null) {
        return held;
      }
    }
    if (!r.binding() && r.x() < lnT) {
      return demandLimited(r);
    }
    at.add(r.x(), r.provisional(), noise);
    if (at.n() == 1) {
      Step unpaid = learn(r);
      if (unpaid != null) {
        return unpaid;
      }
    }
    double mean = at.mean();
    if (phase.converged()) {
      Step quiet = watch(r, mean);
      if (quiet != null) {
        return quiet;
      }
      mean = r.x(); // the rate moved far from the target: this period alone sizes the move
    } else if (Math.abs(lnT - mean) <= NEAR_BANDS * band) {
      Step averaging = nearTarget(r, mean);
      if (averaging != null) {
        return averaging;
      }
    }
    return move(r, mean);
  }

  /** Remembers the last limit found holding the tenant back. */
  private void noteBinding(Reading r) {
    if (r.binding() && !r.provisional()) {
      bindLnL = r.u(); // the last limit a clean period found holding the tenant back
    } else if (r.binding() && !Double.isNaN(elasticity.fromLnL())) {
      // a period that straddles a move ran under both limits: the lower of the two held the tenant back. (Taking
      // only clean periods left a loop that moved every period with the first limit it ever measured, and a
      // demand-limited hold then dropped it to twice that.)
      bindLnL = Math.min(r.u(), elasticity.fromLnL());
    }
  }

  /**
   * CONVERGED or ON_STEP: watch for a change of the operating point itself, not for noise around it,
   * and (CONVERGED) for the average at this limit turning out to be outside the band after all.
   * Quiet, it says so; otherwise the loop goes RECHECKING at this limit, and returns null when the
   * rate moved so far that this period alone must size a move.
   */
  private Step watch(Reading r, double mean) {
    int n = at.n();
    double sigma = noise();
    double from = n > 1 ? at.meanBefore(r.x()) : detector.reference();
    boolean fired = detector.fired(r.x(), from, sigma);
    boolean offTarget = phase != Phase.ON_STEP && n >= 4 && Math.abs(lnT - mean) > band + 2 * sigma / Math.sqrt(n);
    if (!offTarget && !fired) {
      if (phase == Phase.ON_STEP) {
        // holding a side of a step: within the tolerance it is a convergence, outside it is not
        double rate = n > 1 ? mean : from;
        boolean outside = Math.abs(lnT - rate) > band;
        nearestText = outside && bracket.bracketed() ? nearestReason(rate) : nearestText;
        return outside ? new Step(r.limit(), State.LimiterStep, nearestText)
            : new Step(r.limit(), State.Converged, String.format("%.0f ops/s, target %.0f within %.0f%% (the nearer "
                + "side of a step of the rate limiter)", Math.exp(from), s.target(), s.tolerance() * 100));
      }
      return new Step(r.limit(), State.Converged, String.format("%.0f ops/s, target %.0f within %.0f%%",
          Math.exp(from), s.target(), s.tolerance() * 100));
    }
    // the plant changed: what the bracket says about it is stale
    bracket.forget();
    // the rate moved: measure afresh at this limit, at once if it moved far
    recheckFrom = from;
    recheckWeight = n - 1;
    moveTo(r.u(), false);
    phase = Phase.RECHECKING;
    if (Math.abs(lnT - r.x()) <= NEAR_BANDS * band) {
      return new Step(r.limit(), State.Converging, String.format("%.0f ops/s, target %.0f: the rate changed, "
          + "measuring again", r.y(), s.target()));
    }
    return null;
  }

  /**
   * SEEKING or RECHECKING near the target, where one period's noise is a large part of the error:
   * act on averages. Converges when the average is inside the band by {@link #CONFIDENCE} standard
   * errors, measures once more while the difference is not significant; null when it is (a move).
   */
  private Step nearTarget(Reading r, double mean) {
    int n = at.n();
    double err = lnT - mean;
    double se = noise() / Math.sqrt(n);
    // before converging, corrections aim for the middle of the band; after, only leaving it counts
    boolean rechecking = phase == Phase.RECHECKING;
    boolean significant = Math.abs(err) > (rechecking ? band : band / 2) && Math.abs(err) > 2 * se
        && (!rechecking || Math.abs(mean - recheckFrom) > 2 * noise() * Math.sqrt(1.0 / n + 1.0 / recheckWeight));
    if (at.seen() == 1 || (r.provisional() && Math.abs(err) <= band)) {
      return new Step(r.limit(), State.Converging, String.format("%.0f ops/s, target %.0f: measuring once more",
          r.y(), s.target()));
    }
    if (!r.provisional() && !significant && Math.abs(err) + CONFIDENCE * se <= band) {
      phase = Phase.CONVERGED;
      detector.watch(mean);
      return new Step(r.limit(), State.Converged, String.format("%.0f ops/s is within %.0f%% of the target",
          Math.exp(mean), s.tolerance() * 100));
    }
    if (!significant) {
      return new Step(r.limit(), State.Converging, String.format("%.0f ops/s, target %.0f: measuring once more",
          Math.exp(mean), s.target()));
    }
    return null;
  }

  /**
   * The move toward the target from the average {@code mean} at the limit in force: a damped Newton
   * step by the elasticity, at most {@code maxStep}, in the bracket once the loop cycles, held on a
   * step of the limiter, AtBound at the clamps.
   */
  private Step move(Reading r, double mean) {
    double err = lnT - mean;
    double limit = r.limit();
    double u = r.u();
    if (err > 0 && !r.binding()) {
      return new Step(limit, State.DemandLimited, "below the target without being throttled: holding the limit");
    }
    if (r.binding() && !r.provisional() && Math.abs(err) > 2 * noise() / Math.sqrt(at.n())) {
      // only a side the noise cannot explain bounds the target
      bracket.narrow(u, mean, err > 0);
    }
    int direction = err > 0 ? 1 : -1;
    bracket.move(direction);
    if (bracket.onAStep()) {
      return holdNearest(limit, u);
    }
    // unlearnt, the elasticity is MAX_ELASTICITY and the gain 1
    double step = (elasticity.learnt() ? GAIN : 1) * err / elasticity.value();
    step = Math.max(-Math.log(s.maxStep()), Math.min(Math.log(s.maxStep()), step));
    if (hold.cautious() && step > 0) {
      step = Math.min(step, Math.log(HEADROOM));
    }
    double next = s.clamp(limit * Math.exp(bracket.inBracket(u + step) - u));
    if (next == limit) {
      return new Step(limit, State.AtBound, "the limit is at its " + (err > 0 ? "maximum" : "minimum")
          + outOfReach(u, err, Math.exp(mean), r.share()));
    }
    phase = Phase.SEEKING;
    elasticity.leaving(u, mean, r.binding());
    // the next period's first measurement is still partly this limit's when the move changes ops noticeably
    moveTo(Math.log(next), Math.abs(Math.log(next) - u) * elasticity.value() > band / 2);
    raisedBelow = next > limit && err > 0;
    boolean atBound = next == s.minLimit() || next == s.maxLimit();
    return new Step(next, atBound ? State.AtBound : State.Converging,
        String.format("%.0f ops/s, target %.0f: limit %.0f -> %.0f (elasticity %.2f)", r.y(), s.target(), limit,
            next, elasticity.value()));
  }

  /**
   * Whether the requests HBase refuses, were they all served, would bring the tenant to its target, or
   * are a {@link #MATERIAL} share of its requests: then the throttle is what holds it back. Served,
   * they make about {@code ops / (1 - refused share)}: exactly so for requests that are not sent
   * again, and roughly at most what a client that waits on each refusal and sends again would do
   * without the throttle (its waits would end too). When it does not hold, nothing follows: such a
   * client is refused little whatever the hold (1.4% while capped at an eighth of its demand,
   * CalibrationIT on HBase 2.6.4), and the raise's pay decides as before. False where HBase does not report what it refuses.
   */
  private boolean refusalsExplainTheGap(double x, double share) {
    // a material share refused is a throttle that holds the tenant back, whatever one noisy period read
    return !Double.isNaN(share) && (share >= MATERIAL || share >= NOT_BINDING
        && x - Math.log1p(-Math.min(share, 1 - 1e-9)) >= lnT - band);
  }

  /**
   * The evidence that a target above the rate measured at the maximum limit is out of reach there:
   * what HBase still refuses of the tenant's requests, and, once the loop has learnt how the rate
   * follows the limit, about what limit the target would need.
   *
   * @param u the log of the limit in force (the maximum)
   * @param err the log of the target over the average measured at it
   * @param ops that average
   */
  private String outOfReach(double u, double err, double ops, double share) {
    if (err <= band || Double.isNaN(share) || share < NOT_BINDING) {
      return "";
    }
    String need = "";
    if (elasticity.learnt()) {
      double e = elasticity.value();
      double ratio = Math.exp(err / e);
      need = ratio > 100 ? String.format("; by how little its rate follows the limit (elasticity %.2f) it would need "
          + "over 100 times that", e)
          : String.format("; by the elasticity learnt (%.2f) it would need about %.0f req/s", e, Math.exp(u) * ratio);
    }
    return String.format("; %.0f ops/s is below the target %.0f while HBase refuses %.1f%% of the tenant's requests: "
        + "the target is out of reach below the maximum limit (%.0f req/s)%s", ops, s.target(), share * 100,
        Math.exp(u), need);
  }

  /**
   * The target lies on a step: hold whichever end of the bracket gets nearer to it. An end measured
   * before the last move may be stale (the plant may have moved since), so holding the other end
   * is a move like any other: the loop converges there only once a fresh measurement confirms it.
   */
  private Step holdNearest(double limit, double u) {
    boolean low = lnT - bracket.lowMean() <= bracket.highMean() - lnT;
    double lnHold = low ? bracket.lowL() : bracket.highL();
    if (Math.abs(lnHold - u) > 1e-9) {
      moveTo(lnHold, false);
      return new Step(Math.exp(lnHold), State.Converging, String.format("target %.0f ops/s is between steps of "
          + "the throttle: back to limit %.0f, the nearer side, to confirm it", s.target(), Math.exp(lnHold)));
    }
    phase = Phase.ON_STEP;
    double reference = low ? bracket.lowMean() : bracket.highMean();
    detector.watch(reference);
    nearestText = nearestReason(reference);
    if (Math.abs(reference - lnT) <= band) {
      // the nearer side measures within the tolerance: a convergence, held quietly like a step's side
      return new Step(limit, State.Converged, String.format("%.0f ops/s is within %.0f%% of the target (the nearer "
          + "side of a step of the rate limiter)", Math.exp(reference), s.tolerance() * 100));
    }
    return new Step(limit, State.LimiterStep, nearestText);
  }

  /** Names the step (its two sides and its height) and how to get a finer one. */
  private String nearestReason(double ref) {
    return String.format("target %.0f ops/s lies on a step of HBase's rate limiter: limit %.0f req/s gives %.0f "
        + "ops/s, limit %.0f gives %.0f (a step of %.0f ops/s); holding the nearer side, %.0f ops/s (%+.1f%%). HBase's "
        + "default AverageIntervalRateLimiter moves in steps of about 1000 req/s per RegionServer; for a finer one set "
        + "spec.quotas.rateLimiter on the HBaseCluster to type FixedInterval with refillInterval 100ms", s.target(),
        Math.exp(bracket.lowL()), Math.exp(bracket.lowMean()), Math.exp(bracket.highL()), Math.exp(bracket.highMean()),
        Math.exp(bracket.highMean()) - Math.exp(bracket.lowMean()),
        Math.exp(ref), (Math.exp(ref - lnT) - 1) * 100);
  }

  /**
   * Below the target with HBase not throttling the tenant: it asks for less, so a higher limit would
   * change nothing. The limit is held, at most {@link #HEADROOM} times the last limit at which HBase
   * was measured throttling it (a raise that went further, taken before the throttle was seen to
   * stop, is taken back), so a tenant whose demand returns is not left effectively unthrottled.
   */
  private Step demandLimited(Reading r) {
    double limit = r.limit();
    double y = r.y();
    double share = r.share();
    double cap = holdAtMost(limit, Math.exp(bindLnL) * HEADROOM, r.x());
    if (cap < limit) {
      return new Step(cap, State.DemandLimited, String.format("%.0f ops/s is below the target %.0f and HBase throttles "
          + "%.1f%% of the tenant's requests: it asks for less. Limit %.0f -> %.0f req/s, %.0fx the last limit at "
          + "which HBase held it back (%.0f)", y, s.target(), share * 100, limit, cap, HEADROOM, Math.exp(bindLnL)));
    }
    return new Step(limit, State.DemandLimited, String.format("%.0f ops/s is below the target %.0f, but HBase "
        + "throttles %.1f%% of the tenant's requests: it asks for less, so a higher limit would change nothing", y,
        s.target(), share * 100));
  }

  /**
   * Holding for a demand-limited tenant. The hold ends when the tenant reaches its target, or when
   * HBase throttles it and its rate at this limit moved by more than the noise and the tolerance
   * (its demand changed): the law then acts again, raising by at most {@link #HEADROOM} per period
   * until a raise pays. Otherwise the limit stays (null: proceed with the ordinary law).
   */
  private Step whileHeld(Reading r) {
    if (r.x() >= lnT - band) {
      hold.end();
      return null;
    }
    if (!r.binding()) {
      return null; // demandLimited() holds it
    }
    if ((!r.provisional() || r.share() >= MATERIAL) && refusalsExplainTheGap(r.x(), r.share())) {
      // HBase now refuses enough of the tenant's requests at the held limit to reach the target: its demand came back
      hold.endToClimb();
      return null;
    }
    double moved = Math.max(band, 3 * noise());
    if (!r.provisional() && Math.abs(r.x() - hold.ref()) > moved) {
      hold.endToClimb();
      return null;
    }
    return new Step(r.limit(), State.DemandLimited, String.format("%.0f ops/s, target %.0f: raising the limit "
        + "stopped paying, so it is held at %.0f req/s until the tenant's rate here changes", r.y(), s.target(),
        r.limit()));
  }

  /**
   * A loop started again (operator restart or failover) at a limit its predecessor held
   * Converged, where it measured {@code observedOps}: the law watches that operating point as a
   * converged law would, and says Converging only if the rate has moved, instead of re-learning it
   * from scratch (which would report Converging for periods after every restart).
   */
  public void resumeConverged(double limit, double observedOps) {
    moveTo(Math.log(limit), false);
    phase = Phase.CONVERGED;
    detector.watch(Math.log(observedOps));
  }

  /**
   * A loop started again at a limit its predecessor held on a limiter step ({@code LimiterStep},
   * described by {@code text}) where it measured {@code observedOps}: it keeps holding and saying so
   * until the rate there changes.
   */
  public void resumeLimiterStep(double limit, double observedOps, String text) {
    resumeConverged(limit, observedOps);
    phase = Phase.ON_STEP;
    nearestText = text;
  }

  /** A loop started again at a limit its predecessor held DemandLimited, where it measured {@code observedOps}. */
  public void resumeDemandLimited(double limit, double observedOps) {
    moveTo(Math.log(limit), false);
    hold.enter(Math.log(observedOps));
  }

  /** The elasticity a predecessor learnt (kept in status): the first move after a restart need not be cautious. */
  public void resumeElasticity(double learntElasticity) {
    elasticity.resume(learntElasticity);
  }

  private void moveTo(double lnL, boolean large) {
    at.restart(lnL, large);
    if (phase.converged()) {
      phase = Phase.SEEKING;
    }
    nearestText = null;
    raisedBelow = false;
  }

  /**
   * Secant between the previous limit's mean and this one's first measurement. A raise made below
   * the target that gained less than {@link #UNDERPAID} of what the elasticity known before it
   * predicted did not pay (judged on raises whose predicted gain is over four noise deviations): the
   * tenant's demand, not its throttle, limits it, so the climb stops there: held at most
   * {@link #HEADROOM} times the limit before the raise. Returns that hold, or null.
   */
  private Step learn(Reading r) {
    boolean judge = raisedBelow;
    raisedBelow = false;
    double du = elasticity.span(at.lnL(), r.binding());
    if (Double.isNaN(du)) {
      return null;
    }
    // what the raise should have gained: by the learnt elasticity, or by a typical one before any was
    // learnt (the first move's elasticity of 1 is a bound for not overshooting, not a prediction)
    double predicted = elasticity.learnt() ? elasticity.value() : TYPICAL_ELASTICITY;
    double x = r.x();
    elasticity.learn(x, du, noise());
    if (!judge || x >= lnT - band) {
      return null;
    }
    double gained = x - elasticity.fromMean();
    double y = r.y();
    double share = r.share();
    double limit = r.limit();
    // returns diminishing (under half the prediction): nearing the demand, so climb at most x2 a period
    hold.stayCautiousIf(gained < 0.5 * predicted * du);
    if (refusalsExplainTheGap(x, share)) {
      // what HBase refuses is enough to reach the target: the throttle holds the tenant back, not its
      // demand, whatever the raise gained. A raise that paid little is a flat plant (as scans are):
      // the small elasticity just learnt sizes the next move, up to the maximum limit
      return null;
    }
    // judged only on a raise whose predicted gain is well above the noise of a difference of two periods
    if (gained >= UNDERPAID * predicted * du || predicted * du <= 4 * noise() * Math.sqrt(2)) {
      return null;
    }
    double held = holdAtMost(limit, Math.exp(elasticity.fromLnL()) * HEADROOM, x);
    String refused = Double.isNaN(share) ? "" : String.format(", and HBase refuses %.1f%% of its requests, so with "
        + "none refused it would do about %.0f ops/s", share * 100, y / (1 - share));
    String why = String.format("raising the limit from %.0f to %.0f req/s gained %.1f%% ops (%.0f ops/s, target %.0f), "
        + "under a third of what the tenant's elasticity predicted%s: its demand, not its throttle, limits it",
        Math.exp(elasticity.fromLnL()), limit, (Math.exp(gained) - 1) * 100, y, s.target(), refused);
    if (held < limit) {
      return new Step(held, State.DemandLimited, why + String.format("; limit %.0f -> %.0f, %.0fx the last one that "
          + "paid", limit, held, HEADROOM));
    }
    return new Step(limit, State.DemandLimited, why + "; holding the limit");
  }

  /**
   * Enters a demand-limited hold at the rate (ln) {@code x}: at the limit in force, or at
   * {@code cap} (NaN: none) if that is lower, moving there (the first period there straddles the
   * move, and no secant is taken across it). Returns the limit held.
   */
  private double holdAtMost(double limit, double cap, double x) {
    hold.enter(x);
    double c = Double.isNaN(cap) ? limit : s.clamp(cap);
    if (c >= limit * (1 - 1e-9)) {
      return limit;
    }
    elasticity.noSecantFromHere();
    moveTo(Math.log(c), true);
    return c;
  }

  /** Elasticity learnt from the loop's moves; NaN while none has taught it. */
  public double learntElasticity() {
    return elasticity.learntOrNaN();
  }
}
