// SPDX-License-Identifier: Apache-2.0
// blockbloom::TypedView and blockbloom::TypedInserter: single keys inlined into
// the caller, with the layout, k and hash fixed at compile time (as a
// header-only library's filter type fixes them).
//
//   blockbloom::Filter f = blockbloom::Filter::WithBits(Layout::kSplit256, 10 << 20, 8, HashKind::kFoldMul);
//   blockbloom::TypedInserter<Layout::kSplit256, 8, HashKind::kFoldMul> ins(f);
//   for (uint64_t key : keys) ins.Insert(key);
//   blockbloom::TypedView<Layout::kSplit256, 8, HashKind::kFoldMul> q(f);  // or of a MappedFilter
//   for (uint64_t key : probes) hits += q.MayContain(key);
//
// Keys: uint64_t (hashed inline), strings (hashed by one call to
// blockbloom::HashBytes, then probed inline) and hashes (blockbloom/hash.h).
//
// Filter::Insert and FilterView::MayContain make one call per key into the
// kernel of the CPU's best SIMD target, chosen at run time (any compiler
// flags). These instead compile the probe into the calling loop, for the
// instruction set the calling file is compiled for: no call, the hash fused,
// constants kept in registers, so consecutive lookups overlap more of their
// cache misses. They pay off when that file is compiled for a SIMD target
// (-march=x86-64-v3 or -march=native on x86, -march=armv8-a+crypto or a -mcpu
// with AES on AArch64); under plain x86-64 or armv8-a flags they make the same
// call as Filter and FilterView. Either way
// they read and write exactly the bits of the run-time kernels (the same probe
// code, tests/typed_test.cc), so mixing them with every other API is safe.
//
// Contracts:
//   - The constructors throw std::invalid_argument naming the mismatch if the
//     filter's layout, k or hash kind differs from the type's (the empty filter,
//     default-constructed or moved-from, is accepted by TypedView: it answers
//     false). TypedInserter throws std::logic_error for the empty filter, as
//     Filter::Insert does.
//   - Lifetime as a FilterView: valid while the filter lives and is not moved
//     from or assigned to.
//   - Threads: as FilterView::MayContain and Filter::Insert (plain loads and
//     stores; not for use beside concurrent writers).
//   - TypedInserter adds the keys it inserted to the filter's inserted() count
//     when it is destroyed or Flush() is called, not key by key: a count kept
//     in the filter's memory is a load and a store on every key, which at
//     10^8 keys made a loop of Insert(key) 2-6% slower (CHANGELOG.md). Until
//     then f.inserted() (and a file saved from f) leaves those keys out; the
//     bits are written at once. Copies are not allowed (each would add the
//     same keys); a moved-from inserter adds nothing.
//   - The types live in an inline namespace named after the file's SIMD target,
//     so files compiled with different flags never share their inline code.
//     Pass filters (FilterView, Filter) between such files, not these types.
// Needs Highway's headers and the kernels' probe headers (installed under
// include/blockbloom/kernels/) on the include path: link the CMake target
// blockbloom::typed, which carries both.
#ifndef BLOCKBLOOM_TYPED_H_
#define BLOCKBLOOM_TYPED_H_

#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "blockbloom/filter.h"
#include "blockbloom/hash.h"
#include "blockbloom/layout.h"
#include "blockbloom/view.h"
#include "kernels/static_probe.h"

