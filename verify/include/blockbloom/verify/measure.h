// SPDX-License-Identifier: Apache-2.0
// Measuring a filter's false-positive rate honestly: the one routine that
// `blockbloom verify` and the tests share.
//
// Stages: generate the insert stream (with duplicates if asked), insert it into
// the filter and into an ExactSet; query every inserted key (a false negative
// is a bug, counted); generate the probe stream (absent keys, plus present ones
// if asked), query it, and classify every hit against the ExactSet: a present
// probe is a true positive, an absent one a false positive. The rate is false
// positives / absent probes, and the model's rate is taken at n = the number of
// distinct keys inserted. Then CheckFpr (stats.h) holds the measurement against
// the model's binomial acceptance interval.
//
// Only hits are looked up in the ExactSet: with no false negatives every
// present probe is a hit, so absent probes = probes - present hits. If the
// filter did give false negatives, every probe is looked up instead.
#ifndef BLOCKBLOOM_VERIFY_MEASURE_H_
#define BLOCKBLOOM_VERIFY_MEASURE_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "blockbloom/filter.h"
#include "blockbloom/verify/stats.h"

namespace blockbloom {

// Key families, each an injection from the key index i (distinct i, distinct keys):
enum class KeyStream : uint8_t {
  kRandomU64,      // "random": SplitMix64's bijective finalizer of (family, i)
  kSequentialU64,  // "sequential": family * 2^40 + i, adversarial for weak hashes
  kUrls,           // "urls": "https://www.example.com/catalog/<family>/products/item-<i, 16 digits>",
                   // (64 bytes for family 0, all sharing their first 48)
};
inline constexpr KeyStream kAllKeyStreams[] = {KeyStream::kRandomU64, KeyStream::kSequentialU64, KeyStream::kUrls};
std::string_view KeyStreamName(KeyStream stream);
std::optional<KeyStream> ParseKeyStream(std::string_view name);

struct MeasureSpec {
  KeyStream stream = KeyStream::kRandomU64;
  uint64_t family = 0;            // selects disjoint key families (a seed)
  uint64_t inserts = 0;           // insert operations, duplicates included
  double duplicate_fraction = 0;  // of inserts that repeat an earlier key, in [0, 1)
  uint64_t probes = 0;            // query operations
  double present_fraction = 0;    // of probes drawn from the inserted indices, in [0, 1]
  // Independent filters to spread the probes over (replica r uses key family
  // family + r). The model is the expected rate over key sets; one filter's
  // realized rate scatters around it (relative sd ~ k / sqrt(bits) when half
  // full), which the binomial interval does not cover. Keep
  // probes-per-filter * rate * k^2 / bits well below 1, e.g. by many
  // replicas for tiny filters.
  uint64_t replicas = 1;
  double confidence = 0.9999;     // of the acceptance interval
  // Negative controls: if set, keys (uint64 keys as their 8 LE bytes) are hashed
  // with this instead of the filter's own hash, through the *Hash methods.
  uint64_t (*hash)(std::string_view key) = nullptr;
};

struct Measurement {
  uint64_t distinct_keys = 0;    // the model's n
  uint64_t false_negatives = 0;  // inserted keys the filter denied (must be 0)
  uint64_t present_probes = 0;   // probes that were inserted keys
  FprCheck check;                // absent probes, false positives, model, intervals, pass
  bool pass() const { return false_negatives == 0 && check.pass; }
};

// The variance of one filter's realized false-positive rate around the
// model's expectation, over key sets: the scatter the binomial interval leaves
// out. Two parts, added:
//   - the bits' own: rate^2 k^2 / m (m bits, half full; a classic filter's);
//   - for the blocked layouts, the block loads': one filter's rate is the mean
//     of f(L_b) over its B blocks (f = BlockFpr, model.h; L_b its keys), so it
//     scatters by (Var f(L) - Cov(f(L), L)^2 / Var L) / B with L ~ Poisson(n/B),
//     the covariance term removing what the fixed total n cannot vary.
// Measured over 40 key families (fpr_test's FilterScatterMatchesPrediction):
// at 50,000 keys, 20 bits/key, sectorized512 k = 16 scatters 12x the binomial
// variance of the probes that size its 5% interval, the bits' part alone 1.9x.
double RealizedRateVariance(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n);

// Replicas that keep the realized-rate scatter within a tenth of the binomial
// variance: probes-per-filter P needs P var / (rate (1 - rate)) <= 0.1, with
// var = RealizedRateVariance and rate = PredictFpr; returns ceil(probes / P_max).
uint64_t SuggestedReplicas(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n, uint64_t probes);

// Measures as above, once per replica (clearing `filter` before each), probes
// split evenly, counts summed. Throws std::invalid_argument naming the field
// for fractions out of range, replicas = 0 or probes < replicas.
Measurement MeasureFpr(Filter& filter, const MeasureSpec& spec);

// ---- Streamed measurement: no exact set, any size ----------------------------------
// For filters too large for an ExactSet (10^9 keys and beyond). Keys are
// Mix64(family 2^40 + i) for i in [0, keys) (SplitMix64's finalizer, a
// bijection of uint64, so the keys are distinct: n = keys exactly), and the
// probes are Mix64(family 2^40 + keys + j) for j in [0, probes): a disjoint
// index range, so every probe is absent by construction and every hit is a
// false positive. Memory is the filter plus one batch of 4096 keys. False
// negatives are checked on `negative_checks` inserted keys spread evenly over
// the insert order (all of them if fewer).
//
// One filter per measurement: its realized rate scatters around the model's
// expectation (RealizedRateVariance above), which the binomial interval does
// not cover; that is negligible while probes x variance / (rate (1 - rate))
// << 1 (the bits' part at 2 x 10^8 probes at 1%, k = 6, m = 10^10 bits: 0.007),
// i.e. for the large filters this mode is for (SuggestedReplicas above says
// when not; `blockbloom verify --streamed` warns above 0.1).
//
// Probes for a relative half-width r of the model's acceptance interval at
// confidence C: N = (z / r)^2 (1 - p) / p (stats.h); at r = 5%, C = 99.99%
// (z = 3.89): 6.0e5 / (p / 1%) probes, i.e. 6.0e7 at 1e-4, 6.0e9 at 1e-6.
struct StreamedSpec {
  uint64_t keys = 0;            // n
  uint64_t probes = 0;          // absent-key queries
  uint64_t family = 0;          // below 2^24; keys + probes below 2^40
  double confidence = 0.9999;   // of the acceptance interval
  uint64_t negative_checks = uint64_t{1} << 20;
  // Called now and then (every 2^26 operations) with the stage ("insert",
  // "probe"), operations done and the stage's total; may be null.
  void (*progress)(const char* stage, uint64_t done, uint64_t total) = nullptr;
};

struct StreamedMeasurement {
  uint64_t keys = 0;             // the model's n
  uint64_t negatives_checked = 0;
  uint64_t false_negatives = 0;  // must be 0
  FprCheck check;                // probes, false positives, model, intervals, pass
  double z = 0;                  // (hits - N p) / sqrt(N p (1 - p)): measured against the model in sd
  bool pass() const { return false_negatives == 0 && check.pass; }
};

// Inserts `keys` streamed keys into `filter` (cleared first; inserted() set to
// keys), checks the sample for false negatives, probes, and holds the count
// against PredictFpr at n = keys. Throws std::invalid_argument naming the
// field for keys = 0, probes = 0, keys + probes >= 2^40 or family >= 2^24.
StreamedMeasurement MeasureFprStreamed(Filter& filter, const StreamedSpec& spec);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_VERIFY_MEASURE_H_
