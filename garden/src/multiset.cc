// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "blockbloom/hash.h"
#include "blockbloom/garden/multiset.h"
#include "blockbloom/model.h"
#include "garden/src/internal.h"
#include "kernels/common.h"

namespace blockbloom::garden {

using detail::CheckOpen;
using detail::CheckRange;
using detail::Invalid;
using detail::ThrowMovedFrom;

// ---- Counter overflow ------------------------------------------------------------------

double CounterOverflowBound(double m, double n, double k, double j) {
  if (n <= 0 || k <= 0) return 0.0;
  // m (e n k / (j m))^j, as exp(j log(.)) so huge j does not overflow pow's base.
  return m * std::exp(j * std::log(std::numbers::e * n * k / (j * m)));
}

double CounterOverflowBoundAtOptimalK(double m, double j) {
  // k = (m/n) ln 2 turns e n k / (j m) into e ln 2 / j.
  return m * std::pow(std::numbers::e * std::numbers::ln2 / j, j);
}

double CounterTailExact(double m, double n, double k, uint64_t j) {
  // P[Binomial(N, p) >= j], N = nk probes, p = 1/m; pmf in log space.
  const double trials = std::round(n * k);
  const double p = 1.0 / m;
  if (j == 0) return 1.0;
  if (static_cast<double>(j) > trials) return 0.0;
  const double log_p = std::log(p), log_q = std::log1p(-p), log_n1 = std::lgamma(trials + 1);
  auto pmf = [&](double i) {
    return std::exp(log_n1 - std::lgamma(i + 1) - std::lgamma(trials - i + 1) + i * log_p + (trials - i) * log_q);
  };
  const double mode = std::floor((trials + 1) * p);
  if (static_cast<double>(j) > mode) {
    // Past the mode the terms fall monotonically: sum until they stop mattering.
    double sum = 0.0;
    for (double i = static_cast<double>(j); i <= trials; ++i) {
      const double t = pmf(i);
      sum += t;
      if (t <= sum * 1e-17) break;
    }
    return sum;
  }
  double below = 0.0;
  for (uint64_t i = 0; i < j; ++i) below += pmf(static_cast<double>(i));
  return std::max(0.0, 1.0 - below);
}

// ---- CountingFilter ----------------------------------------------------------------------

namespace {
uint32_t CheckedK(uint32_t k) {
  CheckRange("k", k, 1, kMaxProbes);
  return k;
}
// PackedCounters' cap (garden_common.cc).
constexpr double kMaxCountingCells = 4503599627370496.0;  // 2^52
}  // namespace

CountingParams SolveCounting(uint64_t n, double fpr) {
  CheckRange("n", n, 1, UINT64_MAX);
  CheckOpen("fpr", fpr, 0.0, 1.0);
  const double nd = static_cast<double>(n);
  const double m = std::ceil(ClassicBitsForFpr(nd, fpr));
  // Checked as a double: beyond 2^52 (or 2^64) the cast would be undefined.
  if (!(m <= kMaxCountingCells))
    Invalid("n = " + std::to_string(n) + " keys at fpr = " + std::to_string(fpr) + " need " + std::to_string(m) +
            " cells: expected at most 2^52 (a larger fpr or fewer keys)");
  const double k = std::clamp(std::round(ClassicOptimalK(m, nd)), 1.0, static_cast<double>(kMaxProbes));
  return {std::max<uint64_t>(1, static_cast<uint64_t>(m)), static_cast<uint32_t>(k)};
}

CountingFilter CountingFilter::ForKeys(uint64_t n, double fpr, uint32_t width, HashKind hash, uint64_t seed) {
  const CountingParams p = SolveCounting(n, fpr);
  return CountingFilter(p.cells, p.k, width, hash, seed);
}

CountingFilter::CountingFilter(uint64_t cells, uint32_t k, uint32_t width, HashKind hash, uint64_t seed)
    : k_(CheckedK(k)), hasher_{hash, seed}, counters_(cells, width, "cells") {}

void CountingFilter::Bump(uint64_t c) {
  const uint64_t v = counters_.Get(c);
  if (v == counters_.max()) {
    ++saturations_;  // stuck: never wraps
  } else {
    counters_.Set(c, v + 1);
  }
}

uint64_t CountingFilter::Min(const Probes& p) const {
  uint64_t mn = counters_.max();
  for (uint32_t i = 0; i < p.count; ++i) mn = std::min(mn, counters_.Get(p.cell[i]));
  return mn;
}

void CountingFilter::InsertHash(uint64_t hash) {
  if (empty()) ThrowMovedFrom("counting filter");
  const Probes p = ProbeCells(hash, k_, cells());
  for (uint32_t i = 0; i < p.count; ++i) Bump(p.cell[i]);
}

bool CountingFilter::RemoveHash(uint64_t hash) {
  if (empty()) ThrowMovedFrom("counting filter");
  const Probes p = ProbeCells(hash, k_, cells());
  if (Min(p) == 0) return false;  // surely never inserted
  for (uint32_t i = 0; i < p.count; ++i) {
    const uint64_t v = counters_.Get(p.cell[i]);
    if (v != counters_.max()) counters_.Set(p.cell[i], v - 1);  // stuck counters stay
  }
  return true;
}

bool CountingFilter::MayContainHash(uint64_t hash) const {
  if (empty()) return false;
  const Probes p = ProbeCells(hash, k_, cells());
  for (uint32_t i = 0; i < p.count; ++i) {
    if (counters_.Get(p.cell[i]) == 0) return false;
  }
  return true;
}

uint64_t CountingFilter::CountHash(uint64_t hash) const { return empty() ? 0 : Min(ProbeCells(hash, k_, cells())); }

double CountingFilter::Fpr(uint64_t n) const {
  if (empty()) return 0.0;
  return ClassicDoubleHashingFpr(cells(), k_, static_cast<double>(n));
}

void CountingFilter::Clear() {
  counters_.Clear();
  saturations_ = 0;
}

namespace {
void CheckOut(size_t n, size_t out) {
  if (out < n)
    Invalid("output span holds " + std::to_string(out) + " entries: expected at least " + std::to_string(n) +
            " (one per hash)");
}
// Prefetch the words of the k cells of `hash`, for writing or reading.
template <bool kWrite>
void PrefetchCells(const PackedCounters& c, uint64_t hash, uint32_t k) {
  const uint64_t step = kernels::ClassicStep(hash);
  uint64_t g = hash;
  for (uint32_t i = 0; i < k; ++i, g += step) __builtin_prefetch(c.WordOf(kernels::ClassicIndex(g, c.size())), kWrite, 3);
}
}  // namespace

void CountingFilter::InsertHashBatch(std::span<const uint64_t> hashes) {
  if (empty()) ThrowMovedFrom("counting filter");
  const size_t n = hashes.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) PrefetchCells<true>(counters_, hashes[i + kPrefetchAhead], k_);
    InsertHash(hashes[i]);
  }
}

