// SPDX-License-Identifier: Apache-2.0
// blockbloom::FilterView: the one read-only query surface of every filter.
//
// A view owns nothing: the filter's parameters and a pointer to its payload. A
// Filter is a FilterView that owns its payload, and so is a MappedFilter (a
// filter file mapped read-only, format.h), so one function serves both:
//
//   size_t CountHits(const blockbloom::FilterView& f, std::span<const uint64_t> keys);
//   CountHits(filter, keys);                                  // a Filter
//   CountHits(blockbloom::MappedFilter::Open("urls.bbf"), keys);  // a mapped file
//
// A FilterView copied from a Filter or a MappedFilter (or returned by their
// view()) is valid while that object lives and is not moved from or assigned
// to, like a std::string_view. Building one from a temporary does not compile.
//
// A FilterView is copied, never assigned: its assignment is protected. A
// `FilterView&` may name a Filter or a MappedFilter, which own their payload,
// and assigning a view through it would re-seat that owner onto another's
// payload (the old one leaked, the new one freed twice). So
//   FilterView& v = filter;  v = other;   // does not compile
// and neither does reseating a plain view; make a new one instead (or hold
// std::optional<FilterView> and emplace); a class holding a view by value,
// as TypedView (typed.h), is likewise copyable but not assignable. Copying a
// view from a Filter, which slices it to the non-owning part, is safe and
// stays public.
//
// Stages: hash the key (XXH3 or XXH64 with the filter's seed), pick the block
// (fastrange on the high 32 bits), build the probe mask from the low 32 bits,
// test it. The bits of every layout are defined by its scalar reference
// (kernels/<layout>-inl.h) and every SIMD target reproduces them byte for byte.
//
// Thread safety: every member is const and safe from any number of threads,
// provided no thread writes the filter meanwhile. Beside concurrent
// InsertAtomic* writers (filter.h) use the *Atomic query forms: they load with
// relaxed atomics, so a key whose InsertAtomic call has returned is found and
// the program has no data race. The plain forms load with SIMD instructions,
// which the C++ memory model cannot make atomic.
//
// A default-constructed view (and a moved-from Filter or MappedFilter) is the
// empty filter: no blocks, no bits, and every query answers false.
#ifndef BLOCKBLOOM_VIEW_H_
#define BLOCKBLOOM_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "blockbloom/hash.h"
#include "blockbloom/layout.h"

namespace blockbloom {

class Filter;
class FilterView;
class MappedFilter;
namespace detail {
struct FilterAccess;
struct TypedAccess;  // blockbloom/typed.h
// blockbloom/typed.h's constructors: std::invalid_argument "blockbloom:
// TypedView<split256, k=8, mulx>: the filter is register64, k=6, hash xxh3: ..."
// (compiled in the library).
[[noreturn]] void ThrowTypeMismatch(const char* what, Layout layout, uint32_t k, HashKind hash, const FilterView& f);
// What a single-key probe (kernels::OneKeyOps) reads of a filter: bits, blocks,
// k as in kernels::FilterRef, and seed_const = KeyHashConstant(hash, seed)
// (kernels/common.h). Queries take the words by value, inserts one pointer to
// them: an insert writes memory, so a caller's loop reloaded the four words
// after each one and now sets up one argument; a query's caller keeps them
// in registers when its view cannot change (a local copy), where a pointer
// forced the call's target back to memory. Measured: the CHANGELOG ("Changed
// (speed)", the single-key kernels' arguments).
struct OneKeyArgs {
  uint8_t* bits;
  uint64_t num_blocks;
  uint64_t seed_const;
  uint32_t k;
};
// A layout's single-key probe on one SIMD target: by the hash, or fused with
// the uint64 key's hash (kernels/kernels.h OneKeyOps).
using QueryOneFn = bool (*)(const uint8_t* bits, uint64_t num_blocks, uint32_t k, uint64_t hash);
using InsertOneFn = void (*)(const OneKeyArgs* f, uint64_t hash);
using QueryKeyFn = bool (*)(const uint8_t* bits, uint64_t num_blocks, uint32_t k, uint64_t seed_const, uint64_t key);
using InsertKeyFn = void (*)(const OneKeyArgs* f, uint64_t key);
}  // namespace detail

class FilterView {
 public:
  // The empty filter (see above).
  FilterView() noexcept;
  FilterView(const FilterView&) = default;
  // A view of a temporary would dangle at once.
  FilterView(Filter&&) = delete;
  FilterView(MappedFilter&&) = delete;

  // ---- One key --------------------------------------------------------------
  // Branch-free: the probe of this layout and k on the target active when the
  // view was made (a function pointer chosen once, no dispatch per call), so
  // a loop of independent lookups overlaps their cache misses.
  // One call, the key's hash and the probe fused in the kernel. A hot loop over
  // single keys of a layout known at compile time: blockbloom/typed.h
  // (TypedView) compiles the probe into the loop instead.
  bool MayContain(uint64_t key) const {
    return query_key_(one_.bits, one_.num_blocks, one_.k, one_.seed_const, key);
  }
  bool MayContain(std::string_view key) const;
  bool MayContainHash(uint64_t hash) const { return query_one_(one_.bits, one_.num_blocks, one_.k, hash); }

