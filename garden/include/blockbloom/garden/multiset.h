// SPDX-License-Identifier: Apache-2.0
// Multiset filters of the garden: counting (Fan, Cao, Almeida & Broder),
// spectral (Cohen & Matias), count-min (Cormode & Muthukrishnan) and bitwise
// (Lall et al.). Plain C++; keys hashed once (blockbloom/garden/common.h) and spread over
// k cells by double hashing.
//
// Notation: m cells, n keys inserted, k cells per key, w bits per counter.
//
// Membership in every counter-based filter here is "all k counters non-zero",
// so before any delete it is exactly the classic layout over m cells, with the
// same double-hashed probes: f = ClassicDoubleHashingFpr(m, k, n)
// (blockbloom/model.h), which for large m is the textbook
//   f = (1 - (1 - 1/m)^(kn))^k                        (ClassicFprExact)
// Example: m/n = 8, k = 6 -> 2.16%.
#ifndef BLOCKBLOOM_GARDEN_MULTISET_H_
#define BLOCKBLOOM_GARDEN_MULTISET_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "blockbloom/hash.h"
#include "blockbloom/garden/common.h"

namespace blockbloom::garden {

// ---- Counter overflow (Fan et al.; the source slides' "Counter overflow probability") --
// One counter c(i) counts how many of the nk probes hit cell i:
//   P[c(i) = j] = C(nk, j) (1/m)^j (1 - 1/m)^(nk - j),
// so P[c(i) >= j] <= C(nk, j) / m^j (union over the j-subsets of probes)
// <= (e n k / (j m))^j (C(N, j) <= (e N / j)^j), and by the union bound over the
// m counters
//   P[max_i c(i) >= j] <= m (e n k / (j m))^j.
// With k <= (m/n) ln 2 this is <= m (e ln 2 / j)^j; for 4-bit counters
// (j = 16) that is m * 1.37e-15.
double CounterOverflowBound(double m, double n, double k, double j);
// m (e ln 2 / j)^j: the bound at k = (m/n) ln 2.
double CounterOverflowBoundAtOptimalK(double m, double j);
// The exact tail of one counter, P[Binomial(nk, 1/m) >= j] (summed in log space).
double CounterTailExact(double m, double n, double k, uint64_t j);

// ---- CountingFilter -------------------------------------------------------------
// The classic optimum for n distinct keys at rate fpr: m = ceil(-n ln p /
// (ln 2)^2) cells, k = round((m / n) ln 2) clamped to [1, 32]. Every real is
// checked before it becomes an integer: throws std::invalid_argument naming
// the parameter for n = 0, fpr outside (0, 1), or more cells than a counter
// array holds (2^52: fpr = 1e-300 at n = 2^40 needs 1.6e15, within it).
struct CountingParams {
  uint64_t cells;
  uint32_t k;
};
CountingParams SolveCounting(uint64_t n, double fpr);

// A counting Bloom filter: m packed w-bit counters (w = 4 by default, as Fan et
// al. found enough; any of 1, 2, 4, 8, 16, 32). Insert increments the key's k
// counters, Remove decrements them, MayContain tests that all are non-zero,
// Count returns their minimum (Minimum Selection: never below the true count
// while no counter saturated and nothing was removed that was not inserted).
//
// Saturation: a counter that reaches 2^w - 1 sticks there. It never wraps
// (which would turn a full counter into 0: a false negative at once) and is
// never decremented (its true value is unknown, so decrementing could reach 0
// while keys still need it). saturations() counts the increments lost this way.
// The cost: a stuck counter never returns to 0, so removed keys may still test
// positive, and Count under-counts keys whose minimum counter is stuck.
//
// False negatives: Remove of a key that was never inserted (or removed more
// often than inserted) decrements counters other keys rely on and CAN CAUSE
// FALSE NEGATIVES for them. Remove refuses keys whose counters include a 0
// (those were surely never inserted), but a false-positive key passes that test.
// Only remove keys you inserted.
//
// Merge (MergeFrom): counter-wise saturating add, exactly the filter built from
// both streams (min(a + b, max) = min(min(a, max) + min(b, max), max)); the
// Summary Cache use (Fan et al.: proxies exchange digests). Refused, naming
// the difference, for different cells, k, width, hash or seed.
//
// Batches: InsertHashBatch / RemoveHashBatch / MayContainHashBatch /
// CountHashBatch prefetch the k cells of the key kPrefetchAhead keys ahead
// (one line per cell: k misses per key at DRAM sizes) and answer exactly as
// the per-key calls in order.
//
// Thread safety: const members may run concurrently with each other; any
// writer (Insert, Remove, Clear, MergeFrom, a load) needs exclusive access.
class CountingFilter {
 public:
  static constexpr uint32_t kDefaultWidth = 4;  // Fan et al.: 4 bits per counter suffice