size_t CountingFilter::RemoveHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> removed) {
  CheckOut(hashes.size(), removed.size());
  if (empty()) ThrowMovedFrom("counting filter");
  const size_t n = hashes.size();
  size_t done = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) PrefetchCells<true>(counters_, hashes[i + kPrefetchAhead], k_);
    removed[i] = RemoveHash(hashes[i]);
    done += removed[i];
  }
  return done;
}

size_t CountingFilter::MayContainHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> out) const {
  CheckOut(hashes.size(), out.size());
  if (empty()) {
    std::fill_n(out.begin(), hashes.size(), uint8_t{0});
    return 0;
  }
  const size_t n = hashes.size();
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) PrefetchCells<false>(counters_, hashes[i + kPrefetchAhead], k_);
    out[i] = MayContainHash(hashes[i]);
    hits += out[i];
  }
  return hits;
}

void CountingFilter::CountHashBatch(std::span<const uint64_t> hashes, std::span<uint64_t> out) const {
  CheckOut(hashes.size(), out.size());
  if (empty()) {
    std::fill_n(out.begin(), hashes.size(), uint64_t{0});
    return;
  }
  const size_t n = hashes.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) PrefetchCells<false>(counters_, hashes[i + kPrefetchAhead], k_);
    out[i] = CountHash(hashes[i]);
  }
}

