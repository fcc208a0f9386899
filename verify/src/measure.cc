// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/verify/measure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/src/errors.h"

#include "blockbloom/verify/exact_set.h"
#include "blockbloom/model.h"
#include "engine/src/filter_access.h"

namespace blockbloom {
namespace {

using detail::Invalid;

// SplitMix64's finalizer (Steele, Lea & Flood 2014): a bijection of uint64.
uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;  // floor(2^64 / phi)
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform double in [0, 1) from the top 53 bits of Mix64(x).
double Uniform(uint64_t x) { return static_cast<double>(Mix64(x) >> 11) * 0x1.0p-53; }

// Salts that keep the three per-operation decisions (is this insert a
// duplicate, which earlier key, is this probe present) independent of each
// other and of the keys: SplitMix64 outputs 1..3 from state 0.
constexpr uint64_t kSaltDuplicate = 0xe220a8397b1dcdafULL;
constexpr uint64_t kSaltPick = 0x6e789e6aa1b965f4ULL;
constexpr uint64_t kSaltPresent = 0x06c45d188009454fULL;

// Families are 2^40 indices apart: more than any stream inserts or probes.
constexpr unsigned kFamilyShift = 40;

// Operations are generated, inserted and probed this many at a time.
constexpr size_t kBatch = 4096;

// One batch of keys of a stream, as uint64 values or as strings.
class KeyBatch {
 public:
  explicit KeyBatch(const MeasureSpec& spec) : spec_(spec) {}

  void Fill(std::span<const uint64_t> indices) {
    u64_.clear();
    views_.clear();
    text_.clear();
    if (spec_.stream == KeyStream::kUrls) {
      char buf[96];
      offsets_.clear();
      for (uint64_t i : indices) {
        const int len = std::snprintf(buf, sizeof buf, "https://www.example.com/catalog/%llu/products/item-%016llu",
                                      static_cast<unsigned long long>(spec_.family),
                                      static_cast<unsigned long long>(i));
        offsets_.push_back(text_.size());
        text_.append(buf, static_cast<size_t>(len));
      }
      offsets_.push_back(text_.size());
      for (size_t j = 0; j + 1 < offsets_.size(); ++j)
        views_.emplace_back(text_.data() + offsets_[j], offsets_[j + 1] - offsets_[j]);
    } else {
      const uint64_t base = spec_.family << kFamilyShift;
      for (uint64_t i : indices) u64_.push_back(spec_.stream == KeyStream::kRandomU64 ? Mix64(base + i) : base + i);
    }
    if (spec_.hash != nullptr) {
      hashes_.clear();
      for (size_t j = 0; j < indices.size(); ++j) hashes_.push_back(spec_.hash(Bytes(j)));
    }
  }

  size_t size() const { return spec_.stream == KeyStream::kUrls ? views_.size() : u64_.size(); }

  // Key j's bytes (a uint64 key as its 8 little-endian bytes).
  std::string_view Bytes(size_t j) {
    if (spec_.stream == KeyStream::kUrls) return views_[j];
    for (int b = 0; b < 8; ++b) le_[b] = static_cast<char>(u64_[j] >> (8 * b));
    return {le_, 8};
  }

  void InsertInto(Filter& f, ExactSet& exact) {
    if (spec_.hash != nullptr) {
      f.InsertHashBatch(hashes_);
    } else if (spec_.stream == KeyStream::kUrls) {
      f.InsertBatch(std::span<const std::string_view>(views_));
    } else {
      f.InsertBatch(std::span<const uint64_t>(u64_));
    }
    for (size_t j = 0; j < size(); ++j) exact.Insert(Bytes(j));
  }

  size_t Query(const Filter& f, std::span<uint8_t> out) const {
    if (spec_.hash != nullptr) return f.MayContainHashBatch(hashes_, out);
    if (spec_.stream == KeyStream::kUrls) return f.MayContainBatch(std::span<const std::string_view>(views_), out);
    return f.MayContainBatch(std::span<const uint64_t>(u64_), out);
  }

