#include <cmath>
#include <limits>
#include <string>

#include "blockbloom/garden/scalable.h"
#include "blockbloom/model.h"
#include "engine/src/garden_internal.h"

namespace blockbloom::garden {

using internal::CheckOpen;
using internal::CheckRange;

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

uint64_t ScalableFilter::SliceCapacity(size_t i) const {
  uint64_t n = initial_capacity_;
  for (size_t j = 0; j < i; ++j) {
    if (n > std::numeric_limits<uint64_t>::max() / options_.growth) return std::numeric_limits<uint64_t>::max();
    n *= options_.growth;
  }
  return n;
}

double ScalableFilter::SliceFpr(size_t i) const { return fpr_ * std::pow(options_.tightening, static_cast<double>(i)); }

void ScalableFilter::AddSlice() {
  const size_t i = slices_.size();
  // Throws (naming the rate) once P_0 r^i or n_0 s^i is beyond what the layout can reach.
  slices_.push_back(Filter::ForKeys(options_.layout, SliceCapacity(i), SliceFpr(i), options_.hash, options_.seed));
}

bool ScalableFilter::InsertHash(uint64_t hash) {
  if (MayContainHash(hash)) return false;
  if (slices_.back().inserted() >= SliceCapacity(slices_.size() - 1)) AddSlice();
  slices_.back().InsertHash(DeriveHash(hash, static_cast<uint32_t>(slices_.size() - 1)));
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