namespace {
void CheckSameCounting(const CountingFilter& a, const CountingFilter& b, const char* what) {
  auto differ = [&](const char* field, uint64_t x, uint64_t y) {
    Invalid(std::string("cannot merge ") + what + ": " + field + " differs (" + std::to_string(x) + " vs " +
            std::to_string(y) + "): expected equal parameters");
  };
  if (a.cells() != b.cells()) differ("cells", a.cells(), b.cells());
  if (a.k() != b.k()) differ("k", a.k(), b.k());
  if (a.width() != b.width()) differ("counter width", a.width(), b.width());
  if (a.hasher().kind != b.hasher().kind)
    differ("hash", static_cast<uint64_t>(a.hasher().kind), static_cast<uint64_t>(b.hasher().kind));
  if (a.hasher().seed != b.hasher().seed) differ("seed", a.hasher().seed, b.hasher().seed);
}
}  // namespace

void CountingFilter::MergeFrom(const CountingFilter& other) {
  if (empty()) ThrowMovedFrom("counting filter");
  CheckSameCounting(*this, other, "counting filters");
  const uint64_t max = counters_.max();
  for (uint64_t i = 0; i < cells(); ++i) {
    const uint64_t a = counters_.Get(i), b = other.counters_.Get(i);
    counters_.Set(i, a + b >= max || a + b < a ? max : a + b);
  }
  saturations_ += other.saturations_;
}

bool CountingFilter::operator==(const CountingFilter& o) const {
  return k_ == o.k_ && hasher_.kind == o.hasher_.kind && hasher_.seed == o.hasher_.seed && counters_ == o.counters_;
}

// ---- SpectralFilter ---------------------------------------------------------------------------

namespace {
// How many of p's cells hold the minimum of c's counters over p.
uint32_t MinMultiplicity(const PackedCounters& c, const Probes& p, uint64_t mn) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < p.count; ++i) n += c.Get(p.cell[i]) == mn;
  return n;
}
// RM's secondary filter probes with the key's second derived hash.
constexpr uint32_t kSecondaryHash = 1;
}  // namespace

SpectralFilter::SpectralFilter(uint64_t cells, uint32_t k, Policy policy)
    : SpectralFilter(cells, k, policy, Options{}) {}

SpectralFilter::SpectralFilter(uint64_t cells, uint32_t k, Policy policy, const Options& options)
    : policy_(policy), primary_(cells, k, options.width, options.hash, options.seed) {
  if (policy == Policy::kRecurringMinimum) {
    const uint64_t cells2 = options.secondary_cells != 0 ? options.secondary_cells : std::max<uint64_t>(1, cells / 2);
    secondary_.emplace(cells2, k, options.width, options.hash, options.seed);
  }
}

void SpectralFilter::InsertHash(uint64_t hash) {
  if (empty()) ThrowMovedFrom("spectral filter");
  switch (policy_) {
    case Policy::kMinimumSelection:
      primary_.InsertHash(hash);
      return;
    case Policy::kMinimumIncrease: {
      const Probes p = ProbeCells(hash, primary_.k(), primary_.cells());
      const uint64_t mn = primary_.Min(p);
      for (uint32_t i = 0; i < p.count; ++i) {
        if (primary_.counters_.Get(p.cell[i]) == mn) primary_.Bump(p.cell[i]);
      }
      return;
    }
    case Policy::kRecurringMinimum: {
      primary_.InsertHash(hash);
      const Probes p = ProbeCells(hash, primary_.k(), primary_.cells());
      const uint64_t mn = primary_.Min(p);
      if (MinMultiplicity(primary_.counters_, p, mn) >= 2) return;
      CountingFilter& sec = *secondary_;
      const Probes s = ProbeCells(DeriveHash(hash, kSecondaryHash), sec.k(), sec.cells());
      // Already in the secondary: count this insert there; else enter with m_x.
      const uint64_t add = sec.Min(s) > 0 ? 1 : mn;
      for (uint32_t i = 0; i < s.count; ++i) {
        const uint64_t v = sec.counters_.Get(s.cell[i]);
        const uint64_t room = sec.max_count() - v;
        sec.counters_.Set(s.cell[i], v + std::min(add, room));
        sec.saturations_ += add - std::min(add, room);
      }
      return;
    }
  }
}

bool SpectralFilter::RemoveHash(uint64_t hash) {
  if (empty()) ThrowMovedFrom("spectral filter");
  if (policy_ == Policy::kMinimumIncrease)
    throw std::logic_error(
        "blockbloom: SpectralFilter::Remove is unsafe under the Minimum Increase policy (a key's non-minimal "
        "counters never recorded its inserts, so removing it would cause false negatives for other keys); use "
        "Minimum Selection or Recurring Minimum");
  if (!primary_.MayContainHash(hash)) return false;
  if (secondary_) {
    const uint64_t h2 = DeriveHash(hash, kSecondaryHash);
    if (secondary_->MayContainHash(h2)) secondary_->RemoveHash(h2);
  }
  return primary_.RemoveHash(hash);
}

