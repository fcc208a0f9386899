#include <cmath>
#include <numbers>
#include <string>

#include "blockbloom/hash.h"
#include "blockbloom/garden/aging.h"
#include "blockbloom/model.h"
#include "engine/src/garden_internal.h"
#include "kernels/common.h"

namespace blockbloom::garden {

using internal::CheckOpen;
using internal::CheckRange;
using internal::Invalid;

// ---- StableFilter -------------------------------------------------------------------------

namespace {
// Cells of 1, 2, 4 or 8 bits: Max = 1, 3, 15 or 255 (Deng & Rafiei use Max = 1..7).
constexpr uint32_t kMaxCellBits = 8;

uint32_t CheckedCellBits(uint32_t d) {
  if (d == 0 || d > kMaxCellBits || (d & (d - 1)) != 0)
    Invalid("cell bits d = " + std::to_string(d) + " is not supported: expected 1, 2, 4 or 8");
  return d;
}
}  // namespace

double StableZeroFraction(double m, double k, double p, double max) {
  // a = q / (q + s) with q / s = P (1/K - 1/m); Z = a^Max (derivation in aging.h).
  const double ratio = p * (1.0 / k - 1.0 / m);
  return std::pow(1.0 / (1.0 + 1.0 / ratio), max);
}

double StableFpr(double m, double k, double p, double max) {
  return std::pow(1.0 - StableZeroFraction(m, k, p, max), k);
}

StableFilter::StableFilter(uint64_t cells, uint32_t k, uint32_t cell_bits, uint64_t decrements, uint64_t rng_seed,
                           HashKind hash, uint64_t seed)
    : k_(k), decrements_(decrements), hasher_{hash, seed}, rng_(rng_seed),
      cells_(cells, CheckedCellBits(cell_bits), "cells") {
  CheckRange("k", k, 1, kMaxProbes);
  CheckRange("decrements P", decrements, 0, cells);
}

void StableFilter::InsertHash(uint64_t hash) {
  // 1. Age: decrement P uniformly random cells (with replacement), floored at 0.
  for (uint64_t i = 0; i < decrements_; ++i) {
    const uint64_t c = FastRange64(rng_.Next(), cells_.size());
    const uint64_t v = cells_.Get(c);
    if (v != 0) cells_.Set(c, v - 1);
  }
  // 2. Remember: the key's K cells to Max.
  const Probes p = ProbeCells(hash, k_, cells_.size());
  for (uint32_t i = 0; i < p.count; ++i) cells_.Set(p.cell[i], cells_.max());
  ++inserted_;
}

bool StableFilter::MayContainHash(uint64_t hash) const {
  const Probes p = ProbeCells(hash, k_, cells_.size());
  for (uint32_t i = 0; i < p.count; ++i) {
    if (cells_.Get(p.cell[i]) == 0) return false;
  }
  return true;
}

double StableFilter::StableZeroFraction() const {
  return garden::StableZeroFraction(static_cast<double>(cells()), k_, static_cast<double>(decrements_),
                                    static_cast<double>(max_value()));
}

double StableFilter::StableFpr() const {
  return garden::StableFpr(static_cast<double>(cells()), k_, static_cast<double>(decrements_),
                           static_cast<double>(max_value()));
}

// ---- A2Filter ---------------------------------------------------------------------------------

A2Filter::Params A2Filter::ParamsFor(uint64_t bits, double fpr) {
  CheckRange("bits", bits, 2, 2 * kMaxClassicBits);
  CheckOpen("fpr", fpr, 0.0, 1.0);
  // f_a = 1 - sqrt(1 - f), computed as -expm1(log1p(-f) / 2) to keep small f exact.
  const double fa = -std::expm1(0.5 * std::log1p(-fpr));
  const double ka = std::floor(-std::log2(fa));
  if (ka < 1 || ka > kMaxProbes)
    Invalid("fpr = " + std::to_string(fpr) + " gives k_a = " + std::to_string(ka) +
            " probes per vector: expected 1..32 (fpr between about 4.7e-10 and 0.75)");
  const uint32_t k = static_cast<uint32_t>(ka);
  const double capacity = std::floor(static_cast<double>(bits) / (2.0 * k) * std::numbers::ln2);
  if (capacity < 1)
    Invalid("bits = " + std::to_string(bits) + " holds no key at fpr = " + std::to_string(fpr) +
            ": expected at least " + std::to_string(static_cast<uint64_t>(std::ceil(2.0 * k / std::numbers::ln2))) +
            " bits");
  return {k, static_cast<uint64_t>(capacity), fa};
}

A2Filter::A2Filter(uint64_t bits, double fpr, HashKind hash, uint64_t seed)
    : params_(ParamsFor(bits, fpr)), hasher_{hash, seed},
      vectors_{Filter::WithBlocks(Layout::kClassic, bits / 2, params_.k, hash, seed),
               Filter::WithBlocks(Layout::kClassic, bits / 2, params_.k, hash, seed)} {}

bool A2Filter::InsertHash(uint64_t hash) {
  if (vectors_[active_].MayContainHash(hash)) return false;
  if (active_count_ >= params_.capacity) {
    // Full: flush the passive vector and make it the active one.
    vectors_[1 - active_].Clear();
    active_ = 1 - active_;
    passive_count_ = active_count_;
    active_count_ = 0;
    ++swaps_;
  }
  vectors_[active_].InsertHash(hash);
  ++active_count_;
  return true;
}

bool A2Filter::MayContainHash(uint64_t hash) const {
  return vectors_[0].MayContainHash(hash) || vectors_[1].MayContainHash(hash);
}

namespace {
double BothVectors(double m, uint32_t k, uint64_t n1, uint64_t n2) {
  // A fresh key is a false positive unless both vectors reject it.
  return 1.0 - (1.0 - ClassicFprExact(m, static_cast<double>(n1), k)) * (1.0 - ClassicFprExact(m, static_cast<double>(n2), k));
}
}  // namespace

double A2Filter::Fpr() const {
  return BothVectors(static_cast<double>(active().bit_count()), params_.k, active_count_, passive_count_);
}

double A2Filter::FprAtCapacity() const {
  return BothVectors(static_cast<double>(active().bit_count()), params_.k, params_.capacity, params_.capacity);
}

}  // namespace blockbloom::garden
