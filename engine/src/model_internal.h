// SPDX-License-Identifier: Apache-2.0
// The pieces of the engine's false-positive model (engine/src/model.cc) that
// another block filter reuses: the "k bits anywhere in B" block rate, the
// probe-word collision term, and the capped binomial mixture over block loads.
// The blocked counting filter (garden/src/blocked_counting.cc) is the
// same model with B = 128 counters; sharing it keeps one copy of the overflow-
// safe mixture and of its bound on the walk (model.h, "Totality").
#ifndef BLOCKBLOOM_ENGINE_MODEL_INTERNAL_H_
#define BLOCKBLOOM_ENGINE_MODEL_INTERNAL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "blockbloom/model.h"

namespace blockbloom::detail {

// The "k bits anywhere in B" block rate, from what the kernel does: each of
// the i keys in the block throws k uniform probes (t = i k throws, coincidences
// allowed), and the query's k probes cover j distinct bits with probability
//   d_j = S(k, j) B (B-1) ... (B-j+1) / B^k   (Stirling numbers of the 2nd kind).
// j given bits are all set after t throws with probability (inclusion-exclusion)
//   A_j(t) = sum_l (-1)^l C(j, l) (1 - l/B)^t,
// so f_block(i) = sum_j d_j A_j(ik) = sum_l c_l (1 - l/B)^(ik) with
//   c_l = (-1)^l sum_{j >= l} d_j C(j, l),
// k + 1 powers per load instead of k^2. The alternating sum cancels: its
// absolute error is ~1e-16 * max|c_l| <= 1e-16 * C(16, 8) ~ 1e-12, far below
// any rate a filter is sized for.
class AnywhereBlock {
 public:
  AnywhereBlock(uint32_t k, uint32_t block_bits) : k_(k), B_(block_bits), c_(k + 1, 0.0), log_r_(k + 1, 0.0) {
    // d_j by a recurrence over probes: after p probes with j distinct bits, the
    // next is new with probability (B - j)/B.
    std::vector<double> d(k + 1, 0.0);
    d[0] = 1.0;
    for (uint32_t probe = 0; probe < k; ++probe) {
      for (uint32_t j = probe + 1; j > 0; --j) {
        d[j] = d[j] * static_cast<double>(j) / B_ + d[j - 1] * static_cast<double>(B_ - (j - 1)) / B_;
      }
      d[0] = 0.0;
    }
    for (uint32_t l = 0; l <= k; ++l) {
      double sum = 0.0;
      double binom = 1.0;  // C(j, l), starting at j = l
      for (uint32_t j = l; j <= k; ++j) {
        sum += d[j] * binom;
        binom = binom * (j + 1) / (j + 1 - l);
      }
      c_[l] = (l % 2 == 0) ? sum : -sum;
      log_r_[l] = std::log1p(-static_cast<double>(l) / B_);
    }
  }

  double operator()(uint64_t i) const {
    if (i == 0) return 0.0;
    const double t = static_cast<double>(i) * k_;
    double f = 0.0;
    for (uint32_t l = 0; l <= k_; ++l) f += c_[l] * std::exp(t * log_r_[l]);
    // Where cancellation leaves nothing meaningful (f below ~1e-12), fall back
    // on the textbook form (1 - (1 - 1/B)^t)^k: it omits the query's own
    // coincidences (a few percent) and is never negative.
    if (!(f > kCancellationFloor)) f = std::pow(-std::expm1(t * log_r_[1]), k_);
    return std::min(f, 1.0);
  }