void SpectralFilter::Clear() {
  primary_.Clear();
  if (secondary_) secondary_->Clear();
}

void SpectralFilter::MergeFrom(const SpectralFilter& other) {
  if (empty()) ThrowMovedFrom("spectral filter");
  if (policy_ != Policy::kMinimumSelection || other.policy_ != Policy::kMinimumSelection)
    Invalid("spectral filters merge only under Minimum Selection: Minimum Increase and Recurring Minimum "
            "counters record decisions taken against one stream's state, which a sum does not reproduce");
  primary_.MergeFrom(other.primary_);
}

uint64_t SpectralFilter::CountHash(uint64_t hash) const {
  if (empty()) return 0;
  const Probes p = ProbeCells(hash, primary_.k(), primary_.cells());
  const uint64_t mn = primary_.Min(p);
  if (policy_ != Policy::kRecurringMinimum || mn == 0) return mn;
  if (MinMultiplicity(primary_.counters_, p, mn) >= 2) return mn;
  const uint64_t s = secondary_->CountHash(DeriveHash(hash, kSecondaryHash));
  return s > 0 ? s : mn;
}

// ---- CountMinSketch ----------------------------------------------------------------------------

namespace {
// Largest width: 2^32 columns (32 GiB per row of 64-bit counters).
constexpr uint64_t kMaxCountMinWidth = uint64_t{1} << 32;
}  // namespace

double CountMinEpsilon(uint64_t width) { return std::numbers::e / static_cast<double>(width); }
double CountMinDelta(uint32_t depth) { return std::exp(-static_cast<double>(depth)); }

CountMinSketch::CountMinSketch(uint64_t width, uint32_t depth, HashKind hash, uint64_t seed)
    : CountMinSketch(width, depth, Options{hash, seed, false}) {}

CountMinSketch::CountMinSketch(uint64_t width, uint32_t depth, const Options& options)
    : width_(width), depth_(depth), conservative_(options.conservative), hasher_{options.hash, options.seed} {
  CheckRange("width", width, 1, kMaxCountMinWidth);
  CheckRange("depth", depth, 1, kMaxProbes);
  counts_.assign(width * depth, 0);
}

CountMinSketch CountMinSketch::ForError(double eps, double delta, HashKind hash, uint64_t seed) {
  return ForError(eps, delta, Options{hash, seed, false});
}

CountMinSketch CountMinSketch::ForError(double eps, double delta, const Options& options) {
  CheckOpen("eps", eps, 0.0, 1.0);
  CheckOpen("delta", delta, 0.0, 1.0);
  // eps = e / w and delta = e^-d, rounded up to whole columns and rows.
  const double w = std::ceil(std::numbers::e / eps);
  const double d = std::max(1.0, std::ceil(std::log(1.0 / delta)));
  if (d > kMaxProbes)
    Invalid("delta = " + std::to_string(delta) + " needs " + std::to_string(static_cast<int>(d)) +
            " rows: expected delta >= e^-32 (at most 32 rows)");
  if (w > static_cast<double>(kMaxCountMinWidth))
    Invalid("eps = " + std::to_string(eps) + " needs more than 2^32 columns: expected eps >= e / 2^32");
  return CountMinSketch(static_cast<uint64_t>(w), static_cast<uint32_t>(d), options);
}

namespace {
[[noreturn]] void CountMinOverflow(uint64_t total, uint64_t add) {
  throw std::overflow_error("blockbloom: count-min sketch: total count N = " + std::to_string(total) + " + " +
                            std::to_string(add) + " would pass 2^64 - 1: expected N to stay within 64 bits");
}
}  // namespace

void CountMinSketch::AddHash(uint64_t hash, uint64_t count) {
  if (empty()) ThrowMovedFrom("count-min sketch");
  // Every counter is <= N, so N + count not overflowing means no counter does.
  if (count > std::numeric_limits<uint64_t>::max() - total_) CountMinOverflow(total_, count);
  const uint64_t step = kernels::ClassicStep(hash);
  if (conservative_) {
    const uint64_t target = EstimateHash(hash) + count;
    uint64_t g = hash;
    for (uint32_t row = 0; row < depth_; ++row, g += step) {
      uint64_t& c = counts_[row * width_ + kernels::ClassicIndex(g, width_)];
      c = std::max(c, target);
    }
  } else {
    uint64_t g = hash;
    for (uint32_t row = 0; row < depth_; ++row, g += step) counts_[row * width_ + kernels::ClassicIndex(g, width_)] += count;
  }
  total_ += count;
}

