// SPDX-License-Identifier: Apache-2.0
// The cases of tests/typed_test.cc, included by two files: typed_test.cc
// (compiled with the project's flags) and typed_simd.cc (x86-64: compiled for
// AVX2, so blockbloom/typed.h takes its inline SIMD path there). Everything is
// in an unnamed namespace: each file gets its own copy, compiled for its own
// instruction set, and the two never share an inline function.
#ifndef BLOCKBLOOM_TESTS_TYPED_CASES_H_
#define BLOCKBLOOM_TESTS_TYPED_CASES_H_

#include <cstddef>
#include <cstdint>

#include "blockbloom/typed.h"

namespace {

// Every layout, each allowed k of sectorized512, the ends and a middle of the
// k ranges of the others, every hash kind.
#define BLOCKBLOOM_TYPED_CASES(X)                                                                           \
  X(Blocked512, 1, Xxh3) X(Blocked512, 7, Mulx) X(Blocked512, 16, Xxh64) X(Split256, 8, Xxh3)               \
  X(Split256, 8, Mulx) X(Split256, 8, Xxh64) X(Sectorized512, 1, Xxh3) X(Sectorized512, 2, Mulx)            \
  X(Sectorized512, 4, Xxh64) X(Sectorized512, 8, Mulx) X(Sectorized512, 16, Xxh3) X(Register64, 1, Mulx)    \
  X(Register64, 3, Xxh3) X(Register64, 6, Mulx) X(Register64, 8, Xxh64) X(Classic, 1, Xxh3)                 \
  X(Classic, 7, Mulx) X(Classic, 32, Xxh64) X(Split512, 8, Xxh3) X(Split512, 8, Mulx) X(Split512, 8, Xxh64) \
  X(Blocked512, 16, Aes) X(Split256, 8, Aes) X(Sectorized512, 8, Aes) X(Register64, 6, Aes)                 \
  X(Classic, 7, Aes) X(Split512, 8, Aes) X(Blocked512, 7, Rocksdb) X(Blocked512, 7, FoldMul)                \
  X(Split256, 8, FoldMul) X(Sectorized512, 8, FoldMul) X(Register64, 6, FoldMul) X(Classic, 7, FoldMul)     \
  X(Split512, 8, FoldMul)

// Inserts keys[0, n) into f (empty, of the type's parameters) through a
// TypedInserter, the first half by key and the rest by hash, then writes the
// TypedView's answers for probes[0, np) to out (by key) and out_hash (by hash).
template <blockbloom::Layout kL, uint32_t kK, blockbloom::HashKind kH>
void RunTyped(blockbloom::Filter& f, const uint64_t* keys, size_t n, const uint64_t* probes, size_t np,
              uint8_t* out, uint8_t* out_hash) {
  blockbloom::TypedInserter<kL, kK, kH> ins(f);
  for (size_t i = 0; i < n; ++i) {
    if (i < n / 2) {
      ins.Insert(keys[i]);
    } else {
      ins.InsertHash(blockbloom::HashU64(keys[i], kH, f.seed()));
    }
  }
  const blockbloom::TypedView<kL, kK, kH> view(f);
  for (size_t i = 0; i < np; ++i) {
    out[i] = view.MayContain(probes[i]) ? 1 : 0;
    out_hash[i] = view.MayContainHash(blockbloom::HashU64(probes[i], kH, f.seed())) ? 1 : 0;
    if (ins.MayContain(probes[i]) != view.MayContain(probes[i])) out[i] = 2;  // the inserter's query disagrees
  }
}

// RunTyped for f's own (layout, k, hash); false if it is not one of the cases.
inline bool RunTypedCase(blockbloom::Filter& f, const uint64_t* keys, size_t n, const uint64_t* probes, size_t np,
                         uint8_t* out, uint8_t* out_hash) {
#define BLOCKBLOOM_TYPED_RUN(L, K, H)                                                                 \
  if (f.layout() == blockbloom::Layout::k##L && f.k() == K && f.hash_kind() == blockbloom::HashKind::k##H) { \
    RunTyped<blockbloom::Layout::k##L, K, blockbloom::HashKind::k##H>(f, keys, n, probes, np, out, out_hash);  \
    return true;                                                                                      \
  }
  BLOCKBLOOM_TYPED_CASES(BLOCKBLOOM_TYPED_RUN)
#undef BLOCKBLOOM_TYPED_RUN
  return false;
}

}  // namespace

#endif  // BLOCKBLOOM_TESTS_TYPED_CASES_H_
