#include "blockbloom/model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/layout.h"

namespace blockbloom {
namespace {

[[noreturn]] void Invalid(const std::string& msg) { throw std::invalid_argument("blockbloom: " + msg); }

uint64_t MaxBlocks(Layout l) { return l == Layout::kClassic ? kernels::kMaxClassicBits : kernels::kMaxBlocks; }

void CheckShape(Layout layout, uint64_t num_blocks, uint32_t k) {
  if (!LayoutAcceptsK(layout, k))
    Invalid("k = " + std::to_string(k) + " is out of range for layout " + std::string(LayoutName(layout)));
  if (num_blocks == 0 || num_blocks > MaxBlocks(layout))
    Invalid("number of blocks = " + std::to_string(num_blocks) + " is out of range for layout " +
            std::string(LayoutName(layout)) + ": expected 1.." + std::to_string(MaxBlocks(layout)));
}

// 2^-32: the chance two uniform 32-bit probe words are equal.
constexpr double kTwoPowMinus32 = 1.0 / 4294967296.0;

// P(the query's k probes, uniform over B bits, hit exactly j distinct bits), j = 0..k:
// S(k, j) * B (B-1) ... (B-j+1) / B^k.
std::vector<double> DistinctProbeDistribution(uint32_t k, uint32_t B) {
  // Recurrence over probes: after p probes with j distinct, the next is new
  // with probability (B - j)/B.
  std::vector<double> p(k + 1, 0.0);
  p[0] = 1.0;
  for (uint32_t probe = 0; probe < k; ++probe) {
    std::vector<double> q(k + 1, 0.0);
    for (uint32_t j = 0; j <= probe; ++j) {
      if (p[j] == 0.0) continue;
      q[j] += p[j] * static_cast<double>(j) / B;
      q[j + 1] += p[j] * static_cast<double>(B - j) / B;
    }
    p.swap(q);
  }
  return p;
}

// P(j given bits are all set after t uniform throws into B bits) =
// sum_l (-1)^l C(j, l) (1 - l/B)^t.
double AllSetProbability(uint32_t j, uint32_t B, double t) {
  double sum = 0.0, binom = 1.0;
  for (uint32_t l = 0; l <= j; ++l) {
    const double term = binom * std::exp(t * std::log1p(-static_cast<double>(l) / B));
    sum += (l % 2 == 0) ? term : -term;
    binom = binom * (j - l) / (l + 1);
  }
  return std::clamp(sum, 0.0, 1.0);
}

double AnywhereBlockFpr(uint32_t k, uint32_t B, uint64_t i) {
  if (i == 0) return 0.0;
  const std::vector<double> distinct = DistinctProbeDistribution(k, B);
  const double t = static_cast<double>(i) * k;
  double f = 0.0;
  for (uint32_t j = 1; j <= k; ++j) {
    if (distinct[j] > 0.0) f += distinct[j] * AllSetProbability(j, B, t);
  }
  // Where cancellation leaves nothing meaningful, fall back on the textbook
  // form, which is within a few percent and never negative.
  if (!(f > 0.0)) f = std::pow(-std::expm1(t * std::log1p(-1.0 / B)), k);
  return f;
}

// One bit per zone of `zone_bits`, `zones` zones: (1 - (1 - 1/zone_bits)^i)^zones.
double ZonedBlockFpr(uint32_t zones, uint32_t zone_bits, uint64_t i) {
  const double set = -std::expm1(static_cast<double>(i) * std::log1p(-1.0 / zone_bits));
  return std::pow(set, zones);
}

double BlockFprNoWidth(Layout layout, uint32_t k, uint64_t i) {
  switch (layout) {
    case Layout::kBlocked512: return AnywhereBlockFpr(k, 512, i);
    case Layout::kRegister64: return AnywhereBlockFpr(k, 64, i);
    case Layout::kSplit256: return ZonedBlockFpr(8, 32, i);
    case Layout::kSectorized512: return ZonedBlockFpr(k, 512 / k, i);
    case Layout::kClassic: break;
  }
  return 0.0;
}

// Sums g(i) * Binomial(i; n, p) over the loads that matter, in log space from
// the mode outward, normalizing by the summed probability so that the lgamma
// error at the mode cancels.
template <typename G>
double BinomialMixture(uint64_t n, double p, G&& g) {
  const double nd = static_cast<double>(n);
  const double q = 1.0 - p;
  const double mean = nd * p;
  const double sd = std::sqrt(std::max(mean * q, 1e-300));
  const uint64_t mode = std::min<uint64_t>(n, static_cast<uint64_t>(std::floor((nd + 1.0) * p)));
  const double log_ratio = std::log(p) - std::log1p(-p);
  const double span = 40.0 * sd + 50.0;  // ~exp(-800) beyond: nothing left
  const double log_mode = std::lgamma(nd + 1.0) - std::lgamma(static_cast<double>(mode) + 1.0) -
                          std::lgamma(nd - static_cast<double>(mode) + 1.0) +
                          static_cast<double>(mode) * std::log(p) + (nd - static_cast<double>(mode)) * std::log1p(-p);
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
    if (lp < log_mode - 745.0) break;
  }
  // Downward from the mode.
  lp = log_mode;
  for (uint64_t i = mode; i > 0;) {
    // P(i-1)/P(i) = i / (n - i + 1) * q/p
    lp += std::log(static_cast<double>(i) / (nd - static_cast<double>(i) + 1.0)) - log_ratio;
    --i;
    if (lp < log_mode - 745.0 || static_cast<double>(mode - i) > span) break;
    const double w = std::exp(lp);
    total += w * g(i);
    weight_sum += w;
  }
  return weight_sum > 0.0 ? total / weight_sum : 0.0;
}

}  // namespace