namespace {
void PrefetchRows(const std::vector<uint64_t>& counts, uint64_t width, uint32_t depth, uint64_t hash, bool write) {
  const uint64_t step = kernels::ClassicStep(hash);
  uint64_t g = hash;
  for (uint32_t row = 0; row < depth; ++row, g += step) {
    const uint64_t* p = counts.data() + row * width + kernels::ClassicIndex(g, width);
    if (write) {
      __builtin_prefetch(p, 1, 3);
    } else {
      __builtin_prefetch(p, 0, 3);
    }
  }
}
}  // namespace

void CountMinSketch::AddHashBatch(std::span<const uint64_t> hashes) {
  if (empty()) ThrowMovedFrom("count-min sketch");
  if (hashes.size() > std::numeric_limits<uint64_t>::max() - total_) CountMinOverflow(total_, hashes.size());
  const size_t n = hashes.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) PrefetchRows(counts_, width_, depth_, hashes[i + kPrefetchAhead], true);
    AddHash(hashes[i], 1);
  }
}

void CountMinSketch::AddHashBatch(std::span<const uint64_t> hashes, std::span<const uint64_t> counts) {
  if (empty()) ThrowMovedFrom("count-min sketch");
  if (counts.size() != hashes.size())
    Invalid("counts span holds " + std::to_string(counts.size()) + " entries: expected " +
            std::to_string(hashes.size()) + " (one per hash)");
  uint64_t sum = 0;
  for (uint64_t c : counts) {
    if (c > std::numeric_limits<uint64_t>::max() - sum) CountMinOverflow(total_, std::numeric_limits<uint64_t>::max());
    sum += c;
  }
  if (sum > std::numeric_limits<uint64_t>::max() - total_) CountMinOverflow(total_, sum);
  const size_t n = hashes.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) PrefetchRows(counts_, width_, depth_, hashes[i + kPrefetchAhead], true);
    AddHash(hashes[i], counts[i]);
  }
}

void CountMinSketch::EstimateHashBatch(std::span<const uint64_t> hashes, std::span<uint64_t> out) const {
  CheckOut(hashes.size(), out.size());
  if (empty()) {
    std::fill_n(out.begin(), hashes.size(), uint64_t{0});
    return;
  }
  const size_t n = hashes.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) PrefetchRows(counts_, width_, depth_, hashes[i + kPrefetchAhead], false);
    out[i] = EstimateHash(hashes[i]);
  }
}

void CountMinSketch::Clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_ = 0;
}

void CountMinSketch::MergeFrom(const CountMinSketch& o, uint64_t weight) {
  if (empty()) ThrowMovedFrom("count-min sketch");
  auto differ = [&](const char* field, uint64_t x, uint64_t y) {
    Invalid(std::string("cannot merge count-min sketches: ") + field + " differs (" + std::to_string(x) + " vs " +
            std::to_string(y) + "): expected equal parameters");
  };
  if (width_ != o.width_) differ("width", width_, o.width_);
  if (depth_ != o.depth_) differ("depth", depth_, o.depth_);
  if (hasher_.kind != o.hasher_.kind)
    differ("hash", static_cast<uint64_t>(hasher_.kind), static_cast<uint64_t>(o.hasher_.kind));
  if (hasher_.seed != o.hasher_.seed) differ("seed", hasher_.seed, o.hasher_.seed);
  if (conservative_ != o.conservative_) differ("conservative update", conservative_, o.conservative_);
  // Counters are <= N, so checking N + weight N' covers every counter.
  if (weight != 0 && o.total_ > (std::numeric_limits<uint64_t>::max() - total_) / weight)
    throw std::overflow_error("blockbloom: count-min merge: N = " + std::to_string(total_) + " + " +
                              std::to_string(weight) + " x " + std::to_string(o.total_) +
                              " would pass 2^64 - 1: expected the merged total to stay within 64 bits");
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += weight * o.counts_[i];
  total_ += weight * o.total_;
}

