// SPDX-License-Identifier: Apache-2.0
// Aging filters of the garden: they forget old keys so that a stream never
// fills them. Both have FALSE NEGATIVES BY DESIGN: an old key may be reported
// absent. Plain C++; keys hashed once (blockbloom/garden/common.h).
#ifndef BLOCKBLOOM_GARDEN_AGING_H_
#define BLOCKBLOOM_GARDEN_AGING_H_

#include <cstdint>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/garden/common.h"

namespace blockbloom::garden {

// ---- StableFilter (Deng & Rafiei 2006) -------------------------------------------------
// m cells holding 0..Max, any Max in [1, 255] (Deng & Rafiei use Max = 1..7;
// each cell is stored in the smallest of 1, 2, 4 or 8 bits that holds Max, so
// Max = 5 costs 4 bits a cell). Each insert first decrements P DISTINCT cells
// chosen uniformly at random, as the paper does (Floyd's sampling over a
// SplitMix64 stream seeded by the user, so runs are reproducible; cells at 0
// stay 0), then sets the key's K cells to Max. A query is positive if all K
// cells are non-zero.
//
// Stable point. Look at one cell. Per insert it is set to Max with probability
// s = K/m (it is one of the key's K cells) and otherwise decremented with
// probability q = (P/m)(1 - K/m) (the set, coming after the decrements, wins
// when both happen). Looking back from now over the events that touch the cell,
// each one is a decrement with probability a = q / (q + s); the cell is 0 iff
// the last Max events were all decrements (it went Max -> 0 since its last set).
// So once every cell has seen many events, the zero fraction converges to
//   Z = a^Max,  a = q / (q + s) = 1 / (1 + 1 / (P (1/K - 1/m)))
// (q/s = P (1/K - 1/m)), independent of the stream, and the stable
// false-positive rate of a fresh key (K cells, each non-zero with probability
// 1 - Z) is
//   FPR = (1 - Z)^K.
// Convergence: after N inserts a cell has seen about N (P + K)/m events; the
// formula holds once that is well above Max.
// ("A Garden Variety of Bloom Filters" quotes 1 / (P/K - P/m + 1) = 1 - a:
// the non-zero probability of one cell with Max = 1, before raising to the K
// cells.)
//
// False negatives by design: a key's cells are decremented by later inserts;
// the key just inserted is always found, older keys fade (at m = 4096, K = 4,
// Max = 3, P = 20, 20000 inserts later more than half of the first 1000 keys
// are gone: tests/garden/garden_test.cc).
//
// Merge: refused (MergeFrom throws std::invalid_argument): two streams' aging
// does not add up to one stream's.
//
// Thread safety: const members may run concurrently with each other; any
// writer (Insert, Clear, MergeFrom, a load) needs exclusive access.
class StableFilter {
 public:
  // Largest Max: cells of at most 8 bits.
  static constexpr uint32_t kMaxMax = 255;

  // cells m >= 1; k = K in [1, 32]; max_value Max in [1, 255]; decrements P
  // in [0, m]. Throws std::invalid_argument naming the parameter otherwise.
  StableFilter(uint64_t cells, uint32_t k, uint32_t max_value, uint64_t decrements, uint64_t rng_seed = 0,
               HashKind hash = HashKind::kXxh3, uint64_t seed = 0);

  template <Key K> void Insert(const K& key) { InsertHash(hasher_(key)); }
  template <Key K> bool MayContain(const K& key) const { return MayContainHash(hasher_(key)); }
  void InsertHash(uint64_t hash);
  bool MayContainHash(uint64_t hash) const;

  // True only for a moved-from object (garden.h, "Moved-from objects").
  bool empty() const { return cells_.empty(); }
  uint64_t cells() const { return cells_.size(); }
  uint32_t k() const { return k_; }
  uint32_t cell_bits() const { return cells_.width(); }  // storage bits per cell
  uint64_t max_value() const { return max_; }
  uint64_t decrements() const { return decrements_; }
  uint64_t inserted() const { return inserted_; }
  uint64_t rng_seed() const { return rng_seed_; }
  const KeyHasher& hasher() const { return hasher_; }
  // Back to the constructed state (the random stream restarts from rng_seed).
  void Clear();
  // Always throws std::invalid_argument: aging filters do not merge.
  void MergeFrom(const StableFilter& other);
  uint64_t CellAt(uint64_t i) const { return cells_.Get(i); }
  uint64_t ZeroCells() const { return cells_.CountEqual(0); }
  // The limits of the formulas above for this filter's m, K, P, Max.
  double StableZeroFraction() const;
  double StableFpr() const;

