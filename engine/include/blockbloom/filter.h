// SPDX-License-Identifier: Apache-2.0
// blockbloom::Filter: one Bloom filter of any layout, owning its payload.
//
//   auto f = blockbloom::Filter::ForKeys(blockbloom::Layout::kBlocked512, 10'000'000, 0.01);
//   f.InsertBatch(keys);                           // std::span<const uint64_t>
//   size_t hits = f.MayContainBatch(probes, out);  // out: one byte per probe
//
// A Filter is a FilterView (view.h) that owns its payload: every query, the
// introspection and the set comparison come from there, so code written
// against `const FilterView&` serves filters and mapped files alike.
//
// False-positive rates: the exact model of every layout, with derivations, is
// in model.h (PredictFpr): a binomial mixture over block loads of the
// per-block rate of what the kernel does, e.g. for split256
//   f = sum_i Binom(i; n, 1/b) (1 - (1 - 1/32)^i)^8,
// and for blocked512 the k-bits-anywhere rate with the key's own probe
// collisions counted (10 bits/key, k = 6: 0.9665% model, 0.9669% measured).
//
// Thread safety: queries (const) are safe from any number of threads while no
// thread writes. Insert* are not safe beside any other access to the same
// filter. InsertAtomic* are safe beside each other and beside the *Atomic
// queries (view.h), and a key is found by them once its InsertAtomic* call
// has returned; they may run beside the plain queries too, which then give
// correct answers on x86-64 and AArch64 but race under the C++ memory model.
//
// A moved-from Filter is the empty filter: its queries answer false, its
// inserts and unions throw std::logic_error, and assigning to it makes it whole.
//
// Limits: blocks up to Traits(layout).max_blocks (2^32: 256 GiB of 512-bit
// blocks, 128 GiB split256, 32 GiB register64; classic 2^40 bits).
#ifndef BLOCKBLOOM_FILTER_H_
#define BLOCKBLOOM_FILTER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "blockbloom/hash.h"
#include "blockbloom/layout.h"
#include "blockbloom/view.h"

namespace blockbloom {

class Filter : public FilterView {
 public:
  // The empty filter (no blocks; queries answer false, inserts throw): a
  // place to move or assign a filter into.
  Filter() noexcept = default;
  // Exactly `num_blocks` blocks (classic: bits; see LayoutUnitName). Throws
  // std::invalid_argument naming the parameter, its value and the allowed
  // range for a bad k or block count.
  static Filter WithBlocks(Layout layout, uint64_t num_blocks, uint32_t k, HashKind hash = HashKind::kXxh3,
                           uint64_t seed = 0);
  // At least `bits` bits (`bytes` bytes), rounded up to whole blocks.
  static Filter WithBits(Layout layout, uint64_t bits, uint32_t k, HashKind hash = HashKind::kXxh3,
                         uint64_t seed = 0);
  static Filter WithBytes(Layout layout, uint64_t bytes, uint32_t k, HashKind hash = HashKind::kXxh3,
                          uint64_t seed = 0);
  // The smallest filter (and its best k) whose exact model rate for `expected_keys`
  // keys is at most `fpr` (model.h, SolveForKeys). Throws std::invalid_argument
  // for expected_keys = 0 or fpr outside (0, 1).
  static Filter ForKeys(Layout layout, uint64_t expected_keys, double fpr, HashKind hash = HashKind::kXxh3,
                        uint64_t seed = 0);

  Filter(const Filter& other);
  Filter& operator=(const Filter& other);
  Filter(Filter&& other) noexcept;
  Filter& operator=(Filter&& other) noexcept;
  ~Filter();

  // A copy of this filter's bits as a new, owning filter.
  static Filter CopyOf(const FilterView& view);

  // ---- Caller-owned memory ------------------------------------------------------
  // A filter whose payload lives in memory the caller owns (an arena, shared
  // memory, a page of a file the caller manages). The buffer must hold
  // RequiredBytes(layout, num_blocks) bytes at an address that is a multiple of
  // kRequiredAlignment (the kernels read whole 64-byte lines with aligned
  // loads); InBuffer checks both and throws std::invalid_argument naming the
  // buffer's size or address and what was expected. Such a filter inserts,
  // queries, unions and saves (format.h) exactly as any Filter, and never
  // allocates or frees its payload: the buffer must outlive it and every view
  // of it, and nothing else may write the buffer while it does. A copy of it
  // owns its own payload; moving it moves the borrow. The inserted count lives
  // in the Filter object, not in the buffer: pass it back on re-attaching.
  static constexpr size_t kRequiredAlignment = 64;
  // LayoutPayloadBytes(layout, num_blocks) after the same checks as WithBlocks
  // (the count of blocks, classic: bits); the bytes past the last block are
  // zero padding up to a whole 64-byte line.
  static uint64_t RequiredBytes(Layout layout, uint64_t num_blocks);
  enum class BufferInit : uint8_t {
    kClear,  // zero the first RequiredBytes bytes: an empty filter
    kKeep,   // the buffer already holds such a filter's payload (its padding must be zero)
  };
  static Filter InBuffer(std::span<uint8_t> buffer, Layout layout, uint64_t num_blocks, uint32_t k,
                         HashKind hash = HashKind::kXxh3, uint64_t seed = 0, BufferInit init = BufferInit::kClear,
                         uint64_t inserted = 0);
  // False for a filter over caller-owned memory (InBuffer); true otherwise.
  bool owns_memory() const noexcept { return !borrowed_; }

