// SPDX-License-Identifier: Apache-2.0
// The per-target batch entry points that the dispatch module's two translation
// units share: kernels/kernels.cc defines the query side (and GetOps(), whose
// Ops table points at all of them), kernels/kernels_insert.cc the insert side.
// Declarations only; re-included once per target, as every -inl.h here.
#if defined(BLOCKBLOOM_KERNELS_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_KERNELS_INL_H_
#undef BLOCKBLOOM_KERNELS_KERNELS_INL_H_
#else
#define BLOCKBLOOM_KERNELS_KERNELS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "kernels/highway.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {

// kernels/kernels_insert.cc: RunBatch<Mode::kInsert> and <Mode::kInsertAtomic>.
void InsertHashes(const FilterRef& f, const uint64_t* hashes, size_t n);
void InsertHashesAhead(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t* next, size_t nnext);
void InsertHashesAtomic(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t* next, size_t nnext);
void InsertKeys(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed, HashKind hash);

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // include guard
