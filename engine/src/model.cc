// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include "engine/src/errors.h"
#include "engine/src/model_internal.h"


namespace blockbloom {
namespace {

using detail::AnywhereBlock;
using detail::Invalid;
using detail::kMixtureLogCutoff;
using detail::kTwoPowMinus32;

uint64_t MaxBlocks(Layout l) { return Traits(l).max_blocks; }

// The layout's own checks (layout.h): k, and the block count (classic: bits).
void CheckShape(Layout layout, uint64_t num_blocks, uint32_t k) {
  CheckLayoutK(layout, k);
  CheckLayoutBlocks(layout, num_blocks);
}

// A rate for a message: "0.01", "1e-06", never "0.000000".
std::string FormatRate(double rate) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", rate);
  return buf;
}

// 2^-64: the chance two uniform 64-bit hashes are equal.
constexpr double kTwoPowMinus64 = kTwoPowMinus32 * kTwoPowMinus32;

// One bit per zone of `zone_bits`, `zones` zones: (1 - (1 - 1/zone_bits)^i)^zones.
double ZonedBlockFpr(uint32_t zones, uint32_t zone_bits, uint64_t i) {
  const double set = -std::expm1(static_cast<double>(i) * std::log1p(-1.0 / zone_bits));
  return std::pow(set, zones);
}

// f_block(i) of one (layout, k), hash-width term included: the per-block rate
// the mixture below averages over block loads. The layout's ProbeSpread
// (layout.h) says which: k probes anywhere in the block's bits, or one bit in
// each of k zones of block_bits / k bits.
class BlockModel {
 public:
  BlockModel(Layout layout, uint32_t k)
      : spread_(Traits(layout).spread), k_(k), zone_bits_(Traits(layout).block_bits / k),
        anywhere_(k, Traits(layout).block_bits) {}

  double operator()(uint64_t i) const {
    double f = 0.0;
    switch (spread_) {  // no default: a new ProbeSpread fails the build here (-Wswitch)
      case ProbeSpread::kAnywhere: f = anywhere_(i); break;
      case ProbeSpread::kOnePerZone: f = ZonedBlockFpr(k_, zone_bits_, i); break;
    }
    // Hash width: the probe words' collisions (detail::WithProbeWordCollisions).
    return detail::WithProbeWordCollisions(f, i);
  }

 private:
  ProbeSpread spread_;
  uint32_t k_;
  uint32_t zone_bits_;
  AnywhereBlock anywhere_;  // the kAnywhere layouts only
};

}  // namespace

BlockClasses CountBlockClasses(uint64_t num_blocks, unsigned select_bits) {
  if (select_bits == 0 || select_bits > 32 || num_blocks == 0 || num_blocks > (uint64_t{1} << select_bits))
    Invalid("block selection: expected 1 <= select_bits <= 32 and 1 <= blocks <= 2^select_bits, got select_bits = " +
            std::to_string(select_bits) + ", blocks = " + std::to_string(num_blocks));
  const uint64_t values = uint64_t{1} << select_bits;
  const uint64_t c = values / num_blocks;
  return {c, values - num_blocks * c};
}

namespace detail {
double PredictBlockedFprSelecting(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n, unsigned select_bits) {
  if (layout == Layout::kClassic) Invalid("PredictBlockedFprSelecting: layout classic has no blocks");
  CheckShape(layout, 1, k);
  if (n == 0) return 0.0;
  return detail::SelectedBlocksMixture(BlockModel(layout, k), num_blocks, n, select_bits);
}
}  // namespace detail

double PredictFprUniformBlocks(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n) {
  CheckShape(layout, num_blocks, k);
  if (n == 0) return 0.0;
  if (layout == Layout::kClassic) return PredictFpr(layout, num_blocks, k, n);
  return std::clamp(detail::LoadedBlockMixture(n, 1.0 / static_cast<double>(num_blocks), BlockModel(layout, k)), 0.0, 1.0);
}

