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

// Boost.Bloom's mixing of an integer key (boost::hash is the identity, then
// mulx64 by the golden-ratio constant): the 128-bit product's halves XORed.
uint64_t FoldHash(uint64_t key) {
  __extension__ using U128 = unsigned __int128;
  const U128 p = static_cast<U128>(key) * 0x9E3779B97F4A7C15ULL;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}

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

template <class Key>
bool InsertFolded(Filter& f, const Key* keys, size_t n) {
#define BLOCKBLOOM_TYPED_INSERT_FOLD(L, K, H)                                \
  if (Is(f, Layout::k##L, K, HashKind::k##H)) {                              \
    TypedInserter<Layout::k##L, K, HashKind::k##H> ins(f);                   \
    for (size_t i = 0; i < n; ++i) ins.InsertHash(FoldHash(keys[i]));        \
    return true;                                                             \
  }
  BLOCKBLOOM_TYPED_BENCH_CASES(BLOCKBLOOM_TYPED_INSERT_FOLD)
#undef BLOCKBLOOM_TYPED_INSERT_FOLD
  return false;
}

template <class Key>
bool QueryFolded(const FilterView& f, const Key* keys, size_t n, uint64_t* hits) {
#define BLOCKBLOOM_TYPED_QUERY_FOLD(L, K, H)                                 \
  if (Is(f, Layout::k##L, K, HashKind::k##H)) {                              \
    const TypedView<Layout::k##L, K, HashKind::k##H> view(f);                \
    uint64_t h = 0;                                                          \
    for (size_t i = 0; i < n; ++i) h += view.MayContainHash(FoldHash(keys[i])); \
    *hits += h;                                                              \
    return true;                                                             \
  }
  BLOCKBLOOM_TYPED_BENCH_CASES(BLOCKBLOOM_TYPED_QUERY_FOLD)
#undef BLOCKBLOOM_TYPED_QUERY_FOLD
  return false;
}

}  // namespace

bool InsertFold(Filter& f, const uint64_t* keys, size_t n) { return InsertFolded(f, keys, n); }
bool QueryFold(const FilterView& f, const uint64_t* keys, size_t n, uint64_t* hits) {
  return QueryFolded(f, keys, n, hits);
}

bool Insert(Filter& f, const uint64_t* keys, size_t n) { return InsertKeys(f, keys, n); }
bool Insert(Filter& f, const std::string_view* keys, size_t n) { return InsertKeys(f, keys, n); }
bool Query(const FilterView& f, const uint64_t* keys, size_t n, uint64_t* hits) { return QueryKeys(f, keys, n, hits); }
bool Query(const FilterView& f, const std::string_view* keys, size_t n, uint64_t* hits) {
  return QueryKeys(f, keys, n, hits);
}

}  // namespace blockbloom::bench::typed_rows