 private:
  const MeasureSpec& spec_;
  std::vector<uint64_t> u64_, hashes_;
  std::string text_;
  std::vector<size_t> offsets_;
  std::vector<std::string_view> views_;
  char le_[8];
};

// The key index of insert operation j: an earlier operation's index for a
// duplicate, else j itself.
uint64_t InsertIndex(const MeasureSpec& spec, uint64_t j) {
  if (j > 0 && Uniform(j ^ kSaltDuplicate) < spec.duplicate_fraction) return Mix64(j ^ kSaltPick) % j;
  return j;
}

// The key index of probe j: one of the insert indices [0, inserts) for a
// present probe (it may still be absent, if that index was a duplicate's
// slot: the ExactSet decides), else a fresh index beyond them.
uint64_t ProbeIndex(const MeasureSpec& spec, uint64_t j) {
  if (spec.inserts > 0 && Uniform(j ^ kSaltPresent) < spec.present_fraction) return Mix64(j ^ kSaltPick) % spec.inserts;
  return spec.inserts + j;
}

// Runs `body(batch)` over operations [0, count) in batches, with the key
// indices given by `index(j)`.
template <typename IndexFn, typename Body>
void ForEachBatch(const MeasureSpec& spec, uint64_t count, IndexFn&& index, Body&& body) {
  KeyBatch batch(spec);
  std::vector<uint64_t> indices;
  for (uint64_t start = 0; start < count; start += kBatch) {
    indices.clear();
    for (uint64_t j = start; j < count && j < start + kBatch; ++j) indices.push_back(index(spec, j));
    batch.Fill(indices);
    body(batch);
  }
}

}  // namespace

std::string_view KeyStreamName(KeyStream stream) {
  switch (stream) {
    case KeyStream::kRandomU64: return "random";
    case KeyStream::kSequentialU64: return "sequential";
    case KeyStream::kUrls: return "urls";
  }
  return "?";
}

std::optional<KeyStream> ParseKeyStream(std::string_view name) {
  for (KeyStream s : kAllKeyStreams) {
    if (KeyStreamName(s) == name) return s;
  }
  return std::nullopt;
}

namespace {
// The share of the binomial variance the scatter may add (SuggestedReplicas).
constexpr double kScatterBudget = 0.1;

// The bits' part of RealizedRateVariance (measure.h).
double BitsScatter(uint64_t bits, uint32_t k, double rate) {
  return bits == 0 ? 0.0 : rate * rate * k * k / static_cast<double>(bits);
}

// The block loads' part (measure.h): moments of f(L) over L ~ Poisson(lambda),
// summed over lambda +- 12 sd (beyond it the weights are below 1e-30), in steps
// that keep the sum to at most ~10^5 terms (f and the weights are smooth on
// that scale when lambda is that large).
double LoadScatter(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n) {
  if (layout == Layout::kClassic || num_blocks <= 1 || n == 0) return 0.0;
  const double lambda = static_cast<double>(n) / static_cast<double>(num_blocks);
  const double sd = std::sqrt(lambda);
  const auto lo = static_cast<uint64_t>(std::max(0.0, std::floor(lambda - 12.0 * sd - 12.0)));
  const auto hi = static_cast<uint64_t>(std::ceil(lambda + 12.0 * sd + 12.0));
  const uint64_t step = std::max<uint64_t>(1, (hi - lo) / 100'000);
  double w_sum = 0.0, f1 = 0.0, f2 = 0.0, fl = 0.0;
  for (uint64_t i = lo; i <= hi; i += step) {
    const double x = static_cast<double>(i);
    const double w = std::exp(x * std::log(lambda) - lambda - std::lgamma(x + 1.0)) * static_cast<double>(step);
    const double f = BlockFpr(layout, k, i);
    w_sum += w;
    f1 += w * f;
    f2 += w * f * f;
    fl += w * f * (x - lambda);
  }
  f1 /= w_sum, f2 /= w_sum, fl /= w_sum;
  const double var_l = lambda * (1.0 - 1.0 / static_cast<double>(num_blocks));  // binomial loads
  return std::max(0.0, f2 - f1 * f1 - fl * fl / var_l) / static_cast<double>(num_blocks);
}

// RealizedRateVariance at the model's rate `rate` of that shape.
double VarianceAt(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n, double rate) {
  return BitsScatter(num_blocks * LayoutBlockBits(layout), k, rate) + LoadScatter(layout, num_blocks, k, n);
}
}  // namespace

double RealizedRateVariance(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n) {
  return VarianceAt(layout, num_blocks, k, n, PredictFpr(layout, num_blocks, k, n));  // PredictFpr checks the shape
}

uint64_t SuggestedReplicas(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n, uint64_t probes) {
  const double rate = PredictFpr(layout, num_blocks, k, n);
  const double variance = VarianceAt(layout, num_blocks, k, n, rate);
  if (!(rate > 0.0) || !(variance > 0.0)) return 1;
  const double per_filter = std::max(1.0, kScatterBudget * rate * (1.0 - rate) / variance);
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(static_cast<double>(probes) / per_filter)));
}

