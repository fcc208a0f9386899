// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <unordered_set>

#include "blockbloom/hash.h"
#include "blockbloom/garden/aging.h"
#include "blockbloom/model.h"
#include "garden/src/internal.h"
#include "kernels/common.h"

namespace blockbloom::garden {

using detail::CheckOpen;
using detail::CheckRange;
using detail::Invalid;
using detail::ThrowMovedFrom;

// ---- StableFilter -------------------------------------------------------------------------

namespace {
// The storage width of a cell holding 0..max: the smallest of 1, 2, 4, 8 bits
// (PackedCounters' widths that divide a word) with 2^d - 1 >= max.
uint32_t CellBitsFor(uint32_t max) {
  CheckRange("max value Max", max, 1, StableFilter::kMaxMax);
  uint32_t d = 1;
  while ((uint64_t{1} << d) - 1 < max) d *= 2;
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

StableFilter::StableFilter(uint64_t cells, uint32_t k, uint32_t max_value, uint64_t decrements, uint64_t rng_seed,
                           HashKind hash, uint64_t seed)
    : k_(k), max_(max_value), decrements_(decrements), rng_seed_(rng_seed), hasher_{hash, seed}, rng_(rng_seed),
      cells_(cells, CellBitsFor(max_value), "cells") {
  CheckRange("k", k, 1, kMaxProbes);
  CheckRange("decrements P", decrements, 0, cells);
}

void StableFilter::InsertHash(uint64_t hash) {
  if (empty()) ThrowMovedFrom("stable filter");
  // 1. Age: decrement P distinct uniformly random cells, floored at 0. Floyd's
  // algorithm draws a uniform P-subset of [0, m) with exactly P draws: for
  // j = m - P .. m - 1 take t uniform in [0, j], or j itself if t was taken.
  // "Taken?" is a linear scan for small P (the usual 1..20), a hash set beyond.
  const uint64_t m = cells_.size();
  picked_.clear();
  constexpr uint64_t kLinearScanMax = 64;
  std::unordered_set<uint64_t> taken_set;
  if (decrements_ > kLinearScanMax) taken_set.reserve(decrements_);
  for (uint64_t j = m - decrements_; j < m; ++j) {
    const uint64_t t = FastRange64(rng_.Next(), j + 1);
    const bool taken = decrements_ > kLinearScanMax ? taken_set.count(t) != 0
                                                    : std::find(picked_.begin(), picked_.end(), t) != picked_.end();
    const uint64_t c = taken ? j : t;
    picked_.push_back(c);
    if (decrements_ > kLinearScanMax) taken_set.insert(c);
  }
  for (uint64_t c : picked_) {
    const uint64_t v = cells_.Get(c);
    if (v != 0) cells_.Set(c, v - 1);
  }
  // 2. Remember: the key's K cells to Max.
  const Probes p = ProbeCells(hash, k_, cells_.size());
  for (uint32_t i = 0; i < p.count; ++i) cells_.Set(p.cell[i], max_);
  ++inserted_;
}

void StableFilter::Clear() {
  cells_.Clear();
  rng_ = SplitMix64(rng_seed_);
  inserted_ = 0;
}

void StableFilter::MergeFrom(const StableFilter&) {
  Invalid("stable filters cannot be merged: each cell's value is the result of one stream's sets and random "
          "decrements, and two streams' cells do not combine into what one stream over both would give");
}

bool StableFilter::MayContainHash(uint64_t hash) const {
  if (empty()) return false;
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
  if (empty()) return 0.0;
  return garden::StableFpr(static_cast<double>(cells()), k_, static_cast<double>(decrements_),
                           static_cast<double>(max_value()));
}

// ---- A2Filter ---------------------------------------------------------------------------------

namespace {
// One vector's rate: the classic layout's own (double hashing,
// ClassicDoubleHashingFpr), or the textbook (1 - (1 - 1/M)^(kn))^k that sized
// the files written before 2026-11-28 (A2Filter::TextbookParamsFor).
enum class Sizing { kDoubleHashing, kTextbook };
double VectorRate(Sizing sizing, uint64_t vector_bits, uint32_t k, uint64_t n) {
  if (sizing == Sizing::kTextbook) return ClassicFprExact(static_cast<double>(vector_bits), static_cast<double>(n), k);
  return ClassicDoubleHashingFpr(vector_bits, k, static_cast<double>(n));
}
// Both vectors of M bits at n keys with k probes: 1 - (1 - f_c)^2, computed
// as -expm1(2 log1p(-f_c)) so that small rates keep their digits.
double BothFull(Sizing sizing, uint64_t vector_bits, uint64_t n, uint32_t k) {
  return -std::expm1(2.0 * std::log1p(-VectorRate(sizing, vector_bits, k, n)));
}

A2Filter::Params SizeFor(uint64_t bits, double fpr, Sizing sizing) {
  CheckRange("bits", bits, 2, 2 * kMaxClassicBits);
  CheckOpen("fpr", fpr, 0.0, 1.0);
  const uint64_t vector_bits = bits / 2;
  A2Filter::Params best{0, 0, 0.0};
  for (uint32_t k = 1; k <= kMaxProbes; ++k) {
    // The rate rises with n: bisect for the largest n meeting fpr. Above
    // M ln 2 / k * 4 keys no k meets any rate below 0.9: a safe upper end.
    uint64_t lo = 0, hi = 4 * vector_bits + 1;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      if (BothFull(sizing, vector_bits, mid, k) <= fpr) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    if (lo > best.capacity) best = {k, lo, ClassicDoubleHashingFpr(vector_bits, k, static_cast<double>(lo))};
  }
  if (best.capacity < 1) {
    // One key in a vector of M bits with k probes: rate ~ (k/M)^k, best at k = 1: 1/M per vector.
    // Tiny rates (a hostile file's 1e-300) need more bits than a uint64_t holds:
    // printed as a double then, never cast (the fuzzer's UBSan finding).
    const double need = std::ceil(2.0 / (-std::expm1(0.5 * std::log1p(-fpr))));
    char need_s[32];
    if (need < 1e18) {
      std::snprintf(need_s, sizeof need_s, "%llu", static_cast<unsigned long long>(need));
    } else {
      std::snprintf(need_s, sizeof need_s, "%.3g", need);
    }
    Invalid("bits = " + std::to_string(bits) + " holds no key at fpr = " + std::to_string(fpr) +
            ": expected at least about " + need_s + " bits");
  }
  return best;
}
}  // namespace

A2Filter::Params A2Filter::ParamsFor(uint64_t bits, double fpr) { return SizeFor(bits, fpr, Sizing::kDoubleHashing); }
A2Filter::Params A2Filter::TextbookParamsFor(uint64_t bits, double fpr) { return SizeFor(bits, fpr, Sizing::kTextbook); }

A2Filter::A2Filter(uint64_t bits, double fpr, HashKind hash, uint64_t seed)
    : A2Filter(bits, fpr, ParamsFor(bits, fpr), hash, seed) {}

A2Filter::A2Filter(uint64_t bits, double fpr, Params params, HashKind hash, uint64_t seed)
    : bits_(bits), fpr_(fpr), params_(params), hasher_{hash, seed},
      vectors_{Filter::WithBlocks(Layout::kClassic, bits / 2, params_.k, hash, seed),
               Filter::WithBlocks(Layout::kClassic, bits / 2, params_.k, hash, seed)} {}

bool A2Filter::InsertHash(uint64_t hash) {
  if (empty()) ThrowMovedFrom("A2 filter");
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
double BothVectors(uint64_t m, uint32_t k, uint64_t n1, uint64_t n2) {
  // A fresh key is a false positive unless both vectors reject it.
  return 1.0 - (1.0 - ClassicDoubleHashingFpr(m, k, static_cast<double>(n1))) *
                   (1.0 - ClassicDoubleHashingFpr(m, k, static_cast<double>(n2)));
}
}  // namespace

double A2Filter::Fpr() const {
  if (empty()) return 0.0;
  return BothVectors(active().bit_count(), params_.k, active_count_, passive_count_);
}

double A2Filter::FprAtCapacity() const {
  return BothFull(Sizing::kDoubleHashing, active().bit_count(), params_.capacity, params_.k);
}

void A2Filter::Clear() {
  vectors_[0].Clear();
  vectors_[1].Clear();
  active_ = 0;
  active_count_ = passive_count_ = swaps_ = 0;
}

void A2Filter::MergeFrom(const A2Filter& other) {
  if (empty()) ThrowMovedFrom("A2 filter");
  if (bits_ != other.bits_ || fpr_ != other.fpr_ || params_.k != other.params_.k ||
      hasher_.kind != other.hasher_.kind || hasher_.seed != other.hasher_.seed)
    Invalid("A2 filters differ in bits, target rate, hash or seed: expected equal parameters to merge");
  const uint64_t active = active_count_ + other.active_count_, passive = passive_count_ + other.passive_count_;
  if (active > params_.capacity || passive > params_.capacity)
    Invalid("merged A2 filter would hold " + std::to_string(active) + " active and " + std::to_string(passive) +
            " passive keys: expected at most the capacity " + std::to_string(params_.capacity) +
            " each (beyond it the target rate no longer holds)");
  vectors_[active_].UnionWith(other.active());
  vectors_[1 - active_].UnionWith(other.passive());
  active_count_ = active;
  passive_count_ = passive;
  swaps_ = std::max(swaps_, other.swaps_);
}

}  // namespace blockbloom::garden
