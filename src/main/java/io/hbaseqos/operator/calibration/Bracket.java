package io.hbaseqos.operator.calibration;

/**
 * The closest limits known to give a rate below the target's band and above it, with their mean
 * rates (all in ln), and how often the loop's moves crossed the target: {@link LogNewtonLaw}'s
 * bracket, in a class of its own. Once the moves have crossed the target {@link LogNewtonLaw#CYCLE}
 * times, a proposal at or beyond an end is replaced by the middle (a limit cycle becomes a
 * bisection), and a bracket narrower than {@link LogNewtonLaw#MIN_BRACKET} (or one req/s) says the
 * target lies on a step of the rate limiter. Pure.
 */
final class Bracket {
  /** The ends (ln of the limit; NaN: none known) and their mean rates (ln). */
  private double lowL = Double.NaN;
  private double lowMean;
  private double highL = Double.NaN;
  private double highMean;
  /** Moves that crossed the target (a move up after one down, or the reverse): two make a cycle. */
  private int crossings;
  private int lastDirection;

  /** Records that the limit {@code lnL} gives the mean rate {@code mean}, below the target or above it. */
  void narrow(double lnL, double mean, boolean below) {
    if (below) {
      if (!Double.isNaN(highL) && lnL >= highL) {
        highL = Double.NaN; // contradicts the other end: the plant moved
      }
      if (Double.isNaN(lowL) || lnL >= lowL) {
        lowL = lnL;
        lowMean = mean;
      }
    } else {
      if (!Double.isNaN(lowL) && lnL <= lowL) {
        lowL = Double.NaN;
      }
      if (Double.isNaN(highL) || lnL <= highL) {
        highL = lnL;
        highMean = mean;
      }
    }
  }

  /** A move up ({@code 1}) or down ({@code -1}): one in the other direction than the last crosses the target. */
  void move(int direction) {
    crossings += lastDirection != 0 && direction != lastDirection ? 1 : 0;
    lastDirection = direction;
  }

  boolean bracketed() {
    return !Double.isNaN(lowL) && !Double.isNaN(highL);
  }

  /** The moves have cycled around the target, and both ends are known. */
  private boolean cycling() {
    return crossings >= LogNewtonLaw.CYCLE && bracketed();
  }

  /** The target lies on a step the plant cannot stop on: the ends are too close to tell apart. */
  boolean onAStep() {
    return cycling() && (highL - lowL < LogNewtonLaw.MIN_BRACKET || Math.exp(highL) - Math.exp(lowL) < 1);
  }

  /** The plant changed: what the bracket says about it is stale. */
  void forget() {
    lowL = Double.NaN;
    highL = Double.NaN;
    crossings = 0;
    lastDirection = 0;
  }

  /**
   * A proposal at or beyond an end of the bracket repeats what is known to miss: the plant is not
   * the curve the elasticity assumes there, so the bracket's middle is tried instead.
   */
  double inBracket(double lnL) {
    if (cycling() && (lnL <= lowL || lnL >= highL)) {
      return (lowL + highL) / 2;
    }
    return lnL;
  }

  double lowL() {
    return lowL;
  }

  double lowMean() {
    return lowMean;
  }

  double highL() {
    return highL;
  }

  double highMean() {
    return highMean;
  }
}