uint64_t CountMinSketch::EstimateHash(uint64_t hash) const {
  if (empty()) return 0;
  const uint64_t step = kernels::ClassicStep(hash);
  uint64_t g = hash;
  uint64_t mn = std::numeric_limits<uint64_t>::max();
  for (uint32_t row = 0; row < depth_; ++row, g += step)
    mn = std::min(mn, counts_[row * width_ + kernels::ClassicIndex(g, width_)]);
  return mn;
}

double CountMinSketch::epsilon() const { return CountMinEpsilon(width_); }
double CountMinSketch::delta() const { return CountMinDelta(depth_); }

// ---- BitwiseFilter ---------------------------------------------------------------------------------

namespace {
std::vector<BitwiseFilter::Level> Repeat(uint32_t levels, const BitwiseFilter::Level& each) {
  CheckRange("levels", levels, 1, kMaxProbes);
  return std::vector<BitwiseFilter::Level>(levels, each);
}
// Count weights past 2^64 cannot be represented.
constexpr uint32_t kCountBits = 64;
}  // namespace

BitwiseFilter::BitwiseFilter(uint32_t levels, const Level& each, HashKind hash, uint64_t seed)
    : BitwiseFilter(std::span<const Level>(Repeat(levels, each)), hash, seed) {}

BitwiseFilter::BitwiseFilter(std::span<const Level> levels, HashKind hash, uint64_t seed) : hasher_{hash, seed} {
  CheckRange("levels", levels.size(), 1, kMaxProbes);
  levels_.reserve(levels.size());
  for (size_t i = 0; i < levels.size(); ++i) {
    try {
      levels_.emplace_back(levels[i].cells, levels[i].k, levels[i].width, hash, seed);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      Invalid("bitwise level " + std::to_string(i) + ": " + what.substr(what.find(' ') + 1));
    }
  }
}

void BitwiseFilter::InsertHash(uint64_t hash) {
  if (empty()) ThrowMovedFrom("bitwise filter");
  // Find the lowest level whose digit of x is not full; the carry ripples up to it.
  std::vector<Probes> probes;
  probes.reserve(levels_.size());
  for (size_t i = 0; i < levels_.size(); ++i) {
    const CountingFilter& level = levels_[i];
    probes.push_back(ProbeCells(DeriveHash(hash, static_cast<uint32_t>(i)), level.k(), level.cells()));
    if (level.Min(probes[i]) < level.max_count()) {
      // Reset the full digits below (every counter of x there is at max), then add 1 here.
      for (size_t j = 0; j < i; ++j) {
        for (uint32_t c = 0; c < probes[j].count; ++c) levels_[j].counters_.Set(probes[j].cell[c], 0);
      }
      for (uint32_t c = 0; c < probes[i].count; ++c) levels_[i].Bump(probes[i].cell[c]);
      return;
    }
  }
  ++saturations_;  // every digit is full: the count stays at its maximum
}

uint64_t BitwiseFilter::CountHash(uint64_t hash) const {
  uint64_t count = 0;
  uint32_t shift = 0;  // w_0 + ... + w_{i-1}
  for (size_t i = 0; i < levels_.size(); ++i) {
    const CountingFilter& level = levels_[i];
    const uint64_t digit = level.Min(ProbeCells(DeriveHash(hash, static_cast<uint32_t>(i)), level.k(), level.cells()));
    if (digit != 0) {
      if (shift >= kCountBits || (digit << shift >> shift) != digit) return std::numeric_limits<uint64_t>::max();
      const uint64_t add = digit << shift;
      if (count > std::numeric_limits<uint64_t>::max() - add) return std::numeric_limits<uint64_t>::max();
      count += add;
    }
    shift += level.width();
  }
  return count;
}

void BitwiseFilter::Clear() {
  for (CountingFilter& level : levels_) level.Clear();
  saturations_ = 0;
}

void BitwiseFilter::MergeFrom(const BitwiseFilter&) {
  Invalid("bitwise filters cannot be merged: each level holds one base-2^w digit with carries, and digits do "
          "not add counter-wise (a sum would need carries the counters cannot see)");
}

uint64_t BitwiseFilter::MaxCount() const {
  uint32_t bits = 0;
  for (const CountingFilter& level : levels_) bits += level.width();
  return bits >= kCountBits ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
}

}  // namespace blockbloom::garden
