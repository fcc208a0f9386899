// SPDX-License-Identifier: Apache-2.0
// bench/typed_rows.h: the Boost pairs' layouts through TypedInserter and
// TypedView, compiled -O3 -march=native (bench/CMakeLists.txt).
#include "bench/typed_rows.h"

#include "blockbloom/typed.h"

namespace blockbloom::bench::typed_rows {
namespace {

#define BLOCKBLOOM_TYPED_BENCH_CASES(X)                                                             \
  X(Split256, 8, Xxh3) X(Split256, 8, Mulx) X(Split256, 8, Xxh64) X(Sectorized512, 8, Xxh3)          \
  X(Sectorized512, 8, Mulx) X(Sectorized512, 8, Xxh64) X(Register64, 6, Xxh3) X(Register64, 6, Mulx) \
  X(Register64, 6, Xxh64) X(Split512, 8, Xxh3) X(Split512, 8, Mulx) X(Split512, 8, Xxh64)

bool Is(const FilterView& f, Layout l, uint32_t k, HashKind h) {
  return f.layout() == l && f.k() == k && f.hash_kind() == h;
}

}  // namespace

bool Available() { return true; }
bool Simd() { return kernels::BLOCKBLOOM_STATIC_NAMESPACE::kStaticSimd; }

namespace {

template <class Key>
bool InsertKeys(Filter& f, const Key* keys, size_t n) {
#define BLOCKBLOOM_TYPED_INSERT(L, K, H)                                     \
  if (Is(f, Layout::k##L, K, HashKind::k##H)) {                              \
    TypedInserter<Layout::k##L, K, HashKind::k##H> ins(f);                   \
    for (size_t i = 0; i < n; ++i) ins.Insert(keys[i]);                      \
    return true;                                                             \
  }
  BLOCKBLOOM_TYPED_BENCH_CASES(BLOCKBLOOM_TYPED_INSERT)
#undef BLOCKBLOOM_TYPED_INSERT
  return false;
}

template <class Key>
bool QueryKeys(const FilterView& f, const Key* keys, size_t n, uint64_t* hits) {
#define BLOCKBLOOM_TYPED_QUERY(L, K, H)                                      \
  if (Is(f, Layout::k##L, K, HashKind::k##H)) {                              \
    const TypedView<Layout::k##L, K, HashKind::k##H> view(f);                \
    uint64_t h = 0;                                                          \
    for (size_t i = 0; i < n; ++i) h += view.MayContain(keys[i]);            \
    *hits += h;                                                              \
    return true;                                                             \
  }
  BLOCKBLOOM_TYPED_BENCH_CASES(BLOCKBLOOM_TYPED_QUERY)
#undef BLOCKBLOOM_TYPED_QUERY
  return false;
}

}  // namespace

bool Insert(Filter& f, const uint64_t* keys, size_t n) { return InsertKeys(f, keys, n); }
bool Insert(Filter& f, const std::string_view* keys, size_t n) { return InsertKeys(f, keys, n); }
bool Query(const FilterView& f, const uint64_t* keys, size_t n, uint64_t* hits) { return QueryKeys(f, keys, n, hits); }
bool Query(const FilterView& f, const std::string_view* keys, size_t n, uint64_t* hits) {
  return QueryKeys(f, keys, n, hits);
}

}  // namespace blockbloom::bench::typed_rows