Measurement MeasureFpr(Filter& filter, const MeasureSpec& spec) {
  if (!(spec.duplicate_fraction >= 0.0 && spec.duplicate_fraction < 1.0))
    Invalid("duplicate_fraction = " + std::to_string(spec.duplicate_fraction) + " is out of range: expected 0 <= f < 1");
  if (!(spec.present_fraction >= 0.0 && spec.present_fraction <= 1.0))
    Invalid("present_fraction = " + std::to_string(spec.present_fraction) + " is out of range: expected 0..1");
  if (spec.replicas == 0) Invalid("replicas = 0 is out of range: expected at least 1");
  if (spec.probes < spec.replicas)
    Invalid("probes = " + std::to_string(spec.probes) + " is out of range: expected at least replicas = " +
            std::to_string(spec.replicas));
  if (spec.inserts >= (uint64_t{1} << kFamilyShift) || spec.probes >= (uint64_t{1} << kFamilyShift) ||
      spec.family + spec.replicas >= (uint64_t{1} << (64 - kFamilyShift)))
    Invalid("inserts and probes must each be below 2^40, family + replicas below 2^24");

  Measurement m;
  uint64_t absent = 0, false_positives = 0;
  std::vector<uint8_t> out(kBatch);
  for (uint64_t r = 0; r < spec.replicas; ++r) {
    MeasureSpec rs = spec;
    rs.family = spec.family + r;
    rs.probes = spec.probes / spec.replicas + (r < spec.probes % spec.replicas ? 1 : 0);
    filter.Clear();
    ExactSet exact(static_cast<size_t>(rs.inserts));
    ForEachBatch(rs, rs.inserts, InsertIndex, [&](KeyBatch& b) { b.InsertInto(filter, exact); });
    detail::FilterAccess::SetInserted(filter, rs.inserts);
    // Duplicates depend on the operation index only: every replica has the same n.
    m.distinct_keys = exact.size();
    uint64_t false_negatives = 0;
    ForEachBatch(rs, rs.inserts, InsertIndex, [&](KeyBatch& b) { false_negatives += b.size() - b.Query(filter, out); });
    m.false_negatives += false_negatives;

    // Absent probes and the false positives among them.
    ForEachBatch(rs, rs.probes, ProbeIndex, [&](KeyBatch& b) {
      b.Query(filter, out);
      for (size_t j = 0; j < b.size(); ++j) {
        // Without false negatives a miss is absent for sure; otherwise ask.
        if (!out[j] && false_negatives == 0) {
          ++absent;
          continue;
        }
        const bool present = exact.Contains(b.Bytes(j));
        m.present_probes += present;
        absent += !present;
        false_positives += out[j] && !present;
      }
    });
  }
  const double predicted = PredictFpr(filter.layout(), filter.num_blocks(), filter.k(), m.distinct_keys);
  m.check = CheckFpr(false_positives, absent, predicted, spec.confidence);
  return m;
}

