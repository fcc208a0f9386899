// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/verify/stats.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/src/errors.h"

namespace blockbloom {
namespace {

using detail::Invalid;

// Lentz's method guards: a value this small stands in for 0 in a denominator
// (Numerical Recipes' FPMIN), and the fraction stops when a step changes it by
// less than kCfEpsilon (a few ulps of a double).
constexpr double kCfTiny = 1e-300;
constexpr double kCfEpsilon = 1e-15;
// The fraction converges in O(sqrt(max(a, b))) steps when x < (a+1)/(a+b+2)
// (the caller swaps to make it so): 10^6 steps covers a, b up to 10^12.
constexpr int kCfMaxSteps = 1'000'000;

// The continued fraction of I_x(a, b) (Numerical Recipes, betacf):
//   I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * 1/(1+ d1/(1+ d2/(1+ ...)))
//   d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),  d_{2m} = m (b-m) x / ((a+2m-1)(a+2m)).
double BetaContinuedFraction(double a, double b, double x) {
  auto guard = [](double v) { return std::fabs(v) < kCfTiny ? kCfTiny : v; };
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 / guard(1.0 - qab * x / qap);
  double h = d;
  for (int m = 1; m <= kCfMaxSteps; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 / guard(1.0 + aa * d);
    c = guard(1.0 + aa / c);
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 / guard(1.0 + aa * d);
    c = guard(1.0 + aa / c);
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < kCfEpsilon) return h;
  }
  return h;  // not converged within kCfMaxSteps: the best estimate so far
}

// Bisection for the q-quantile of an increasing function F on [lo, hi].
template <typename F>
double Bisect(F&& f, double q, double lo, double hi, int steps) {
  for (int i = 0; i < steps; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (f(mid) < q) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

// Bisection steps for a quantile in [0, 1]: 2^-80 is far below any rate measured.
constexpr int kQuantileSteps = 80;

double CheckConfidence(double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0))
    Invalid("confidence = " + std::to_string(confidence) + " is out of range: expected 0 < confidence < 1");
  return 1.0 - confidence;
}

}  // namespace

double RegularizedIncompleteBeta(double a, double b, double x) {
  if (!(a > 0.0) || !(b > 0.0) || !(x >= 0.0 && x <= 1.0))
    Invalid("incomplete beta: expected a > 0, b > 0 and 0 <= x <= 1, got a = " + std::to_string(a) +
            ", b = " + std::to_string(b) + ", x = " + std::to_string(x));
  if (x == 0.0 || x == 1.0) return x;
  // x^a (1-x)^b / B(a, b), in log space so that a, b up to 1e12 do not overflow.
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  // Symmetry I_x(a, b) = 1 - I_{1-x}(b, a) keeps the fraction in its fast region.
  if (x < (a + 1.0) / (a + b + 2.0)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1.0 - front * BetaContinuedFraction(b, a, 1.0 - x) / b;
}

double BinomialCdf(uint64_t x, uint64_t trials, double p) {
  if (!(p >= 0.0 && p <= 1.0)) Invalid("binomial rate p = " + std::to_string(p) + " is out of range: expected 0..1");
  if (x >= trials || p == 0.0) return 1.0;
  if (p == 1.0) return 0.0;
  // P(X <= x) = I_{1-p}(N - x, x + 1): both sides count the ways the (x+1)-th
  // success comes after trial N.
  return RegularizedIncompleteBeta(static_cast<double>(trials - x), static_cast<double>(x) + 1.0, 1.0 - p);
}

double NormalQuantile(double q) {
  if (!(q > 0.0 && q < 1.0)) Invalid("normal quantile q = " + std::to_string(q) + " is out of range: expected 0 < q < 1");
  // Phi(z) = erfc(-z / sqrt 2) / 2; |z| <= 40 covers every double q in (0, 1).
  constexpr double kZMax = 40.0;
  constexpr int kSteps = 100;  // 80 / 2^100: exact to double precision
  return Bisect([](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }, q, -kZMax, kZMax, kSteps);
}

CountInterval BinomialAcceptance(uint64_t trials, double p, double confidence) {
  const double alpha = CheckConfidence(confidence);
  if (!(p >= 0.0 && p <= 1.0)) Invalid("binomial rate p = " + std::to_string(p) + " is out of range: expected 0..1");
  // The smallest count c with cdf(c) >= target, by bisection over [0, trials].
  auto first_count_reaching = [&](double target, bool strict) {
    uint64_t lo = 0, hi = trials;  // cdf(trials) = 1 reaches any target
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      const double c = BinomialCdf(mid, trials, p);
      if (strict ? c > target : c >= target) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  };
  // lo: the smallest c with P(X <= c) > alpha/2, so P(X < lo) <= alpha/2.
  // hi: the smallest c with P(X <= c) >= 1 - alpha/2, so P(X > hi) <= alpha/2.
  return {first_count_reaching(alpha / 2, true), first_count_reaching(1.0 - alpha / 2, false)};
}

RateInterval ClopperPearson(uint64_t hits, uint64_t trials, double confidence) {
  const double alpha = CheckConfidence(confidence);
  if (trials == 0) return {0.0, 1.0};
  if (hits > trials) Invalid("hits = " + std::to_string(hits) + " exceed trials = " + std::to_string(trials));
  const double x = static_cast<double>(hits), n = static_cast<double>(trials);
  // The Beta(a, b) CDF at p is I_p(a, b); its quantiles bound the rate.
  auto beta_quantile = [](double q, double a, double b) {
    return Bisect([&](double p) { return RegularizedIncompleteBeta(a, b, p); }, q, 0.0, 1.0, kQuantileSteps);
  };
  const double lo = hits == 0 ? 0.0 : beta_quantile(alpha / 2, x, n - x + 1.0);
  const double hi = hits == trials ? 1.0 : beta_quantile(1.0 - alpha / 2, x + 1.0, n - x);
  return {lo, hi};
}

uint64_t ProbesForRelativeHalfWidth(double p, double relative, double confidence) {
  const double alpha = CheckConfidence(confidence);
  if (!(p > 0.0 && p < 1.0)) Invalid("rate p = " + std::to_string(p) + " is out of range: expected 0 < p < 1");
  if (!(relative > 0.0)) Invalid("relative half-width = " + std::to_string(relative) + " is out of range: expected > 0");
  const double z = NormalQuantile(1.0 - alpha / 2);
  return static_cast<uint64_t>(std::ceil((z / relative) * (z / relative) * (1.0 - p) / p));
}

FprCheck CheckFpr(uint64_t hits, uint64_t trials, double predicted, double confidence) {
  FprCheck c;
  c.trials = trials;
  c.hits = hits;
  c.predicted = predicted;
  c.accept = BinomialAcceptance(trials, predicted, confidence);
  c.measured = ClopperPearson(hits, trials, confidence);
  c.pass = hits >= c.accept.lo && hits <= c.accept.hi;
  return c;
}

}  // namespace blockbloom