  // Throws std::invalid_argument naming the parameter for cells = 0, k outside
  // [1, 32] or a width not in {1, 2, 4, 8, 16, 32}.
  CountingFilter(uint64_t cells, uint32_t k, uint32_t width = kDefaultWidth,
                 HashKind hash = HashKind::kXxh3, uint64_t seed = 0);
  // Sized for n distinct keys at rate fpr by SolveCounting (below).
  static CountingFilter ForKeys(uint64_t n, double fpr, uint32_t width = kDefaultWidth,
                                HashKind hash = HashKind::kXxh3, uint64_t seed = 0);

  template <Key K> void Insert(const K& key) { InsertHash(hasher_(key)); }
  // Returns false, changing nothing, if some counter of the key is 0 (the key
  // was surely not inserted). See the false-negative warning above.
  template <Key K> bool Remove(const K& key) { return RemoveHash(hasher_(key)); }
  template <Key K> bool MayContain(const K& key) const { return MayContainHash(hasher_(key)); }
  // Minimum Selection estimate of the key's multiplicity.
  template <Key K> uint64_t Count(const K& key) const { return CountHash(hasher_(key)); }

  void InsertHash(uint64_t hash);
  bool RemoveHash(uint64_t hash);
  bool MayContainHash(uint64_t hash) const;
  uint64_t CountHash(uint64_t hash) const;

  // Batches over precomputed hashes (KeyHasher or hasher()): equal to the
  // per-key calls in order. out must hold hashes.size() entries (throws
  // std::invalid_argument otherwise). Return the number of 1s / removals.
  void InsertHashBatch(std::span<const uint64_t> hashes);
  size_t RemoveHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> removed);
  size_t MayContainHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> out) const;
  void CountHashBatch(std::span<const uint64_t> hashes, std::span<uint64_t> out) const;

  void MergeFrom(const CountingFilter& other);
  bool operator==(const CountingFilter& other) const;

  // True only for a moved-from object (garden.h, "Moved-from objects").
  bool empty() const { return counters_.empty(); }
  uint64_t cells() const { return counters_.size(); }
  uint32_t k() const { return k_; }
  uint32_t width() const { return counters_.width(); }
  uint64_t max_count() const { return counters_.max(); }
  const KeyHasher& hasher() const { return hasher_; }
  uint64_t byte_size() const { return counters_.byte_size(); }
  // Increments lost to stuck counters since construction.
  uint64_t saturations() const { return saturations_; }
  // Counters stuck at 2^w - 1 now.
  uint64_t SaturatedCells() const { return counters_.CountEqual(counters_.max()); }
  // Counter i (for inspection and tests).
  uint64_t CounterAt(uint64_t i) const { return counters_.Get(i); }
  // The membership rate after n distinct inserts (no removes): classic formula.
  double Fpr(uint64_t n) const;
  void Clear();

 private:
  friend class SpectralFilter;
  friend class BitwiseFilter;
  friend struct GardenCodec;
  // Increments counter c unless stuck; counts the loss otherwise.
  void Bump(uint64_t c);
  uint64_t Min(const Probes& p) const;

  uint32_t k_;
  KeyHasher hasher_;
  PackedCounters counters_;
  uint64_t saturations_ = 0;
};

