// SPDX-License-Identifier: Apache-2.0
// bench/typed_rows.h: the Boost pairs' layouts through TypedInserter and
// TypedView, compiled -O3 -march=native (bench/CMakeLists.txt).
#include "bench/typed_rows.h"

#include "blockbloom/typed.h"

namespace blockbloom::bench::typed_rows {
namespace {

#define BLOCKBLOOM_TYPED_BENCH_CASES(X)                                                                   \
  X(Split256, 8, Xxh3) X(Split256, 8, Mulx) X(Split256, 8, Xxh64) X(Split256, 8, Aes)                     \
  X(Sectorized512, 8, Xxh3) X(Sectorized512, 8, Mulx) X(Sectorized512, 8, Xxh64) X(Sectorized512, 8, Aes) \
  X(Register64, 6, Xxh3) X(Register64, 6, Mulx) X(Register64, 6, Xxh64) X(Register64, 6, Aes)             \
  X(Split512, 8, Xxh3) X(Split512, 8, Mulx) X(Split512, 8, Xxh64) X(Split512, 8, Aes)                     \
  X(Split256, 8, FoldMul) X(Sectorized512, 8, FoldMul) X(Register64, 6, FoldMul) X(Split512, 8, FoldMul)

bool Is(const FilterView& f, Layout l, uint32_t k, HashKind h) {
  return f.layout() == l && f.k() == k && f.hash_kind() == h;
}

}  // namespace

bool Available() { return true; }
bool Simd() { return kernels::BLOCKBLOOM_STATIC_NAMESPACE::kStaticSimd; }
const char* StaticTarget() { return kernels::BLOCKBLOOM_STATIC_NAMESPACE::StaticTargetName(); }

namespace {

// Boost.Bloom's mixing of an integer key (boost::hash is the identity, then
// mulx64 by the golden-ratio constant): the first of mulx's two folds.
uint64_t FoldHash(uint64_t key) { return kernels::MulxFold(key, kernels::kMulxMultiplier); }

// One key of a typed row: by the filter's hash, or (kFold, uint64 keys) with
// FoldHash as its hash (Mode::kTypedFold).
template <bool kFold, class Inserter, class Key>
void InsertOne(Inserter& ins, const Key& key) {
  if constexpr (kFold) {
    ins.InsertHash(FoldHash(key));
  } else {
    ins.Insert(key);
  }
}
template <bool kFold, class View, class Key>
bool QueryOne(const View& view, const Key& key) {
  if constexpr (kFold) {
    return view.MayContainHash(FoldHash(key));
  } else {
    return view.MayContain(key);
  }
}

template <bool kFold, class Key>
bool InsertKeys(Filter& f, const Key* keys, size_t n) {
#define BLOCKBLOOM_TYPED_INSERT(L, K, H)                                     \
  if (Is(f, Layout::k##L, K, HashKind::k##H)) {                              \
    TypedInserter<Layout::k##L, K, HashKind::k##H> ins(f);                   \
    for (size_t i = 0; i < n; ++i) InsertOne<kFold>(ins, keys[i]);           \
    return true;                                                             \
  }
  BLOCKBLOOM_TYPED_BENCH_CASES(BLOCKBLOOM_TYPED_INSERT)
#undef BLOCKBLOOM_TYPED_INSERT
  return false;
}

template <bool kFold, class Key>
bool QueryKeys(const FilterView& f, const Key* keys, size_t n, uint64_t* hits) {
#define BLOCKBLOOM_TYPED_QUERY(L, K, H)                                      \
  if (Is(f, Layout::k##L, K, HashKind::k##H)) {                              \
    const TypedView<Layout::k##L, K, HashKind::k##H> view(f);                \
    uint64_t h = 0;                                                          \
    for (size_t i = 0; i < n; ++i) h += QueryOne<kFold>(view, keys[i]);      \
    *hits += h;                                                              \
    return true;                                                             \
  }
  BLOCKBLOOM_TYPED_BENCH_CASES(BLOCKBLOOM_TYPED_QUERY)
#undef BLOCKBLOOM_TYPED_QUERY
  return false;
}

}  // namespace

bool InsertFold(Filter& f, const uint64_t* keys, size_t n) { return InsertKeys<true>(f, keys, n); }
bool QueryFold(const FilterView& f, const uint64_t* keys, size_t n, uint64_t* hits) {
  return QueryKeys<true>(f, keys, n, hits);
}

bool Insert(Filter& f, const uint64_t* keys, size_t n) { return InsertKeys<false>(f, keys, n); }
bool Insert(Filter& f, const std::string_view* keys, size_t n) { return InsertKeys<false>(f, keys, n); }
bool Query(const FilterView& f, const uint64_t* keys, size_t n, uint64_t* hits) { return QueryKeys<false>(f, keys, n, hits); }
bool Query(const FilterView& f, const std::string_view* keys, size_t n, uint64_t* hits) {
  return QueryKeys<false>(f, keys, n, hits);
}

}  // namespace blockbloom::bench::typed_rows