double ClassicFprExact(double m, double n, double k) {
  return std::pow(-std::expm1(k * n * std::log1p(-1.0 / m)), k);
}
double ClassicFprApprox(double m, double n, double k) { return std::pow(-std::expm1(-k * n / m), k); }
double ClassicOptimalK(double m, double n) { return m / n * std::log(2.0); }
double ClassicBitsForFpr(double n, double p) { return -n * std::log(p) / (std::log(2.0) * std::log(2.0)); }

double BlockFpr(Layout layout, uint32_t k, uint64_t i) {
  const double f = BlockFprNoWidth(layout, k, i);
  const double width = -std::expm1(static_cast<double>(i) * std::log1p(-kTwoPowMinus32));
  return f + (1.0 - f) * width;
}

double PredictFpr(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n) {
  CheckShape(layout, num_blocks, k);
  if (n == 0) return 0.0;
  if (layout == Layout::kClassic) {
    // Probes come from the full 64-bit hash: equal hashes (n 2^-64) are negligible.
    return ClassicFprExact(static_cast<double>(num_blocks), static_cast<double>(n), k);
  }
  if (num_blocks == 1) return BlockFpr(layout, k, n);
  // The blocked sum needs BlockFpr(i) for i near n/b: cache it by i in a small
  // window since the k-dependent tables are rebuilt per call otherwise.
  const double p = 1.0 / static_cast<double>(num_blocks);
  if (layout == Layout::kBlocked512 || layout == Layout::kRegister64) {
    const uint32_t B = layout == Layout::kBlocked512 ? 512 : 64;
    const std::vector<double> distinct = DistinctProbeDistribution(k, B);
    auto g = [&](uint64_t i) {
      double f = 0.0;
      if (i > 0) {
        const double t = static_cast<double>(i) * k;
        for (uint32_t j = 1; j <= k; ++j) {
          if (distinct[j] > 0.0) f += distinct[j] * AllSetProbability(j, B, t);
        }
        if (!(f > 0.0)) f = std::pow(-std::expm1(t * std::log1p(-1.0 / B)), k);
      }
      const double width = -std::expm1(static_cast<double>(i) * std::log1p(-kTwoPowMinus32));
      return f + (1.0 - f) * width;
    };
    return BinomialMixture(n, p, g);
  }
  return BinomialMixture(n, p, [&](uint64_t i) { return BlockFpr(layout, k, i); });
}

FilterParams SolveForSize(Layout layout, uint64_t num_blocks, uint64_t n) {
  FilterParams best{layout, num_blocks, 0, 0, 2.0};
  const uint64_t block_bits = LayoutBlockBits(layout);
  for (uint32_t k = LayoutMinK(layout); k <= LayoutMaxK(layout); ++k) {
    if (!LayoutAcceptsK(layout, k)) continue;
    const double f = PredictFpr(layout, num_blocks, k, n);
    if (f < best.fpr) best = {layout, num_blocks, k, num_blocks * block_bits, f};
  }
  return best;
}

FilterParams SolveForKeys(Layout layout, uint64_t n, double fpr) {
  if (n == 0) Invalid("expected keys = 0 is out of range: expected at least 1");
  if (!(fpr > 0.0 && fpr < 1.0))
    Invalid("false-positive rate = " + std::to_string(fpr) + " is out of range: expected 0 < rate < 1");
  const uint64_t block_bits = LayoutBlockBits(layout);
  const uint64_t max_blocks = MaxBlocks(layout);
  bool found = false;
  FilterParams best{layout, 0, 0, 0, 1.0};
  for (uint32_t k = LayoutMinK(layout); k <= LayoutMaxK(layout); ++k) {
    if (!LayoutAcceptsK(layout, k)) continue;
    // The rate falls as blocks grow: find the smallest count meeting fpr by
    // doubling, then bisection. Start from the classic estimate / 4.
    const double est_bits = std::max(1.0, ClassicBitsForFpr(static_cast<double>(n), fpr) / 4.0);
    uint64_t hi = std::max<uint64_t>(1, static_cast<uint64_t>(est_bits / block_bits));
    hi = std::min(hi, max_blocks);
    while (PredictFpr(layout, hi, k, n) > fpr) {
      if (hi == max_blocks) break;
      hi = std::min(max_blocks, hi * 2);
    }
    const double f_hi = PredictFpr(layout, hi, k, n);
    if (f_hi > fpr) continue;  // this k cannot reach fpr within the limits
    uint64_t lo = hi / 2;      // lo fails or is 0
    if (lo > 0 && PredictFpr(layout, lo, k, n) <= fpr) lo = 0;  // doubling started below: search all
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (PredictFpr(layout, mid, k, n) <= fpr) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    const uint64_t bits = hi * block_bits;
    if (!found || bits < best.bits) {
      best = {layout, hi, k, bits, PredictFpr(layout, hi, k, n)};
      found = true;
    }
  }
  if (!found)
    Invalid("false-positive rate = " + std::to_string(fpr) + " for " + std::to_string(n) +
            " keys is out of reach for layout " + std::string(LayoutName(layout)) +
            " within its size limit");
  return best;
}

uint64_t Capacity(Layout layout, uint64_t num_blocks, uint32_t k, double fpr) {
  CheckShape(layout, num_blocks, k);
  if (!(fpr > 0.0 && fpr < 1.0))
    Invalid("false-positive rate = " + std::to_string(fpr) + " is out of range: expected 0 < rate < 1");
  if (PredictFpr(layout, num_blocks, k, 1) > fpr) return 0;
  uint64_t lo = 1, hi = 2;
  const uint64_t limit = uint64_t{1} << 50;
  while (hi < limit && PredictFpr(layout, num_blocks, k, hi) <= fpr) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (PredictFpr(layout, num_blocks, k, mid) <= fpr) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace blockbloom
