// SPDX-License-Identifier: Apache-2.0
// BlockedCountingFilter: a counting Bloom filter whose k 4-bit counters of a
// key all live in one 64-byte cache line, so a key costs one cache miss (the
// classic CountingFilter costs k: ~220 ns a key at 50 MB against ~one miss
// here). Insert and Remove update the whole line with SIMD SWAR arithmetic on
// its 128 nibbles, MayContain and Count read the key's k nibbles; all run in
// kernels dispatched at run time behind a prefetching batch pipeline
// (kernels/counting.h states the bit layout; every target writes the bytes of
// the scalar reference).
//
// Speed (bench/garden_bench.cc, 1M keys at 1%, 5.4 MB, AMD EPYC with AVX2, a
// machine loaded by other builds, CPU time): insert batch 17.3 ns a key,
// query batch 12.9 ns (absent) / 14.2 ns (present), against the engine's
// blocked512 batch 10.2 ns insert, 7.9 / 7.6 ns query in the same run (1.7x /
// 1.6x-1.9x); the classic CountingFilter takes 243 ns per-key / 64 ns batched
// to insert at 4.8 MB.
//
//   auto f = blockbloom::garden::BlockedCountingFilter::ForKeys(1'000'000, 0.01);
//   f.InsertBatch(keys);                     // SIMD hashing + prefetch
//   f.RemoveBatch(gone, removed);            // removed[i] = 1 if key i was removed
//   size_t hits = f.MayContainBatch(probes, out);
//   f.MergeFrom(peer);                       // saturating add: the filter of both streams
//
// ---- False-positive model (exact, for inserts without removes) ----------------
// A block of B = 128 counters holding i keys: a counter is non-zero iff one of
// the i k probes hit it, so the block is exactly a 128-bit "k bits anywhere"
// Bloom block (the engine's blocked512 model with B = 128): the query's k
// probes cover j distinct counters with probability d_j (Stirling numbers) and
// j given counters are all hit by t = ik throws with probability
// A_j(t) = sum_l (-1)^l C(j, l) (1 - l/B)^t, so
//   f_block(i) = sum_j d_j A_j(ik)  (+ the 32-bit probe word term: an absent key
//                                     whose low 32 bits equal a key's in its block)
// and over the Binomial(n, 1/blocks) block loads
//   FPR = sum_i Binomial(i; n, 1/blocks) f_block(i).
// Example: ForKeys(1M, 1%) -> k = 6, 84,745 blocks (10.8 counters a key,
// 5.4 MB), against 1.2 MB for a blocked512 membership filter: 4 bits a counter
// is the price of Remove. Measured (4096 blocks, 40k keys): k = 3 1.056% vs
// 1.055% predicted, k = 7 0.493% vs 0.488%, k = 12 0.899% vs 0.892%.
//
// ---- Overflow model -------------------------------------------------------------
// One counter gains 1 from a key iff the key lands in its block (1/blocks) and
// one of its k probes hits it (q = 1 - (1 - 1/128)^k), independently per key,
// so its value after n distinct inserts is Binomial(n, q / blocks), and
//   P[counter saturated] = P[Binomial(n, q / blocks) >= 15],
// expected saturated counters = 128 blocks times that: 5e-10 at ForKeys(1M, 1%),
// 1.5e-13 at ForKeys(10k, 0.1%) (tests/garden/garden_blocked_counting_test.cc).
// Saturation: a counter at 15 sticks (never wraps, never decremented: its true
// value is unknown), like CountingFilter's.
//
// Traps: as every counting filter, Remove of a key that was never inserted can
// cause FALSE NEGATIVES for other keys (Remove refuses keys with a zero
// counter, but a false positive passes that test). Only remove keys you
// inserted. Count() is the minimum of the key's counters: never below the true
// multiplicity (while nothing saturated or was wrongly removed), often above.
//
// Thread safety: const members may run concurrently with each other; any
// writer (Insert*, Remove*, Clear, MergeFrom, a load) needs exclusive access.
#ifndef BLOCKBLOOM_GARDEN_BLOCKED_COUNTING_H_
#define BLOCKBLOOM_GARDEN_BLOCKED_COUNTING_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "blockbloom/garden/common.h"

namespace blockbloom::garden {

class BlockedCountingFilter {
 public:
  static constexpr uint32_t kCountersPerBlock = 128;
  static constexpr uint32_t kCounterBits = 4;
  static constexpr uint32_t kMaxCount = 15;
  static constexpr uint32_t kMaxK = 16;
  static constexpr uint64_t kMaxBlocks = uint64_t{1} << 32;  // 256 GiB of lines
  static constexpr uint64_t kBlockBytes = 64;

