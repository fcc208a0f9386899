// SPDX-License-Identifier: Apache-2.0
// The per-key rows through blockbloom/typed.h (mode "typed"), behind a plain
// interface: bench/typed_bench.cc is compiled with -O3 -march=native, as a user
// would compile the file that calls TypedView / TypedInserter for their own
// server (and as the Boost.Bloom peer is compiled); nothing of typed.h is in
// this header, so no inline code is compiled twice with different flags.
#ifndef BLOCKBLOOM_BENCH_TYPED_ROWS_H_
#define BLOCKBLOOM_BENCH_TYPED_ROWS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "blockbloom/filter.h"

namespace blockbloom::bench::typed_rows {

// Whether typed_bench.cc was compiled (CMake found -march=native) and for a
// SIMD static target (else its handles make the dispatched call).
bool Available();
bool Simd();
// The calling file's static target, as Highway names it ("AVX2", "AVX3", "NEON").
const char* StaticTarget();
// f's (layout, k, hash) must be one of the Boost pairs' layouts (split256 k=8,
// sectorized512 k=8, split512 k=8, register64 k=6) with any hash kind; false otherwise.
// uint64 keys or strings.
bool Insert(Filter& f, const uint64_t* keys, size_t n);
bool Insert(Filter& f, const std::string_view* keys, size_t n);
bool Query(const FilterView& f, const uint64_t* keys, size_t n, uint64_t* hits);
bool Query(const FilterView& f, const std::string_view* keys, size_t n, uint64_t* hits);
// The same loops over uint64 keys with one folded multiply of the key as its
// hash (Boost.Bloom's mixing; through InsertHash / MayContainHash): the
// per-key probe behind the shortest hash chain, a reference for the typed rows
// (Mode::kTypedFold).
bool InsertFold(Filter& f, const uint64_t* keys, size_t n);
bool QueryFold(const FilterView& f, const uint64_t* keys, size_t n, uint64_t* hits);

}  // namespace blockbloom::bench::typed_rows

#endif  // BLOCKBLOOM_BENCH_TYPED_ROWS_H_