namespace blockbloom {
namespace detail {
// What the typed handles need of a Filter beyond its public surface.
struct TypedAccess {
  static uint8_t* MutableBits(Filter& f) { return f.one_.bits; }
  // The kernel's insert of a hash, as Filter::InsertHash (which counts nothing
  // either; TypedInserter counts by Flush).
  static void InsertUncounted(Filter& f, uint64_t hash) { f.insert_one_(&f.one_, hash); }
  // The kernel's insert of a key, its hash fused in, as Filter::Insert(key).
  static void InsertKeyUncounted(Filter& f, uint64_t key) { f.insert_key_(&f.one_, key); }
  static void Count(Filter& f, uint64_t n) { f.AddInserted(n); }
};
inline bool SameType(const FilterView& f, Layout layout, uint32_t k, HashKind hash) {
  return f.layout() == layout && f.k() == k && f.hash_kind() == hash;
}
}  // namespace detail

inline namespace BLOCKBLOOM_STATIC_NAMESPACE {
namespace typed_detail {
// The probe TypedView and TypedInserter inline where kStaticSimd holds: one
// (layout, k, hash) over a filter's bits. A uint64 key's hash is passed as
// StaticKeyHash gives it: with "aes" on x86 it keeps its vector register for
// the probe (kernels/static_probe.h). Byte: const uint8_t for a view's
// (queries only), uint8_t for an inserter's.
template <Layout kLayout, uint32_t kK, HashKind kHash, class Byte>
struct InlineProbe {
  Byte* bits;
  uint64_t num_blocks;
  uint64_t seed_const;  // kernels/common.h KeyHashConstant

  bool QueryKey(uint64_t key) const {
    return kernels::BLOCKBLOOM_STATIC_NAMESPACE::StaticQuery<kLayout, kK>(
        bits, num_blocks, kernels::BLOCKBLOOM_STATIC_NAMESPACE::StaticKeyHash<kHash>(key, seed_const));
  }
  bool QueryHash(uint64_t hash) const {
    return kernels::BLOCKBLOOM_STATIC_NAMESPACE::StaticQuery<kLayout, kK>(bits, num_blocks, hash);
  }
  void InsertKey(uint64_t key) const {
    kernels::BLOCKBLOOM_STATIC_NAMESPACE::StaticInsert<kLayout, kK>(
        bits, num_blocks, kernels::BLOCKBLOOM_STATIC_NAMESPACE::StaticKeyHash<kHash>(key, seed_const));
  }
  void InsertHash(uint64_t hash) const {
    kernels::BLOCKBLOOM_STATIC_NAMESPACE::StaticInsert<kLayout, kK>(bits, num_blocks, hash);
  }
};
}  // namespace typed_detail

template <Layout kLayout, uint32_t kK, HashKind kHash = HashKind::kXxh3>
class TypedView {
  static_assert(LayoutAcceptsK(kLayout, kK), "k outside the layout's range (layout.h, kLayoutTraits)");

 public:
  explicit TypedView(const FilterView& f)
      : view_(f), probe_{f.data(), f.num_blocks(), kernels::KeyHashConstant(kHash, f.seed())} {
    if (!f.empty() && !detail::SameType(f, kLayout, kK, kHash))
      detail::ThrowTypeMismatch("TypedView", kLayout, kK, kHash, f);
  }

  bool MayContain(uint64_t key) const {
    if constexpr (kernels::BLOCKBLOOM_STATIC_NAMESPACE::kStaticSimd) {
      return probe_.QueryKey(key);
    } else {
      return view_.MayContain(key);  // the dispatched call, its hash included
    }
  }
  // Bytes: hashed by blockbloom::HashBytes (one call; a string's hash costs far
  // more than the call), probed inline.
  bool MayContain(std::string_view key) const { return MayContainHash(HashBytes(key, kHash, view_.seed())); }
  // A hash computed as the filter's hash kind does (blockbloom/hash.h).
  bool MayContainHash(uint64_t hash) const {
    if constexpr (kernels::BLOCKBLOOM_STATIC_NAMESPACE::kStaticSimd) {
      return probe_.QueryHash(hash);
    } else {
      return view_.MayContainHash(hash);
    }
  }
  const FilterView& view() const { return view_; }

 private:
  FilterView view_;
  typed_detail::InlineProbe<kLayout, kK, kHash, const uint8_t> probe_;
};

template <Layout kLayout, uint32_t kK, HashKind kHash = HashKind::kXxh3>
class TypedInserter {
  static_assert(LayoutAcceptsK(kLayout, kK), "k outside the layout's range (layout.h, kLayoutTraits)");

 public:
  explicit TypedInserter(Filter& f)
      : filter_(&f),
        probe_{detail::TypedAccess::MutableBits(f), f.num_blocks(), kernels::KeyHashConstant(kHash, f.seed())} {
    if (f.empty())
      throw std::logic_error("blockbloom: TypedInserter: the filter is empty (default-constructed or moved from) "
                             "and cannot be written; assign a filter to it first");
    if (!detail::SameType(f, kLayout, kK, kHash)) detail::ThrowTypeMismatch("TypedInserter", kLayout, kK, kHash, f);
  }

  void Insert(uint64_t key) {
    if constexpr (kernels::BLOCKBLOOM_STATIC_NAMESPACE::kStaticSimd) {
      probe_.InsertKey(key);
    } else {
      detail::TypedAccess::InsertKeyUncounted(*filter_, key);  // the dispatched call, its hash included
    }
    ++pending_;
  }
  void Insert(std::string_view key) { InsertHash(HashBytes(key, kHash, filter_->seed())); }
  void InsertHash(uint64_t hash) {
    if constexpr (kernels::BLOCKBLOOM_STATIC_NAMESPACE::kStaticSimd) {
      probe_.InsertHash(hash);
    } else {
      detail::TypedAccess::InsertUncounted(*filter_, hash);  // the dispatched call
    }
    ++pending_;  // Flush saturates the filter's count
  }
  bool MayContain(uint64_t key) const {
    if constexpr (kernels::BLOCKBLOOM_STATIC_NAMESPACE::kStaticSimd) {
      return probe_.QueryKey(key);
    } else {
      return filter_->MayContain(key);
    }
  }
  bool MayContain(std::string_view key) const { return MayContainHash(HashBytes(key, kHash, filter_->seed())); }
  bool MayContainHash(uint64_t hash) const {
    if constexpr (kernels::BLOCKBLOOM_STATIC_NAMESPACE::kStaticSimd) {
      return probe_.QueryHash(hash);
    } else {
      return filter_->MayContainHash(hash);
    }
  }
  Filter& filter() const { return *filter_; }

  // Adds the keys inserted since the last Flush to filter().inserted()
  // (saturating at 2^64 - 1, as Filter::Insert counts). The destructor calls it.
  void Flush() {
    if (pending_ != 0) detail::TypedAccess::Count(*filter_, pending_);
    pending_ = 0;
  }
  ~TypedInserter() { Flush(); }
  TypedInserter(const TypedInserter&) = delete;
  TypedInserter& operator=(const TypedInserter&) = delete;
  TypedInserter(TypedInserter&& o) noexcept
      : filter_(o.filter_), probe_(o.probe_), pending_(o.pending_) {
    o.pending_ = 0;
  }
  TypedInserter& operator=(TypedInserter&& o) noexcept {
    if (this != &o) {
      Flush();
      filter_ = o.filter_;
      probe_ = o.probe_;
      pending_ = o.pending_;
      o.pending_ = 0;
    }
    return *this;
  }

 private:
  Filter* filter_;
  typed_detail::InlineProbe<kLayout, kK, kHash, uint8_t> probe_;
  uint64_t pending_ = 0;  // keys inserted here and not yet in filter_->inserted()
};

}  // namespace BLOCKBLOOM_STATIC_NAMESPACE
}  // namespace blockbloom

#endif  // BLOCKBLOOM_TYPED_H_
