// SPDX-License-Identifier: Apache-2.0
// Binomial statistics for holding measured false-positive rates against the
// model: the one place the verifier (`blockbloom verify`) and the tests get
// their intervals from.
//
// A false-positive measurement is N independent probes of absent keys, each a
// hit with the model's probability p, so the hit count X ~ Binomial(N, p).
//  * Acceptance interval of the model (what the tests and verify check): the
//    counts [lo, hi] with P(X < lo) <= alpha/2 and P(X > hi) <= alpha/2,
//    alpha = 1 - confidence, computed from the exact binomial CDF
//      P(X <= x) = I_{1-p}(N - x, x + 1)
//    (I = the regularized incomplete beta function). A correct model fails it
//    with probability at most alpha.
//  * Clopper-Pearson interval of a measured count x (what is reported): the
//    exact confidence interval for p, [B(alpha/2; x, N-x+1), B(1-alpha/2; x+1, N-x)]
//    with B(q; a, b) the q-quantile of the Beta(a, b) distribution.
//  * Probes needed for a relative half-width r: the normal approximation of the
//    interval has half-width z sqrt(p (1-p) / N), so N = (z / r)^2 (1 - p) / p,
//    z = the standard normal's (1 + confidence)/2 quantile (3.89 for 99.99%).
#ifndef BLOCKBLOOM_VERIFY_STATS_H_
#define BLOCKBLOOM_VERIFY_STATS_H_

#include <cstdint>

namespace blockbloom {

// I_x(a, b), a > 0, b > 0, 0 <= x <= 1 (continued fraction, Lentz's method;
// relative accuracy ~1e-12 for a, b up to 1e9). Throws std::invalid_argument
// for arguments out of range.
double RegularizedIncompleteBeta(double a, double b, double x);

// P(X <= x) for X ~ Binomial(trials, p).
double BinomialCdf(uint64_t x, uint64_t trials, double p);

// The standard normal quantile: Phi^-1(q), 0 < q < 1.
double NormalQuantile(double q);

struct CountInterval {
  uint64_t lo, hi;  // inclusive hit counts
};
// The acceptance interval of Binomial(trials, p) at `confidence` (e.g. 0.9999):
// see the header comment. Throws std::invalid_argument for p outside [0, 1] or
// confidence outside (0, 1).
CountInterval BinomialAcceptance(uint64_t trials, double p, double confidence);

struct RateInterval {
  double lo, hi;
};
// The Clopper-Pearson interval for the rate given `hits` of `trials`.
RateInterval ClopperPearson(uint64_t hits, uint64_t trials, double confidence);

// Probes for which the acceptance interval of rate p has a half-width of at
// most `relative` * p (normal approximation; see the header comment).
uint64_t ProbesForRelativeHalfWidth(double p, double relative, double confidence);

// The outcome of holding one measurement against the model.
struct FprCheck {
  uint64_t trials = 0;      // absent-key probes
  uint64_t hits = 0;        // false positives among them
  double predicted = 0;     // the model's rate
  CountInterval accept{};   // the model's acceptance interval (counts)
  RateInterval measured{};  // Clopper-Pearson interval of the measurement
  bool pass = false;        // accept.lo <= hits <= accept.hi
  double rate() const { return trials ? static_cast<double>(hits) / static_cast<double>(trials) : 0.0; }
};
FprCheck CheckFpr(uint64_t hits, uint64_t trials, double predicted, double confidence);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_VERIFY_STATS_H_
