// Aging filters of the garden: they forget old keys so that a stream never
// fills them. Both have FALSE NEGATIVES BY DESIGN: an old key may be reported
// absent. Plain C++; keys hashed once (garden/common.h).
#ifndef BLOCKBLOOM_GARDEN_AGING_H_
#define BLOCKBLOOM_GARDEN_AGING_H_

#include <cstdint>

#include "blockbloom/filter.h"
#include "blockbloom/garden/common.h"

namespace blockbloom::garden {

// ---- StableFilter (Deng & Rafiei 2006) -------------------------------------------------
// m cells of d bits, Max = 2^d - 1. Each insert first decrements P cells chosen
// uniformly at random (a SplitMix64 stream seeded by the user, so runs are
// reproducible; cells at 0 stay 0), then sets the key's K cells to Max. A query
// is positive if all K cells are non-zero.
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
// (seeds/001 quotes 1 / (P/K - P/m + 1) = 1 - a: the non-zero probability of
// one cell with Max = 1, before raising to the K cells.)
//
// False negatives by design: a key's cells are decremented by later inserts;
// the key just inserted is always found, older keys fade.
class StableFilter {
 public:
  // cells m >= 1; k = K in [1, 32]; cell_bits d in {1, 2, 4, 8}; decrements P
  // in [0, m]. Throws std::invalid_argument naming the parameter otherwise.
  StableFilter(uint64_t cells, uint32_t k, uint32_t cell_bits, uint64_t decrements, uint64_t rng_seed = 0,
               HashKind hash = HashKind::kXxh3, uint64_t seed = 0);

  template <Key K> void Insert(const K& key) { InsertHash(hasher_(key)); }
  template <Key K> bool MayContain(const K& key) const { return MayContainHash(hasher_(key)); }
  void InsertHash(uint64_t hash);
  bool MayContainHash(uint64_t hash) const;

  uint64_t cells() const { return cells_.size(); }
  uint32_t k() const { return k_; }
  uint32_t cell_bits() const { return cells_.width(); }
  uint64_t max_value() const { return cells_.max(); }
  uint64_t decrements() const { return decrements_; }
  uint64_t inserted() const { return inserted_; }
  uint64_t CellAt(uint64_t i) const { return cells_.Get(i); }
  uint64_t ZeroCells() const { return cells_.CountEqual(0); }
  // The limits of the formulas above for this filter's m, K, P, Max.
  double StableZeroFraction() const;
  double StableFpr() const;

 private:
  uint32_t k_;
  uint64_t decrements_;
  KeyHasher hasher_;
  SplitMix64 rng_;
  PackedCounters cells_;
  uint64_t inserted_ = 0;
};

// (1 / (1 + 1 / (P (1/K - 1/m))))^Max and (1 - that)^K.
double StableZeroFraction(double m, double k, double p, double max);
double StableFpr(double m, double k, double p, double max);

// ---- A2Filter (Yoon 2010, active-active buffering) ---------------------------------------------
// Two classic bit vectors of m/2 bits (blockbloom::Filter, Layout::kClassic),
// the active one and the passive one, with k_a probes each. A query is positive
// if either vector holds the key. Insert returns at once if the ACTIVE vector
// already holds the key (seeds/001 and THEORY.md: "unless already there";
// a key only in the passive one is re-inserted, so it survives the next swap);
// otherwise the key goes into the active vector. When the active vector holds
// `capacity` keys it is full: the next new key first clears the passive
// vector and swaps the roles (the full one becomes passive), then goes in.
//
// Sizing for a target rate f over both vectors: 1 - (1 - f_a)^2 = f gives the
// per-vector rate f_a = 1 - sqrt(1 - f). A vector of m/2 bits at its optimal
// fill (half its bits set) has rate 2^-k, so k_a = floor(-log2 f_a), and the
// classic optimum k = (m/2)/n ln 2 gives capacity floor((m / (2 k_a)) ln 2).
// Note: the floor makes 2^-k_a >= f_a, so with both vectors full the rate is
// 1 - (1 - 2^-k_a)^2, up to twice f; FprAtCapacity() reports it.
//
// Guarantee: every key passed to Insert since the start of the previous
// generation (at least the last `capacity` distinct new keys) is found.
// Older keys are forgotten: false negatives by design.
class A2Filter {
 public:
  struct Params {
    uint32_t k;         // k_a
    uint64_t capacity;  // keys per vector
    double vector_fpr;  // f_a = 1 - sqrt(1 - f)
  };
  // k_a and the capacity for m bits and target rate f. Throws
  // std::invalid_argument for bits < 2, fpr outside (0, 1), or a k_a outside
  // [1, 32] or capacity 0 (too few bits for that rate).
  static Params ParamsFor(uint64_t bits, double fpr);

  // m = bits in total (m/2 per vector, rounded down).
  A2Filter(uint64_t bits, double fpr, HashKind hash = HashKind::kXxh3, uint64_t seed = 0);

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
  // classic exact rate of an m/2-bit vector with k_a probes.
  double Fpr() const;
  // Both vectors at capacity.
  double FprAtCapacity() const;

 private:
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