double ClassicFprExact(double m, double n, double k) {
  return std::pow(-std::expm1(k * n * std::log1p(-1.0 / m)), k);
}
double ClassicFprApprox(double m, double n, double k) { return std::pow(-std::expm1(-k * n / m), k); }
double ClassicOptimalK(double m, double n) { return m / n * std::log(2.0); }
double ClassicBitsForFpr(double n, double p) { return -n * std::log(p) / (std::log(2.0) * std::log(2.0)); }

double BlockFpr(Layout layout, uint32_t k, uint64_t i) {
  if (layout == Layout::kClassic) Invalid("BlockFpr: layout classic has no blocks");
  CheckShape(layout, 1, k);
  return BlockModel(layout, k)(i);
}

double PredictFpr(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n) {
  CheckShape(layout, num_blocks, k);
  if (n == 0) return 0.0;
  if (layout == Layout::kClassic) {
    // Probes come from the full 64-bit hash: an absent key with an inserted
    // key's hash (chance 1 - (1 - 2^-64)^n) collides on every probe; the
    // 64-bit probe index's non-uniformity is below double precision (model.h).
    const double f = ClassicDoubleHashingFpr(num_blocks, k, static_cast<double>(n));
    const double same_hash = -std::expm1(static_cast<double>(n) * std::log1p(-kTwoPowMinus64));
    return std::clamp(f + (1.0 - f) * same_hash, 0.0, 1.0);
  }
  return detail::SelectedBlocksMixture(BlockModel(layout, k), num_blocks, n, detail::kBlockSelectBits);
}