  // ---- Batches (the fast path: SIMD hashing, prefetching pipeline) ------------
  // out[i] = 1 if keys[i] may be present, else 0; returns the count of 1s.
  // Throws std::invalid_argument, writing nothing, if out.size() < keys.size().
  size_t MayContainBatch(std::span<const uint64_t> keys, std::span<uint8_t> out) const;
  size_t MayContainBatch(std::span<const std::string_view> keys, std::span<uint8_t> out) const;
  size_t MayContainHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> out) const;

  // ---- Batches in the forms query engines pass between operators ---------------
  // Bitmap: bit i % 64 of bitmap[i / 64] is 1 if keys[i] may be present, else 0;
  // the unused high bits of the last word are 0. Returns the count of 1s.
  // Throws std::invalid_argument, writing nothing, if bitmap.size() < ceil(keys.size() / 64).
  size_t MayContainBatchBitmap(std::span<const uint64_t> keys, std::span<uint64_t> bitmap) const;
  size_t MayContainBatchBitmap(std::span<const std::string_view> keys, std::span<uint64_t> bitmap) const;
  // Selection vector: sel[0, r) = the indices of the keys that may be present,
  // ascending, r returned (DuckDB's SelectionVector, Velox's SelectivityVector
  // as indices). sel[r, keys.size()) may be overwritten. Throws
  // std::invalid_argument, writing nothing, if sel.size() < keys.size() or
  // keys.size() > 2^32.
  size_t MayContainBatchSelect(std::span<const uint64_t> keys, std::span<uint32_t> sel) const;
  size_t MayContainBatchSelect(std::span<const std::string_view> keys, std::span<uint32_t> sel) const;
  // The same two forms from precomputed hashes (HashU64 / HashBytes with this
  // filter's hash kind and seed, or the engine's own hash of the key), for
  // engines that hash once for a hash table and a filter: the bitmap's bit i
  // (bit i % 64 of bitmap[i / 64], LSB-first) and the selection's indices answer
  // exactly as MayContainHash(hashes[i]). Same sizes and errors as above.
  size_t MayContainHashBatchBitmap(std::span<const uint64_t> hashes, std::span<uint64_t> bitmap) const;
  size_t MayContainHashBatchSelect(std::span<const uint64_t> hashes, std::span<uint32_t> sel) const;

  // ---- Beside concurrent InsertAtomic* writers ---------------------------------
  bool MayContainAtomic(uint64_t key) const;
  bool MayContainHashAtomic(uint64_t hash) const;
  size_t MayContainBatchAtomic(std::span<const uint64_t> keys, std::span<uint8_t> out) const;

  // ---- Introspection -----------------------------------------------------------
  Layout layout() const { return layout_; }
  uint32_t k() const { return one_.k; }
  // Blocks, or bits for classic (LayoutUnitName); 0 for the empty filter.
  uint64_t num_blocks() const { return one_.num_blocks; }
  uint64_t bit_count() const { return LayoutBits(layout_, one_.num_blocks); }  // m
  uint64_t byte_size() const { return bytes_; }  // payload bytes (a multiple of 64)
  HashKind hash_kind() const { return hash_; }
  uint64_t seed() const { return seed_; }
  // Keys counted as inserted (duplicates each time), as of the view's creation
  // for a copied view; kept current by a Filter. Counted: the batches, the
  // inserters' writes, the atomic inserts, Filter::AddInserted, and what a
  // load, copy, Fold or set operation carries; not Filter::Insert(key) and
  // InsertHash(hash), which are one kernel call each (filter.h says why).
  uint64_t inserted() const;
  bool empty() const { return one_.num_blocks == 0; }
  uint64_t PopCount() const;  // bits set
  double FillRatio() const;   // PopCount() / bit_count(); 0 for the empty filter
  // The payload, byte_size() bytes, 64-byte aligned; bits past bit_count() are 0.
  const uint8_t* data() const { return one_.bits; }
  FilterView view() const { return *this; }

  // Same layout, blocks, k, hash and seed (what a union needs). If not and
  // `why` is given, it names the first difference ("k differs: 6 vs 7").
  bool CompatibleWith(const FilterView& other, std::string* why = nullptr) const;
  // Compatible and the same bits.
  bool operator==(const FilterView& other) const;

 protected:
  FilterView(Layout layout, uint32_t k, uint64_t num_blocks, HashKind hash, uint64_t seed, uint64_t inserted,
             const uint8_t* bits) noexcept;
  // Protected (see above): only an owner re-seats its own view part, through
  // FilterView::operator= on itself.
  FilterView& operator=(const FilterView&) = default;

  Layout layout_;
  HashKind hash_;
  uint64_t seed_;
  uint64_t inserted_;  // read and written through std::atomic_ref by Filter
  uint64_t bytes_;
  // bits (writable only through Filter), blocks, k, the hash's seed constant:
  // what the single-key probes below read.
  detail::OneKeyArgs one_;
  // The single-key probes of (layout_, one_.k), from kernels::Active() at
  // construction (the scalar reference's for the empty filter).
  detail::QueryOneFn query_one_;
  detail::InsertOneFn insert_one_;
  detail::QueryKeyFn query_key_;
  detail::InsertKeyFn insert_key_;
  detail::InsertOneFn insert_atomic_;  // Filter::InsertHashAtomic's

 private:
  friend struct detail::FilterAccess;
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_VIEW_H_