  // num_blocks in [1, 2^32], k in [1, 16]. Throws std::invalid_argument naming the parameter.
  BlockedCountingFilter(uint64_t num_blocks, uint32_t k, HashKind hash = HashKind::kXxh3, uint64_t seed = 0);
  // The smallest filter (fewest blocks; k searched over 1..16) whose model rate
  // at n keys is <= fpr. Throws std::invalid_argument for n = 0, fpr outside
  // (0, 1) or a rate no filter within 2^32 blocks reaches.
  static BlockedCountingFilter ForKeys(uint64_t n, double fpr, HashKind hash = HashKind::kXxh3, uint64_t seed = 0);

  BlockedCountingFilter(const BlockedCountingFilter& other);
  BlockedCountingFilter& operator=(const BlockedCountingFilter& other);
  BlockedCountingFilter(BlockedCountingFilter&& other) noexcept;
  BlockedCountingFilter& operator=(BlockedCountingFilter&& other) noexcept;
  ~BlockedCountingFilter();

  template <Key K> void Insert(const K& key) { InsertHash(hasher_(key)); }
  template <Key K> bool Remove(const K& key) { return RemoveHash(hasher_(key)); }
  template <Key K> bool MayContain(const K& key) const { return MayContainHash(hasher_(key)); }
  template <Key K> uint32_t Count(const K& key) const { return CountHash(hasher_(key)); }
  void InsertHash(uint64_t hash);
  bool RemoveHash(uint64_t hash);
  bool MayContainHash(uint64_t hash) const;
  uint32_t CountHash(uint64_t hash) const;

  // ---- Batches: SIMD hashing, the active target's kernels, prefetch ----------
  // Equal to the per-key calls in order. Output spans must hold one entry per
  // key (std::invalid_argument otherwise). Return the 1s written.
  void InsertBatch(std::span<const uint64_t> keys);
  void InsertBatch(std::span<const std::string_view> keys);
  size_t RemoveBatch(std::span<const uint64_t> keys, std::span<uint8_t> removed);
  size_t MayContainBatch(std::span<const uint64_t> keys, std::span<uint8_t> out) const;
  size_t MayContainBatch(std::span<const std::string_view> keys, std::span<uint8_t> out) const;
  void CountBatch(std::span<const uint64_t> keys, std::span<uint8_t> out) const;
  void CountBatch(std::span<const std::string_view> keys, std::span<uint8_t> out) const;
  void InsertHashBatch(std::span<const uint64_t> hashes);
  size_t RemoveHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> removed);
  size_t MayContainHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> out) const;
  void CountHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> out) const;

  // Saturating add of every counter: exactly the filter of both streams.
  // Throws std::invalid_argument naming the difference (num_blocks, k, hash, seed).
  void MergeFrom(const BlockedCountingFilter& other);
  void Clear();
  // Same parameters and counters (not the statistics below).
  bool operator==(const BlockedCountingFilter& other) const;

  // True only for a moved-from object (garden.h, "Moved-from objects").
  bool empty() const { return lines_ == nullptr; }
  uint64_t num_blocks() const { return num_blocks_; }  // 0 once moved from
  uint32_t k() const { return k_; }
  const KeyHasher& hasher() const { return hasher_; }
  uint64_t byte_size() const { return num_blocks_ * kBlockBytes; }
  const uint8_t* data() const { return lines_; }
  // Inserts minus successful removes (merges add), for the model and stats.
  uint64_t inserted() const { return inserted_; }
  uint64_t saturations() const { return saturations_; }  // increments lost to saturated counters
  uint64_t SaturatedCells() const;
  uint64_t NonZeroCells() const;
  uint32_t CounterAt(uint64_t i) const;  // i < 128 blocks
  double Fpr(uint64_t n) const;          // the model at n distinct keys

 private:
  friend struct GardenCodec;
  template <typename F> void EachChunk(std::span<const uint64_t> keys, F&& f) const;
  template <typename F> void EachChunk(std::span<const std::string_view> keys, F&& f) const;

  uint64_t num_blocks_;
  uint32_t k_;
  KeyHasher hasher_;
  uint8_t* lines_ = nullptr;
  bool mapped_ = false;
  uint64_t inserted_ = 0;
  uint64_t saturations_ = 0;
};

// The model above: FPR after n distinct keys.
double BlockedCountingFpr(uint64_t num_blocks, uint32_t k, uint64_t n);
// The rate of one block holding i keys.
double BlockedCountingBlockFpr(uint32_t k, uint64_t i);
// P[one given counter saturated] after n distinct keys: P[Binomial(n, q / blocks) >= 15].
double BlockedCountingSaturation(uint64_t num_blocks, uint32_t k, uint64_t n);
// P[Binomial(n, q / blocks) >= j], j any threshold (for tests of the counter loads).
double BlockedCountingCounterTail(uint64_t num_blocks, uint32_t k, uint64_t n, uint64_t j);

struct BlockedCountingParams {
  uint64_t num_blocks;
  uint32_t k;
  double fpr;  // the model's rate at n
};
BlockedCountingParams SolveBlockedCounting(uint64_t n, double fpr);

}  // namespace blockbloom::garden

#endif  // BLOCKBLOOM_GARDEN_BLOCKED_COUNTING_H_