// ---- SpectralFilter (Cohen & Matias 2003) -----------------------------------------
// A counting filter that answers multiplicity queries, with three policies:
//
//  * Minimum Selection (MS): insert increments all k counters; the estimate is
//    their minimum m_x. Every counter of x was incremented f_x times by x, so
//    m_x >= f_x: MS never under-counts (without deletes and saturation), and
//    m_x != f_x only if every counter of x was also hit by other keys, which is
//    the Bloom error: P(m_x != f_x) = f (the classic rate at the number of
//    distinct keys).
//  * Minimum Increase (MI): insert increments only the counters equal to m_x.
//    The others already exceed m_x, so after the insert all are >= m_x + 1:
//    m_x rises by exactly 1 per insert of x and MI never under-counts either.
//    Each MI insert increments a subset of the counters MS would, so on the same
//    stream every MI counter is <= the MS counter: MI's over-count of every key is
//    at most MS's (Cohen & Matias: E_MI = O(E_B), E_B / k for uniform keys).
//    DELETES ARE UNSAFE under MI: a key's non-minimal counters did not record its
//    inserts, so decrementing them removes other keys' counts (unbounded false
//    negatives). Remove throws std::logic_error under MI.
//  * Recurring Minimum (RM): all keys go to the primary filter as in MS. Keys
//    whose minimum is not recurring (a single counter holds it) are the ones
//    likely to suffer a Bloom error (Cohen & Matias: ~20% of keys), and they are
//    also kept in a secondary filter: on insert, if x's primary minimum is not
//    recurring, x's secondary counters are incremented by 1 if x is already
//    there (secondary minimum > 0), else by m_x (x enters with its primary
//    estimate). Query: primary minimum if it recurs, else the secondary minimum
//    if non-zero, else the primary minimum. The secondary holds few keys, so its
//    estimate is rarely inflated.
//
// Counters saturate at 2^w - 1 like CountingFilter's (w = 16 by default).
//
// Traps of Recurring Minimum, measured (tests/garden/garden_test.cc, 80k distinct
// keys, 1..20 occurrences): it costs +50% memory (the secondary filter is
// cells / 2 by default), and it CAN UNDER-COUNT: a key whose primary minimum
// does not recur but whose secondary cells were shared with a key that entered
// the secondary later is answered from an estimate that missed some of its
// earlier inserts; 124 to 421 keys of 80k under-counted in our runs, depending
// on the load. MS and MI never under-count (without removes and saturation).
//
// Merge (MergeFrom): Minimum Selection only, counter-wise saturating add (the
// filter of both streams). MI and RM are refused: their counters record
// decisions made against one stream's state, which a sum does not reproduce.
//
// Thread safety: const members may run concurrently with each other; any
// writer (Insert, Remove, Clear, MergeFrom, a load) needs exclusive access.
class SpectralFilter {
 public:
  enum class Policy { kMinimumSelection, kMinimumIncrease, kRecurringMinimum };
  struct Options {
    uint32_t width = 16;           // bits per counter: counts up to 65535
    HashKind hash = HashKind::kXxh3;
    uint64_t seed = 0;
    uint64_t secondary_cells = 0;  // RM only; 0 = cells / 2 (at least 1)
  };

  // Throws std::invalid_argument as CountingFilter does.
  SpectralFilter(uint64_t cells, uint32_t k, Policy policy);
  SpectralFilter(uint64_t cells, uint32_t k, Policy policy, const Options& options);

  template <Key K> void Insert(const K& key) { InsertHash(primary_.hasher()(key)); }
  // Throws std::logic_error under Minimum Increase (see above). Returns false,
  // changing nothing, if the key is surely absent.
  template <Key K> bool Remove(const K& key) { return RemoveHash(primary_.hasher()(key)); }
  template <Key K> uint64_t Count(const K& key) const { return CountHash(primary_.hasher()(key)); }
  template <Key K> bool MayContain(const K& key) const { return CountHash(primary_.hasher()(key)) > 0; }

  void InsertHash(uint64_t hash);
  bool RemoveHash(uint64_t hash);
  uint64_t CountHash(uint64_t hash) const;

  Policy policy() const { return policy_; }
  // True only for a moved-from object (garden.h, "Moved-from objects").
  bool empty() const { return primary_.empty(); }
  const KeyHasher& hasher() const { return primary_.hasher(); }
  void Clear();
  void MergeFrom(const SpectralFilter& other);
  const CountingFilter& primary() const { return primary_; }
  // RM only (nullptr otherwise).
  const CountingFilter* secondary() const { return secondary_ ? &*secondary_ : nullptr; }