double TextbookBlockedFpr(uint32_t block_bits, uint32_t k, double bits_per_key) {
  if (block_bits == 0 || k == 0 || !(bits_per_key > 0.0))
    Invalid("TextbookBlockedFpr: expected block_bits > 0, k > 0 and bits_per_key > 0");
  // Poisson(lambda) loads, lambda = B / (m/n) keys per block, summed outward
  // from the mode in log space like the binomial mixture.
  const double lambda = block_bits / bits_per_key;
  const double per_throw = std::log1p(-1.0 / block_bits);
  const auto mode = static_cast<uint64_t>(std::floor(lambda));
  const double log_mode = static_cast<double>(mode) * std::log(lambda) - lambda - std::lgamma(static_cast<double>(mode) + 1.0);
  auto f = [&](uint64_t i) { return std::pow(-std::expm1(static_cast<double>(i * k) * per_throw), k); };
  double total = 0.0;
  double lp = log_mode;
  for (uint64_t i = mode; lp > log_mode - kMixtureLogCutoff; ++i) {
    total += std::exp(lp) * f(i);
    lp += std::log(lambda / static_cast<double>(i + 1));
  }
  lp = log_mode;
  for (uint64_t i = mode; i > 0;) {
    lp += std::log(static_cast<double>(i) / lambda);
    --i;
    if (lp < log_mode - kMixtureLogCutoff) break;
    total += std::exp(lp) * f(i);
  }
  return total;
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

std::optional<uint64_t> BlocksForKeys(Layout layout, uint32_t k, uint64_t n, double fpr) {
  const uint64_t block_bits = LayoutBlockBits(layout);
  const uint64_t max_blocks = MaxBlocks(layout);
  // The rate falls as blocks grow: find the smallest count meeting fpr by
  // doubling, then bisection. Start from the classic estimate / 4.
  const double est_blocks = std::max(1.0, ClassicBitsForFpr(static_cast<double>(n), fpr) / 4.0) /
                            static_cast<double>(block_bits);
  uint64_t hi = est_blocks >= static_cast<double>(max_blocks) ? max_blocks
                                                               : std::max<uint64_t>(1, static_cast<uint64_t>(est_blocks));
  while (PredictFpr(layout, hi, k, n) > fpr) {
    if (hi == max_blocks) break;
    hi = std::min(max_blocks, hi * 2);
  }
  const double f_hi = PredictFpr(layout, hi, k, n);
  if (f_hi > fpr) return std::nullopt;  // this k cannot reach fpr within the limits
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
  return hi;
}

FilterParams SolveForKeys(Layout layout, uint64_t n, double fpr) {
  if (n == 0) Invalid("expected keys = 0 is out of range: expected at least 1");
  if (!(fpr > 0.0 && fpr < 1.0))
    Invalid("false-positive rate = " + FormatRate(fpr) + " is out of range: expected 0 < rate < 1");
  const uint64_t block_bits = LayoutBlockBits(layout);
  const uint64_t max_blocks = MaxBlocks(layout);
  // Refuse before any search (and before any caller allocates): the rate falls
  // as blocks are added, so if no k reaches fpr at the largest filter, no
  // filter does. The message says how many keys the largest one holds.
  if (SolveForSize(layout, max_blocks, n).fpr > fpr) {
    const FilterParams largest = BestCapacity(layout, max_blocks, fpr);
    const std::string what = "the largest " + std::string(LayoutName(layout)) + " filter (" +
                             std::to_string(max_blocks) + " " + std::string(LayoutUnitName(layout)) + ", " +
                             std::to_string(max_blocks * block_bits / 8 >> 30) + " GiB)";
    if (largest.capacity == 0)
      Invalid("false-positive rate = " + FormatRate(fpr) + " is out of reach for layout " +
              std::string(LayoutName(layout)) + ": " + what + " misses it even for one key");
    Invalid("expected keys = " + std::to_string(n) + " is beyond what any " + std::string(LayoutName(layout)) +
            " filter holds at false-positive rate " + FormatRate(fpr) + ": " + what + " holds at most " +
            std::to_string(largest.capacity) + " keys (k = " + std::to_string(largest.k) + ")");
  }
  bool found = false;
  FilterParams best{layout, 0, 0, 0, 1.0};
  for (uint32_t k = LayoutMinK(layout); k <= LayoutMaxK(layout); ++k) {
    if (!LayoutAcceptsK(layout, k)) continue;
    const std::optional<uint64_t> blocks = BlocksForKeys(layout, k, n, fpr);
    if (!blocks) continue;  // this k cannot reach fpr within the limits
    const uint64_t hi = *blocks;
    // Fewest bits first; at equal size the lower rate (the best k there).
    const FilterParams candidate{layout, hi, k, hi * block_bits, PredictFpr(layout, hi, k, n)};
    if (!found || candidate.bits < best.bits || (candidate.bits == best.bits && candidate.fpr < best.fpr)) {
      best = candidate;
      found = true;
    }
  }
  if (!found)  // unreachable after the check above; kept as a guard
    Invalid("false-positive rate = " + FormatRate(fpr) + " for " + std::to_string(n) +
            " keys is out of reach for layout " + std::string(LayoutName(layout)) + " within its size limit");
  return best;
}

uint64_t Capacity(Layout layout, uint64_t num_blocks, uint32_t k, double fpr) {
  CheckShape(layout, num_blocks, k);
  if (!(fpr > 0.0 && fpr < 1.0))
    Invalid("false-positive rate = " + FormatRate(fpr) + " is out of range: expected 0 < rate < 1");
  if (PredictFpr(layout, num_blocks, k, 1) > fpr) return 0;
  // Doubling, then bisection; every n up to 2^64 - 1 is a valid model input.
  const uint64_t kMaxN = ~uint64_t{0};
  if (PredictFpr(layout, num_blocks, k, kMaxN) <= fpr) return kMaxN;
  uint64_t lo = 1, hi = 2;
  while (PredictFpr(layout, num_blocks, k, hi) <= fpr) {
    lo = hi;
    hi = hi > kMaxN / 2 ? kMaxN : hi * 2;
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

FilterParams BestCapacity(Layout layout, uint64_t num_blocks, double fpr) {
  FilterParams best{layout, num_blocks, 0, num_blocks * LayoutBlockBits(layout), 0.0};
  uint64_t best_n = 0;
  for (uint32_t k = LayoutMinK(layout); k <= LayoutMaxK(layout); ++k) {
    if (!LayoutAcceptsK(layout, k)) continue;
    const uint64_t n = Capacity(layout, num_blocks, k, fpr);
    if (n > best_n) {
      best_n = n;
      best.k = k;
      best.fpr = PredictFpr(layout, num_blocks, k, n);
    }
  }
  best.capacity = best_n;
  return best;
}

}  // namespace blockbloom
