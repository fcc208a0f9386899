// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "blockbloom/garden/scalable.h"
#include "blockbloom/model.h"
#include "garden/src/internal.h"

namespace blockbloom::garden {

using detail::CheckOpen;
using detail::CheckRange;
using detail::Invalid;

namespace {
// Largest growth factor: s = 2 or 4 in Almeida et al.; 16 already makes the
// tenth slice 2^40 times the first.
constexpr uint64_t kMaxGrowth = 16;
}  // namespace

double ScalableCompoundFpr(double p0, double r, uint32_t slices) {
  double pass = 1.0;  // probability that every slice rejects a fresh key
  double pi = p0;
  for (uint32_t i = 0; i < slices; ++i, pi *= r) pass *= 1.0 - pi;
  return 1.0 - pass;
}

double ScalableFprLimit(double p0, double r) { return p0 / (1.0 - r); }

ScalableFilter::ScalableFilter(uint64_t initial_capacity, double fpr)
    : ScalableFilter(initial_capacity, fpr, Options{}) {}

ScalableFilter::ScalableFilter(uint64_t initial_capacity, double fpr, const Options& options)
    : initial_capacity_(initial_capacity), fpr_(fpr), options_(options), hasher_{options.hash, options.seed} {
  CheckRange("initial capacity", initial_capacity, 1, std::numeric_limits<uint64_t>::max());
  CheckOpen("fpr", fpr, 0.0, 1.0);
  CheckRange("growth", options.growth, 1, kMaxGrowth);
  CheckOpen("tightening", options.tightening, 0.0, 1.0);
  AddSlice();
}

uint64_t ScalableFilter::CapacityOf(uint64_t initial_capacity, uint32_t growth, size_t i) {
  uint64_t n = initial_capacity;
  for (size_t j = 0; j < i; ++j) {
    if (n > std::numeric_limits<uint64_t>::max() / growth) return std::numeric_limits<uint64_t>::max();
    n *= growth;
  }
  return n;
}

uint64_t ScalableFilter::SliceCapacity(size_t i) const { return CapacityOf(initial_capacity_, options_.growth, i); }

double ScalableFilter::first_slice_fpr() const { return fpr_ * (1.0 - options_.tightening); }

double ScalableFilter::SliceFpr(size_t i) const {
  return first_slice_fpr() * std::pow(options_.tightening, static_cast<double>(i));
}

FilterParams ScalableFilter::PlanSlice(uint64_t initial_capacity, double fpr, const Options& options, size_t i) {
  const uint64_t capacity = CapacityOf(initial_capacity, options.growth, i);
  const double rate = fpr * (1.0 - options.tightening) * std::pow(options.tightening, static_cast<double>(i));
  char rate_text[32];
  std::snprintf(rate_text, sizeof rate_text, "%.3g", rate);
  const std::string what = "scalable filter: slice " + std::to_string(i) + " (capacity " + std::to_string(capacity) +
                           " keys at rate " + rate_text + ", " + std::string(LayoutName(options.layout)) + ")";
  if (i >= kMaxSlices)
    throw std::length_error("blockbloom: " + what + " is past the limit of " + std::to_string(kMaxSlices) +
                            " slices: expected fewer keys, a larger initial capacity or growth");
  FilterParams p;
  try {
    p = SolveForKeys(options.layout, capacity, rate);
  } catch (const std::invalid_argument& e) {
    throw std::length_error("blockbloom: " + what + " cannot be built: " + std::string(e.what()).substr(12));
  }
  const double bits_per_key = static_cast<double>(p.bits) / static_cast<double>(capacity);
  if (bits_per_key > static_cast<double>(kMaxSliceBitsPerKey))
    throw std::length_error("blockbloom: " + what + " would need " +
                            std::to_string(static_cast<uint64_t>(bits_per_key)) + " bits per key: expected at most " +
                            std::to_string(kMaxSliceBitsPerKey) +
                            " (use growth >= 2, a milder tightening or the classic layout)");
  return p;
}

Filter ScalableFilter::MakeSlice(size_t i) const {
  const FilterParams p = PlanSlice(initial_capacity_, fpr_, options_, i);
  return Filter::WithBlocks(options_.layout, p.num_blocks, p.k, options_.hash, options_.seed);
}

void ScalableFilter::AddSlice() { slices_.push_back(MakeSlice(slices_.size())); }

void ScalableFilter::Clear() {
  if (empty()) return;
  slices_.erase(slices_.begin() + 1, slices_.end());
  slices_[0].Clear();
}

void ScalableFilter::MergeFrom(const ScalableFilter& other) {
  if (empty()) detail::ThrowMovedFrom("scalable filter");
  if (initial_capacity_ != other.initial_capacity_ || fpr_ != other.fpr_ ||
      options_.layout != other.options_.layout || options_.growth != other.options_.growth ||
      options_.tightening != other.options_.tightening || options_.hash != other.options_.hash ||
      options_.seed != other.options_.seed)
    Invalid("scalable filters differ in initial capacity, rate, layout, growth, tightening, hash or seed: "
            "expected equal parameters to merge");
  const size_t n = std::max(slices_.size(), other.slices_.size());
  for (size_t i = 0; i < n; ++i) {
    const uint64_t a = i < slices_.size() ? slices_[i].inserted() : 0;
    const uint64_t b = i < other.slices_.size() ? other.slices_[i].inserted() : 0;
    if (a + b > SliceCapacity(i))
      Invalid("merged scalable filter: slice " + std::to_string(i) + " would hold " + std::to_string(a + b) +
              " keys: expected at most its capacity " + std::to_string(SliceCapacity(i)) +
              " (beyond it the slice's rate, and so the overall bound, no longer holds)");
  }
  std::vector<Filter> merged = slices_;
  for (size_t i = merged.size(); i < n; ++i) merged.push_back(other.slices_[i]);
  for (size_t i = 0; i < std::min(slices_.size(), other.slices_.size()); ++i) merged[i].UnionWith(other.slices_[i]);
  slices_ = std::move(merged);
}

bool ScalableFilter::InsertHash(uint64_t hash) {
  if (empty()) detail::ThrowMovedFrom("scalable filter");
  if (MayContainHash(hash)) return false;
  if (slices_.back().inserted() >= SliceCapacity(slices_.size() - 1)) AddSlice();
  slices_.back().InsertHash(DeriveHash(hash, static_cast<uint32_t>(slices_.size() - 1)));
  slices_.back().AddInserted(1);  // the slice's count decides when the next one starts
  return true;
}

bool ScalableFilter::MayContainHash(uint64_t hash) const {
  for (size_t i = 0; i < slices_.size(); ++i) {
    if (slices_[i].MayContainHash(DeriveHash(hash, static_cast<uint32_t>(i)))) return true;
  }
  return false;
}

uint64_t ScalableFilter::inserted() const {
  uint64_t n = 0;
  for (const Filter& s : slices_) n += s.inserted();
  return n;
}

uint64_t ScalableFilter::byte_size() const {
  uint64_t n = 0;
  for (const Filter& s : slices_) n += s.byte_size();
  return n;
}

double ScalableFilter::Fpr() const {
  double pass = 1.0;
  for (const Filter& s : slices_) pass *= 1.0 - PredictFpr(s.layout(), s.num_blocks(), s.k(), s.inserted());
  return 1.0 - pass;
}

}  // namespace blockbloom::garden