 private:
  friend struct GardenCodec;
  Policy policy_;
  CountingFilter primary_;
  std::optional<CountingFilter> secondary_;
};

// ---- CountMinSketch (Cormode & Muthukrishnan 2005) --------------------------------------
// d rows of w counters; row i maps a key to one column by its own hash (here
// the i-th double-hashing probe g_i = h1 + i h2, fastrange into w). Add adds to
// one counter per row; Estimate is the minimum over the rows. It is the spectral
// MS filter with its cells partitioned into d rows, one per hash.
//
// Error bound: let N = total count added. Row i's counter for x holds f_x plus
// the counts of the other keys that share its column; each other key lands
// there with probability 1/w, so E[excess_i] <= (N - f_x)/w <= N/w. By Markov,
// P(excess_i >= e N / w) <= 1/e. The rows hash independently, so
//   P(Estimate(x) - f_x >= eps N) <= e^-d,   eps = e / w,
// and Estimate(x) >= f_x always (counts are non-negative). For a target
// (eps, delta): w = ceil(e / eps), d = ceil(ln(1/delta)).
//
// Overflow: counters are 64-bit and every counter is <= N (it sums some of
// the adds), so checking N suffices: Add throws std::overflow_error, changing
// nothing, if N + count would pass 2^64 - 1 (it used to wrap silently).
//
// Conservative update (Options::conservative, Estan & Varghese 2002): Add
// raises each of the key's counters only to max(counter, Estimate + count)
// instead of adding count to all. Every counter of x still covers f_x, so the
// estimate never under-counts and the eps N bound holds, with smaller errors
// in practice; but a count can no longer be subtracted. Merging adds counters
// (still an upper bound for each key, for either mode).
//
// Merge (MergeFrom(other, weight)): counters += weight * other's, N too
// (overflow-checked); refused for different width, depth, hash, seed or mode.
//
// Thread safety: const members may run concurrently with each other; any
// writer (Add, Clear, MergeFrom, a load) needs exclusive access.
class CountMinSketch {
 public:
  struct Options {
    HashKind hash = HashKind::kXxh3;
    uint64_t seed = 0;
    bool conservative = false;
  };
  // Throws std::invalid_argument naming the parameter for width = 0 or depth
  // outside [1, 32].
  CountMinSketch(uint64_t width, uint32_t depth, HashKind hash = HashKind::kXxh3, uint64_t seed = 0);
  CountMinSketch(uint64_t width, uint32_t depth, const Options& options);
  // The smallest sketch with error <= eps N with probability >= 1 - delta.
  // Throws std::invalid_argument for eps or delta outside (0, 1) or delta < e^-32.
  static CountMinSketch ForError(double eps, double delta, HashKind hash = HashKind::kXxh3,
                                 uint64_t seed = 0);
  static CountMinSketch ForError(double eps, double delta, const Options& options);

  template <Key K> void Add(const K& key, uint64_t count = 1) { AddHash(hasher_(key), count); }
  template <Key K> uint64_t Estimate(const K& key) const { return EstimateHash(hasher_(key)); }
  void AddHash(uint64_t hash, uint64_t count = 1);
  uint64_t EstimateHash(uint64_t hash) const;
  // Batches: AddHashBatch adds 1 (or counts[i]) per hash, in order, prefetching
  // the d cells of the key kPrefetchAhead keys ahead; equal to per-key calls.
  // Throws std::overflow_error before changing anything if N would pass 2^64 - 1.
  void AddHashBatch(std::span<const uint64_t> hashes);
  void AddHashBatch(std::span<const uint64_t> hashes, std::span<const uint64_t> counts);
  // out must hold hashes.size() entries.
  void EstimateHashBatch(std::span<const uint64_t> hashes, std::span<uint64_t> out) const;

  void Clear();
  void MergeFrom(const CountMinSketch& other, uint64_t weight = 1);
  bool conservative() const { return conservative_; }
  // True only for a moved-from object (garden.h, "Moved-from objects").
  bool empty() const { return counts_.empty(); }
  const KeyHasher& hasher() const { return hasher_; }
  uint64_t CounterAt(uint32_t row, uint64_t col) const { return counts_[row * width_ + col]; }

