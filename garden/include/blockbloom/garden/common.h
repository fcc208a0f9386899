// SPDX-License-Identifier: Apache-2.0
// Shared parts of the garden (garden/include/blockbloom/garden.h): the key
// hasher, the k probe cells of a key, packed w-bit counters and a seeded PRNG.
//
// Every garden variant is plain C++ (no SIMD): it hashes a key once with
// blockbloom::HashU64 / HashBytes (XXH3 or XXH64 with the variant's seed), and
// turns that 64-bit hash into k cells by the classic layout's scheme
// (kernels/common.h): Kirsch-Mitzenmacher double hashing g_i = h1 + i h2
// (mod 2^64) with h1 = the hash, h2 = ClassicStep(hash) (odd), and the cell
// index fastrange(g_i, cells) = (g_i * cells) >> 64. "Less hashing, same
// performance" (Kirsch & Mitzenmacher 2006): the asymptotic false-positive rate
// equals that of k independent hashes.
#ifndef BLOCKBLOOM_GARDEN_COMMON_H_
#define BLOCKBLOOM_GARDEN_COMMON_H_

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "blockbloom/hash.h"
#include "blockbloom/layout.h"

namespace blockbloom::garden {

// The garden file codec (blockbloom/garden/format.h) reads and writes the variants'
// private state through this friend.
struct GardenCodec;

// Look-ahead of the garden's batch paths, in keys: the classic counting filter
// and count-min touch k (d) lines per key, so 16 keys x 7 lines ~ 112 lines in
// flight, about what a core's miss buffers and L2 prefetch queue hold (the
// engine's one-line-per-key pipeline looks 128 keys ahead, kernels/probe-inl.h).
inline constexpr size_t kPrefetchAhead = 16;

// Keys are integers (hashed as their 8 little-endian bytes, like Filter's
// uint64 keys) or anything convertible to std::string_view (hashed as bytes).
template <typename K>
concept Key = std::integral<K> || std::convertible_to<const K&, std::string_view>;

// Stage 1: hash a key with a fixed hash kind and seed.
struct KeyHasher {
  HashKind kind = HashKind::kXxh3;
  uint64_t seed = 0;

  template <Key K>
  uint64_t operator()(const K& key) const {
    if constexpr (std::integral<K>) {
      return HashU64(static_cast<uint64_t>(key), kind, seed);
    } else {
      return HashBytes(std::string_view(key), kind, seed);
    }
  }
};

// Largest k (probes per key, count-min rows) any garden variant accepts: the
// classic layout's limit, and more than any rate needs (2^-32 at fill 1/2).
inline constexpr uint32_t kMaxProbes = 32;

// The distinct cells a key probes: count <= k (two g_i can land on one cell
// with probability about k^2 / (2 cells); the duplicate is dropped so that a
// key touches each of its cells once).
struct Probes {
  std::array<uint64_t, kMaxProbes> cell;
  uint32_t count = 0;
};

// The k double-hashing cells of `hash` in [0, cells), duplicates dropped.
// k in [1, kMaxProbes], cells >= 1 (callers validate).
Probes ProbeCells(uint64_t hash, uint32_t k, uint64_t cells);

// The i-th independent-looking hash derived from one key hash: i = 0 gives
// `hash` itself, i >= 1 a SplitMix64 finalizer of hash + i * golden. Used where
// one key needs several unrelated probe sets (RM's secondary filter, the
// bitwise filter's levels, the scalable filter's slices), so each key is hashed
// only once.
uint64_t DeriveHash(uint64_t hash, uint32_t i);

// Lemire's fastrange for 64-bit inputs: (x * n) >> 64, uniform over [0, n).
uint64_t FastRange64(uint64_t x, uint64_t n);

// SplitMix64 (Steele, Lea & Flood 2014): a tiny seeded PRNG whose whole state is
// one word, so that random choices (the stable filter's decrements) are
// reproducible from the user's seed.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  uint64_t state() const { return state_; }

 private:
  uint64_t state_;
};

// m counters of `width` bits packed into 64-bit words (width in {1, 2, 4, 8,
// 16, 32}, so no counter straddles two words). Plain storage: the policies
// (saturation, stickiness, aging) belong to the filters that use it.
class PackedCounters {
 public:
  // Throws std::invalid_argument naming `what` for cells = 0 or a width not in
  // {1, 2, 4, 8, 16, 32}.
  PackedCounters(uint64_t cells, uint32_t width, std::string_view what = "cells");
  // A moved-from PackedCounters is empty(): no cells, no words.
  PackedCounters(const PackedCounters&) = default;
  PackedCounters& operator=(const PackedCounters&) = default;
  PackedCounters(PackedCounters&& other) noexcept;
  PackedCounters& operator=(PackedCounters&& other) noexcept;
  ~PackedCounters() = default;

  bool empty() const { return cells_ == 0; }

  uint64_t size() const { return cells_; }
  uint32_t width() const { return width_; }
  uint64_t max() const { return mask_; }  // 2^width - 1
  uint64_t byte_size() const { return words_.size() * sizeof(uint64_t); }

  uint64_t Get(uint64_t i) const {
    const uint64_t bit = i * width_;
    return (words_[bit >> 6] >> (bit & 63)) & mask_;
  }
  // v must be <= max().
  void Set(uint64_t i, uint64_t v) {
    const uint64_t bit = i * width_;
    uint64_t& word = words_[bit >> 6];
    word = (word & ~(mask_ << (bit & 63))) | (v << (bit & 63));
  }
  // Number of counters equal to v.
  uint64_t CountEqual(uint64_t v) const;
  void Clear();
  bool operator==(const PackedCounters& other) const = default;
  // The words holding the counters, little-endian bit order (counter i at bit
  // i * width); bits past cells * width are 0.
  std::span<const uint64_t> words() const { return words_; }
  std::span<uint64_t> mutable_words() { return words_; }
  // Address of the word holding counter i (for prefetching).
  const uint64_t* WordOf(uint64_t i) const { return words_.data() + ((i * width_) >> 6); }

 private:
  uint64_t cells_;
  uint32_t width_;
  uint64_t mask_;
  std::vector<uint64_t> words_;
};

}  // namespace blockbloom::garden

#endif  // BLOCKBLOOM_GARDEN_COMMON_H_