 private:
  friend struct GardenCodec;
  uint32_t k_;
  uint64_t max_;
  uint64_t decrements_;
  uint64_t rng_seed_;
  KeyHasher hasher_;
  SplitMix64 rng_;
  PackedCounters cells_;
  uint64_t inserted_ = 0;
  std::vector<uint64_t> picked_;  // scratch of InsertHash: the distinct cells to decrement
};

// (1 / (1 + 1 / (P (1/K - 1/m))))^Max and (1 - that)^K.
double StableZeroFraction(double m, double k, double p, double max);
double StableFpr(double m, double k, double p, double max);

// ---- A2Filter (Yoon 2010, active-active buffering) ---------------------------------------------
// Two classic bit vectors of m/2 bits (blockbloom::Filter, Layout::kClassic),
// the active one and the passive one, with k_a probes each. A query is positive
// if either vector holds the key. Insert returns at once if the ACTIVE vector
// already holds the key (the garden article and the project's shared theory
// notes: "unless already there"; a key only in the passive one is
// re-inserted, so it survives the next swap);
// otherwise the key goes into the active vector. When the active vector holds
// `capacity` keys it is full: the next new key first clears the passive
// vector and swaps the roles (the full one becomes passive), then goes in.
//
// Sizing for a target rate f over both vectors: 1 - (1 - f_a)^2 = f gives the
// per-vector rate f_a = 1 - sqrt(1 - f). The article then takes k_a =
// floor(-log2 f_a) and capacity (m / (2 k_a)) ln 2 (the vector half full);
// but with k_a rounded down, 2^-k_a >= f_a, and the filter misses its target:
// 1.56% at capacity for a 1% target (m = 2^20), 3.10% for 2%. So the capacity
// here is the exact one: for every k in [1, 32], the largest n with
//   1 - (1 - f_c(m/2, n, k))^2 <= f,  f_c(M, n, k) = ClassicDoubleHashingFpr(M, k, n)
// (the vectors' own rate, blockbloom/model.h, both vectors at n keys), by
// bisection; k_a is the k with the largest such n (the smallest on ties).
// m = 2^20, f = 1%: k_a = 8, capacity 47,533 (the article's k_a = 7 holds
// 47,449 within 1%, its formula claims 51,915); f = 2%: k_a = 7, 54,710;
// f = 0.1%: k_a = 11, 33,136. FprAtCapacity() <= f always.
// Files written before 2026-11-28 were sized with the textbook
// (1 - (1 - 1/M)^(kn))^k in place of f_c (TextbookParamsFor; capacities a few
// keys larger, 47,534 at m = 2^20, f = 1%): they load with the k_a and capacity
// they were written with, and save them back unchanged.
//
// Guarantee: every key passed to Insert since the start of the previous
// generation (at least the last `capacity` distinct new keys) is found.
// Older keys are forgotten: false negatives by design.
//
// Merge (MergeFrom): ORs active into active and passive into passive and adds
// the counts; refused (std::invalid_argument, naming why) for different
// parameters or when a summed count would exceed the capacity (the target
// rate would no longer hold).
//
// Thread safety: const members may run concurrently with each other; any
// writer (Insert, Clear, MergeFrom, a load) needs exclusive access.
class A2Filter {
 public:
  struct Params {
    uint32_t k;         // k_a
    uint64_t capacity;  // keys per vector
    double vector_fpr;  // f_c(m/2, capacity, k_a): one full vector's rate, <= 1 - sqrt(1 - f)
  };
  // k_a and the capacity for m bits and target rate f (see above). Throws
  // std::invalid_argument for bits < 2, fpr outside (0, 1), or capacity 0
  // (too few bits for that rate: the message names the bits needed).
  static Params ParamsFor(uint64_t bits, double fpr);

  // m = bits in total (m/2 per vector, rounded down).
  A2Filter(uint64_t bits, double fpr, HashKind hash = HashKind::kXxh3, uint64_t seed = 0);

  // True only for a moved-from object (garden.h, "Moved-from objects").
  bool empty() const { return vectors_[0].empty(); }
  uint64_t bits() const { return bits_; }
  double target_fpr() const { return fpr_; }
  const KeyHasher& hasher() const { return hasher_; }
  void Clear();
  void MergeFrom(const A2Filter& other);

  // True if the key went into the active vector, false if it was already there.
  template <Key K> bool Insert(const K& key) { return InsertHash(hasher_(key)); }
  template <Key K> bool MayContain(const K& key) const { return MayContainHash(hasher_(key)); }
  bool InsertHash(uint64_t hash);
  bool MayContainHash(uint64_t hash) const;

  uint32_t k() const { return params_.k; }
  uint64_t capacity() const { return params_.capacity; }
  uint64_t active_count() const { return active_count_; }
  uint64_t passive_count() const { return passive_count_; }
  uint64_t swaps() const { return swaps_; }
  const Filter& active() const { return vectors_[active_]; }
  const Filter& passive() const { return vectors_[1 - active_]; }
  // The model now: 1 - (1 - f(active_count)) (1 - f(passive_count)), f the
  // rate of an m/2-bit classic vector with k_a probes (ClassicDoubleHashingFpr).
  double Fpr() const;
  // Both vectors at capacity.
  double FprAtCapacity() const;

 private:
  friend struct GardenCodec;
  // The sizing of files written before 2026-11-28 (above); the codec accepts it.
  static Params TextbookParamsFor(uint64_t bits, double fpr);
  A2Filter(uint64_t bits, double fpr, Params params, HashKind hash, uint64_t seed);
  uint64_t bits_;
  double fpr_;
  Params params_;
  KeyHasher hasher_;
  Filter vectors_[2];
  int active_ = 0;
  uint64_t active_count_ = 0;
  uint64_t passive_count_ = 0;
  uint64_t swaps_ = 0;
};

}  // namespace blockbloom::garden

#endif  // BLOCKBLOOM_GARDEN_AGING_H_
