// blockbloom::Filter: one Bloom filter of any layout.
//
//   blockbloom::Filter f = blockbloom::Filter::ForKeys(blockbloom::Layout::kBlocked512,
//                                                      10'000'000, 0.01);
//   f.InsertBatch(keys);                       // std::span<const uint64_t>
//   size_t hits = f.MayContainBatch(probes, out);  // out: one byte per probe
//
// Stages: hash the key (XXH3 or XXH64 with the filter's seed), pick the block
// (fastrange on the high 32 bits), build the probe mask from the low 32 bits,
// test or set it. Every layout's bit layout is defined by the scalar reference
// (kernels/reference.cc) and reproduced byte for byte by every SIMD target.
//
// False-positive rates: the exact model of every layout, with derivations, is
// in engine/include/blockbloom/model.h (PredictFpr): a binomial mixture over
// block loads of the per-block rate of what the kernel does, e.g. for split256
//   f = sum_i Binom(i; n, 1/b) (1 - (1 - 1/32)^i)^8,
// and for blocked512 the k-bits-anywhere rate with the key's own probe
// collisions counted (10 bits/key, k = 6: 0.9665% model, 0.9669% measured).
//
// Thread safety: const members (queries) are safe from any number of threads.
// Insert* are not safe against concurrent readers or writers of the same
// filter; InsertAtomic* are (fetch_or on the touched words) against each other
// and against concurrent queries.
//
// Limits: at most 2^32 blocks (256 GiB for 512-bit blocks, 128 GiB split256,
// 32 GiB register64); classic at most 2^40 bits.
#ifndef BLOCKBLOOM_FILTER_H_
#define BLOCKBLOOM_FILTER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "blockbloom/layout.h"

namespace blockbloom {

class Filter {
 public:
  // A filter of at least `bits` bits (rounded up to whole blocks) and k bits per
  // key. Throws std::invalid_argument naming the parameter, its value and the
  // allowed range for k out of range, bits = 0 or too large.
  static Filter WithBits(Layout layout, uint64_t bits, uint32_t k, HashKind hash = HashKind::kXxh3,
                         uint64_t seed = 0);
  static Filter WithBytes(Layout layout, uint64_t bytes, uint32_t k,
                          HashKind hash = HashKind::kXxh3, uint64_t seed = 0);
  // The smallest filter (and its best k) whose exact model rate for `expected_keys`
  // keys is at most `fpr` (see model.h, SolveForKeys). Throws std::invalid_argument
  // for expected_keys = 0 or fpr outside (0, 1).
  static Filter ForKeys(Layout layout, uint64_t expected_keys, double fpr,
                        HashKind hash = HashKind::kXxh3, uint64_t seed = 0);
  // Exactly `num_blocks` blocks (classic: bits).
  Filter(Layout layout, uint64_t num_blocks, uint32_t k, HashKind hash = HashKind::kXxh3,
         uint64_t seed = 0);

  Filter(const Filter& other);
  Filter& operator=(const Filter& other);
  Filter(Filter&& other) noexcept;
  Filter& operator=(Filter&& other) noexcept;
  ~Filter();

  // ---- One key --------------------------------------------------------------
  void Insert(uint64_t key);
  void Insert(std::string_view key);
  void InsertHash(uint64_t hash);
  bool MayContain(uint64_t key) const;
  bool MayContain(std::string_view key) const;
  bool MayContainHash(uint64_t hash) const;

  // ---- Batches (the fast path: SIMD hashing, prefetching pipeline) ------------
  void InsertBatch(std::span<const uint64_t> keys);
  void InsertBatch(std::span<const std::string_view> keys);
  void InsertHashBatch(std::span<const uint64_t> hashes);
  // out[i] = 1 if keys[i] may be present, else 0; returns the count of 1s.
  // Throws std::invalid_argument if out.size() < keys.size().
  size_t MayContainBatch(std::span<const uint64_t> keys, std::span<uint8_t> out) const;
  size_t MayContainBatch(std::span<const std::string_view> keys, std::span<uint8_t> out) const;
  size_t MayContainHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> out) const;

  // ---- Concurrent writers ------------------------------------------------------
  // Safe to call from many threads at once on the same filter, and beside queries.
  void InsertAtomic(uint64_t key);
  void InsertHashAtomic(uint64_t hash);
  void InsertBatchAtomic(std::span<const uint64_t> keys);

  // ---- Set operations ---------------------------------------------------------
  // Bitwise OR: exactly the filter of the union. Throws std::invalid_argument
  // naming the first difference (layout, blocks, k, hash, seed) if incompatible.
  void UnionWith(const Filter& other);
  // Whether UnionWith(other) would succeed; if not, `why` (if given) names the difference.
  bool CompatibleWith(const Filter& other, std::string* why = nullptr) const;
  void Clear();

  // ---- Introspection -----------------------------------------------------------
  Layout layout() const { return layout_; }
  uint32_t k() const { return k_; }
  uint64_t num_blocks() const { return num_blocks_; }  // classic: bits
  uint64_t bit_count() const;                         // m
  uint64_t byte_size() const { return bytes_; }       // payload bytes (64-byte multiple)
  HashKind hash_kind() const { return hash_; }
  uint64_t seed() const { return seed_; }
  // Number of keys inserted (duplicates counted each time).
  uint64_t inserted() const { return inserted_.load(std::memory_order_relaxed); }
  void set_inserted(uint64_t n) { inserted_.store(n, std::memory_order_relaxed); }
  uint64_t PopCount() const;  // bits set
  double FillRatio() const { return static_cast<double>(PopCount()) / static_cast<double>(bit_count()); }

  // The payload, byte_size() bytes, 64-byte aligned; bits past bit_count() are 0.
  const uint8_t* data() const { return bits_; }
  uint8_t* mutable_data() { return bits_; }

  bool operator==(const Filter& other) const;

 private:
  void Allocate();
  void Release();

  Layout layout_;
  uint32_t k_;
  uint64_t num_blocks_;
  HashKind hash_;
  uint64_t seed_;
  uint64_t bytes_ = 0;
  uint8_t* bits_ = nullptr;
  bool mmapped_ = false;
  std::atomic<uint64_t> inserted_{0};
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_FILTER_H_
