// SPDX-License-Identifier: Apache-2.0
// The insert batches of the dispatch module (kernels/kernels.cc), per target:
// RunBatch<Mode::kInsert> and <Mode::kInsertAtomic> over every layout and k,
// for kernels.cc's GetOps() (declared in kernels/kernels-inl.h). Separate only
// for compile time: g++ -O3 spent ~150 s on kernels.cc, of which (compiled
// with parts left out) the query batches ~50 s, the insert batches ~45 s, the
// atomic ones ~20 s, the one-key ops ~10 s; the rest of the library waited on
// it. Split, the two halves compile side by side: the library builds in 71 s
// instead of 146 (-j2, Zen 3). The same templates, each RunBatch<mode> with all
// its callers in one translation unit. g++'s inlining budget is per unit
// (--param inline-unit-growth), so which calls of the key pipeline's hashing step
// it inlines changed with the split (more of them are inlined now).
// Every pass uses the same target set as kernels.cc (kernels/hwy_targets.h
// before foreach_target.h, HWY_COMPILE_ALL_ATTAINABLE in CMakeLists.txt).
#include <cstddef>
#include <cstdint>

#include "kernels/kernels.h"

#include "kernels/hwy_targets.h"  // before foreach_target.h

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/kernels_insert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "kernels/highway.h"
#include "kernels/kernels-inl.h"
#include "kernels/pipeline-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {

void InsertHashes(const FilterRef& f, const uint64_t* hashes, size_t n) {
  RunBatch<Mode::kInsert>(f, hashes, n, nullptr, 0, false, 0, HashKind::kXxh3, nullptr);
}
void InsertHashesAhead(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t* next, size_t nnext) {
  RunBatch<Mode::kInsert>(f, hashes, n, next, nnext, false, 0, HashKind::kXxh3, nullptr);
}
void InsertHashesAtomic(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t* next, size_t nnext) {
  RunBatch<Mode::kInsertAtomic>(f, hashes, n, next, nnext, false, 0, HashKind::kXxh3, nullptr);
}
void InsertKeys(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed, HashKind hash) {
  RunBatch<Mode::kInsert>(f, keys, n, nullptr, 0, true, seed, hash, nullptr);
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();