StreamedMeasurement MeasureFprStreamed(Filter& filter, const StreamedSpec& spec) {
  constexpr uint64_t kIndexLimit = uint64_t{1} << kFamilyShift;
  if (spec.keys == 0) Invalid("keys = 0 is out of range: expected at least 1");
  if (spec.probes == 0) Invalid("probes = 0 is out of range: expected at least 1");
  if (spec.keys >= kIndexLimit || spec.probes >= kIndexLimit - spec.keys)
    Invalid("keys + probes = " + std::to_string(spec.keys) + " + " + std::to_string(spec.probes) +
            " is out of range: expected below 2^40");
  if (spec.family >= (uint64_t{1} << (64 - kFamilyShift)))
    Invalid("family = " + std::to_string(spec.family) + " is out of range: expected below 2^24");
  if (!(spec.confidence > 0.0 && spec.confidence < 1.0))
    Invalid("confidence = " + std::to_string(spec.confidence) + " is out of range: expected 0 < C < 1");
  constexpr uint64_t kProgressEvery = uint64_t{1} << 26;
  const uint64_t base = spec.family << kFamilyShift;
  std::vector<uint64_t> keys(kBatch);
  std::vector<uint8_t> out(kBatch);
  // Runs body(count) over index [first, first + total) in batches, keys[] filled.
  auto stream = [&](const char* stage, uint64_t first, uint64_t total, auto&& body) {
    for (uint64_t done = 0; done < total;) {
      const size_t len = static_cast<size_t>(std::min<uint64_t>(kBatch, total - done));
      for (size_t j = 0; j < len; ++j) keys[j] = Mix64(base + first + done + j);
      body(len);
      done += len;
      if (spec.progress != nullptr && (done % kProgressEvery < len || done == total)) spec.progress(stage, done, total);
    }
  };

  StreamedMeasurement m;
  m.keys = spec.keys;
  filter.Clear();
  stream("insert", 0, spec.keys, [&](size_t len) { filter.InsertBatch(std::span<const uint64_t>(keys.data(), len)); });

  // False negatives on an evenly spread sample of the inserted indices.
  const uint64_t checks = std::min(spec.negative_checks, spec.keys);
  const uint64_t step = checks == 0 ? 1 : spec.keys / checks;  // >= 1; indices (start + j) step < keys
  for (uint64_t start = 0; start < checks; start += kBatch) {
    const size_t len = static_cast<size_t>(std::min<uint64_t>(kBatch, checks - start));
    for (size_t j = 0; j < len; ++j) keys[j] = Mix64(base + (start + j) * step);
    m.false_negatives += len - filter.MayContainBatch(std::span<const uint64_t>(keys.data(), len), std::span<uint8_t>(out.data(), len));
  }
  m.negatives_checked = checks;

  uint64_t hits = 0;
  stream("probe", spec.keys, spec.probes, [&](size_t len) {
    hits += filter.MayContainBatch(std::span<const uint64_t>(keys.data(), len), std::span<uint8_t>(out.data(), len));
  });
  const double predicted = PredictFpr(filter.layout(), filter.num_blocks(), filter.k(), spec.keys);
  m.check = CheckFpr(hits, spec.probes, predicted, spec.confidence);
  const double trials = static_cast<double>(spec.probes);
  const double sd = std::sqrt(trials * predicted * (1.0 - predicted));
  m.z = sd > 0.0 ? (static_cast<double>(hits) - trials * predicted) / sd : 0.0;
  return m;
}

}  // namespace blockbloom