 private:
  // Below this the alternating sum is dominated by rounding (see above).
  static constexpr double kCancellationFloor = 1e-11;
  uint32_t k_, B_;
  std::vector<double> c_, log_r_;
};

// 2^-32: the chance two uniform 32-bit probe words are equal.
inline constexpr double kTwoPowMinus32 = 1.0 / 4294967296.0;

// Hash width: the probe bits come from the low 32 bits of the hash only, so an
// absent key whose low 32 bits equal one of the block's i keys' collides on
// every probe; otherwise it sees the block rate f:
//   f <- f + (1 - f) (1 - (1 - 2^-32)^i).
inline double WithProbeWordCollisions(double f, uint64_t i) {
  const double width = -std::expm1(static_cast<double>(i) * std::log1p(-kTwoPowMinus32));
  return f + (1.0 - f) * width;
}

// The mixtures stop where a load's probability falls below e^-100 (~4e-44)
// times the mode's: the tail beyond decays at least geometrically, so what is
// left out is below 1e-40 of the total weight, and f_block <= 1.
inline constexpr double kMixtureLogCutoff = 100.0;

// The limit form (model.h, "Totality"): from this mean load on, the mixture is
// 1 to double precision, and the walk (~28 sd = 28 sqrt(load) terms) is skipped.
inline constexpr double kSaturatedLoad = 65536.0;

// Sums g(i) * Binomial(i; n, p) over the loads that matter, in log space from
// the mode outward, normalized by the summed probability. The walk needs only
// the ratios of neighbouring probabilities, so the mode's own log-probability
// is taken as 0 (no lgamma of n: at n ~ 10^17 its rounding alone, ~500 in the
// exponent, overflowed exp). Its length is at most 2 (40 sd + 50) + 1 terms and
// sd < 256 below kSaturatedLoad.
template <typename G>
double BinomialMixture(uint64_t n, double p, G&& g) {
  if (p >= 1.0) return g(n);
  const double nd = static_cast<double>(n);
  const double q = 1.0 - p;
  const double mean = nd * p;
  const double sd = std::sqrt(std::max(mean * q, 1e-300));
  const double mode_d = std::floor((nd + 1.0) * p);
  const uint64_t mode = mode_d >= nd ? n : static_cast<uint64_t>(mode_d);
  const double log_ratio = std::log(p) - std::log1p(-p);
  // A backstop on the walk's length: the cutoff is reached within ~15 sd.
  const double span = 40.0 * sd + 50.0;
  constexpr double log_mode = 0.0;
  double total = 0.0, weight_sum = 0.0;
  // Upward from the mode.
  double lp = log_mode;
  for (uint64_t i = mode;; ++i) {
    const double w = std::exp(lp);
    total += w * g(i);
    weight_sum += w;
    if (i >= n || static_cast<double>(i - mode) > span) break;
    // P(i+1)/P(i) = (n - i)/(i + 1) * p/q
    lp += std::log((nd - static_cast<double>(i)) / (static_cast<double>(i) + 1.0)) + log_ratio;
    if (lp < log_mode - kMixtureLogCutoff) break;
  }
  // Downward from the mode.
  lp = log_mode;
  for (uint64_t i = mode; i > 0;) {
    // P(i-1)/P(i) = i / (n - i + 1) * q/p
    lp += std::log(static_cast<double>(i) / (nd - static_cast<double>(i) + 1.0)) - log_ratio;
    --i;
    if (lp < log_mode - kMixtureLogCutoff || static_cast<double>(mode - i) > span) break;
    const double w = std::exp(lp);
    total += w * g(i);
    weight_sum += w;
  }
  return weight_sum > 0.0 ? total / weight_sum : 0.0;
}

// E[g(load)] for a block every key lands in with probability p, the limit form
// (1) from kSaturatedLoad keys per block on: g must be a block rate that is 1
// to double precision at that load (every "k bits anywhere" block of at most
// 512 bits is). At most ~2 (40 sd + 50) + 1 = 20,600 evaluations of g.
template <typename G>
double LoadedBlockMixture(uint64_t n, double p, G&& g) {
  if (static_cast<double>(n) * p >= kSaturatedLoad) return 1.0;
  return BinomialMixture(n, p, g);
}

// The kernels pick the block from the hash's high 32 bits (kernels::BlockIndex,
// the garden's counting kernels too).
inline constexpr unsigned kBlockSelectBits = 32;

// The blocked rate with block index (h * b) >> w for h uniform on 2^w values
// (model.h, "Block selection"): two classes of blocks (CountBlockClasses),
// each a LoadedBlockMixture of the block rate g at its own landing chance.
template <typename G>
double SelectedBlocksMixture(const G& g, uint64_t num_blocks, uint64_t n, unsigned select_bits) {
  const BlockClasses cls = CountBlockClasses(num_blocks, select_bits);
  const double values = std::ldexp(1.0, static_cast<int>(select_bits));
  const double c = static_cast<double>(cls.values_per_block);
  const double p_small = c / values, p_big = (c + 1.0) / values;
  const double small_blocks = static_cast<double>(num_blocks - cls.big_blocks);
  const double big_blocks = static_cast<double>(cls.big_blocks);
  // Weights: the chance the query's block is in the class = blocks x p; they sum to 1.
  double f = small_blocks * p_small * LoadedBlockMixture(n, p_small, g);
  if (cls.big_blocks > 0) f += big_blocks * p_big * LoadedBlockMixture(n, p_big, g);
  return std::clamp(f, 0.0, 1.0);
}

}  // namespace blockbloom::detail

#endif  // BLOCKBLOOM_ENGINE_MODEL_INTERNAL_H_