  uint64_t width() const { return width_; }
  uint32_t depth() const { return depth_; }
  uint64_t total() const { return total_; }  // N
  double epsilon() const;                     // e / w
  double delta() const;                       // e^-d

 private:
  friend struct GardenCodec;
  uint64_t width_;
  uint32_t depth_;
  bool conservative_ = false;
  KeyHasher hasher_;
  uint64_t total_ = 0;
  std::vector<uint64_t> counts_;  // depth_ rows of width_ counters (64-bit: no overflow)
};
// e / width and e^-depth.
double CountMinEpsilon(uint64_t width);
double CountMinDelta(uint32_t depth);

// ---- BitwiseFilter (Lall et al. 2007) ---------------------------------------------------
// l counting filters ("levels"); level i has m_i cells, k_i probes (from its own
// derived hash, DeriveHash(h, i)) and w_i-bit counters, and holds one base-2^w_i
// digit of each key's count: the level-i digit of x is the minimum of x's
// level-i counters, c_i(x). The count is
//   C(x) = sum_i c_i(x) 2^(w_0 + ... + w_{i-1})
// (the digit of level i weighs the product of the bases below it).
// Insert adds 1 with carries, like a ripple-carry counter: at level i, if
// c_i(x) < 2^w_i - 1, increment x's level-i counters and stop; otherwise the
// digit is full: reset it (subtract 2^w_i - 1 from x's level-i counters, i.e.
// remove x from level i) and carry into level i + 1. If every digit is full,
// nothing changes: the count saturates at 2^(sum w_i) - 1 (saturations()
// counts the lost inserts).
// Counts are exact while no cell of x (at any level) is shared with another
// key. A shared cell holds the sum of both keys' digits and saturates early,
// which inflates a digit; a carry then resets the cell and takes the other
// key's digit with it, so with shared cells a count can be off in either
// direction. Insert only (no Remove).
//
// TRAP: MayContain (count > 0) has FALSE NEGATIVES on loaded streams: when a
// carry resets a shared cell, every key sharing it loses that digit, and a key
// whose only non-zero digit was there reads 0. At w = 1 on a loaded stream 17%
// of inserted keys counted 0 (issue 14's measurement); use a CountingFilter
// for membership.
//
// Merge: refused (MergeFrom throws std::invalid_argument): digits with carries
// do not add counter-wise.
//
// Thread safety: const members may run concurrently with each other; any
// writer (Insert, Clear, MergeFrom, a load) needs exclusive access.
class BitwiseFilter {
 public:
  struct Level {
    uint64_t cells;
    uint32_t k;
    uint32_t width;  // 1, 2, 4, 8, 16 or 32
  };
  // Throws std::invalid_argument naming the level and parameter for an empty
  // list, more than 32 levels, or a level CountingFilter would refuse.
  explicit BitwiseFilter(std::span<const Level> levels, HashKind hash = HashKind::kXxh3, uint64_t seed = 0);
  // `levels` equal levels.
  BitwiseFilter(uint32_t levels, const Level& each, HashKind hash = HashKind::kXxh3, uint64_t seed = 0);

  template <Key K> void Insert(const K& key) { InsertHash(hasher_(key)); }
  template <Key K> uint64_t Count(const K& key) const { return CountHash(hasher_(key)); }
  template <Key K> bool MayContain(const K& key) const { return CountHash(hasher_(key)) > 0; }
  void InsertHash(uint64_t hash);
  uint64_t CountHash(uint64_t hash) const;

  size_t levels() const { return levels_.size(); }
  // True only for a moved-from object (garden.h, "Moved-from objects").
  bool empty() const { return levels_.empty(); }
  void Clear();
  void MergeFrom(const BitwiseFilter& other);
  const KeyHasher& hasher() const { return hasher_; }
  const CountingFilter& level(size_t i) const { return levels_[i]; }
  uint64_t saturations() const { return saturations_; }
  // 2^(sum w_i) - 1 (capped at 2^64 - 1).
  uint64_t MaxCount() const;

 private:
  friend struct GardenCodec;
  KeyHasher hasher_;
  std::vector<CountingFilter> levels_;
  uint64_t saturations_ = 0;
};

}  // namespace blockbloom::garden

#endif  // BLOCKBLOOM_GARDEN_MULTISET_H_