  // ---- One key --------------------------------------------------------------
  // Inline: one call into the kernel (for uint64 keys the hash is fused in,
  // view.h), and nothing else: these three do not add to inserted(). A count
  // kept a key (a load and a store of the filter's count) cost a loop of
  // Insert(key) 7-10% of its time at 100M keys and 5-13% at 10M (Zen 4,
  // bench/results/peer_ab_zen4_0aebcd7.md), whatever its form: a plain add to
  // memory, or counting before the call, ran as slowly as the load and store.
  // A caller who wants the count adds it once, AddInserted(n) after the loop;
  // the batches, BufferedInserter (inserter.h), TypedInserter (typed.h) and the
  // atomic inserts count their keys themselves.
  void Insert(uint64_t key) {
    CheckWritable();
    insert_key_(&one_, key);
  }
  void Insert(std::string_view key);
  void InsertHash(uint64_t hash) {
    CheckWritable();
    insert_one_(&one_, hash);
  }

  // Adds n to inserted() (saturating at 2^64 - 1; safe beside concurrent
  // writers, as the atomic inserts): the count of a loop of the single-key
  // inserts above, which do not count.
  void AddInserted(uint64_t n);

  // ---- Batches ------------------------------------------------------------------
  void InsertBatch(std::span<const uint64_t> keys);
  void InsertBatch(std::span<const std::string_view> keys);
  void InsertHashBatch(std::span<const uint64_t> hashes);

  // ---- Concurrent writers ---------------------------------------------------------
  // Safe to call from many threads at once on the same filter (see above).
  // Each costs up to k lock-prefixed ORs (split256, sectorized512, register64:
  // one per 64-bit word lacking the key's bits, none for a key already
  // present), 2-10x a plain insert (Zen 3, CHANGELOG): a lone writer should
  // call Insert*.
  void InsertAtomic(uint64_t key);
  void InsertHashAtomic(uint64_t hash);
  void InsertBatchAtomic(std::span<const uint64_t> keys);

  // ---- Set operations ---------------------------------------------------------------
  // Bitwise OR: exactly the filter of the union. Throws std::invalid_argument
  // naming the first difference (layout, blocks, k, hash, seed) if incompatible.
  // The inserted count saturates at 2^64 - 1.
  void UnionWith(const FilterView& other);
  // Bitwise AND, for compatible filters only (the same check and message as
  // UnionWith). What it is, honestly: NOT the filter of the intersection set
  // S = the keys inserted into both. A key of S set all its bits in both, so
  // every key of S is still found (no false negatives); but a bit set in A by
  // a key only in A and in B by a key only in B survives too, so the result
  // holds every bit of the filter built from S, and more where such bits meet.
  // Every bit of the result is set in both inputs, so a probe it answers
  // "maybe" is answered "maybe" by each of them: its false-positive rate is at
  // most min(rate of A, rate of B), and at least that of the filter of S.
  // The keys it holds: inserted() becomes min(inserted(), other.inserted())
  // (an upper bound on |S| for inputs without duplicates); fold.h's
  // EstimateDistinctKeys over the result's PopCount() estimates them from the
  // fill, over-counting |S| by the colliding bits above, while
  // est(A) + est(B) - est(A | B) (inclusion-exclusion over the fills) does not.
  void IntersectWith(const FilterView& other);
  void Clear();

 private:
  Filter(Layout layout, uint64_t num_blocks, uint32_t k, HashKind hash, uint64_t seed);
  void CheckWritable() const {
    if (empty()) ThrowMovedFrom();
  }
  [[noreturn]] static void ThrowMovedFrom();
  // Throws as UnionWith / IntersectWith document, `op` naming the operation ("union").
  void CheckCombinable(const FilterView& other, const char* op) const;
  void Release() noexcept;
  void BecomeEmpty() noexcept;

  bool mmapped_ = false;
  bool borrowed_ = false;  // InBuffer: the payload is the caller's, never freed here

  friend struct detail::FilterAccess;
  friend struct detail::TypedAccess;
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_FILTER_H_
