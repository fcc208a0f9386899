// SPDX-License-Identifier: Apache-2.0
// The scalar reference: each layout's probe is defined in kernels/<layout>-inl.h
// (its reference part, plain C++); this file switches among them and wraps
// them as an Ops table.
#include "kernels/reference.h"

#include "kernels/common.h"
#include "kernels/layouts-inl.h"

namespace blockbloom::kernels::reference {
namespace {

inline uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Sets (insert) or tests (query) one key's bits. Returns whether all were set
// before the call.
template <Access kA>
bool Probe(const FilterRef& f, uint64_t hash) {
  switch (f.layout) {
#define BLOCKBLOOM_REFERENCE_CASE(Name) \
  case Layout::k##Name:                 \
    return Name::Probe<kA>(f, hash);
    BLOCKBLOOM_FOR_EACH_LAYOUT(BLOCKBLOOM_REFERENCE_CASE)
#undef BLOCKBLOOM_REFERENCE_CASE
  }
  return false;
}

void HashBatch(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = HashU64(keys[i], seed);
}
void InsertBatch(const FilterRef& f, const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; ++i) InsertHash(f, hashes[i]);
}
size_t QueryBatch(const FilterRef& f, const uint64_t* hashes, size_t n, uint8_t* out) {
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    out[i] = QueryHash(f, hashes[i]) ? 1 : 0;
    hits += out[i];
  }
  return hits;
}
void InsertKeys(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; ++i) InsertHash(f, HashU64(keys[i], seed));
}
size_t QueryKeys(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed,
                 uint8_t* out) {
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    out[i] = QueryHash(f, HashU64(keys[i], seed)) ? 1 : 0;
    hits += out[i];
  }
  return hits;
}

}  // namespace

uint64_t HashU64(uint64_t key, uint64_t seed) {
  // XXH3_len_4to8_64b with len = 8: input1 = lo32(key), input2 = hi32(key),
  // input64 = input2 + (input1 << 32) = rotl64(key, 32).
  uint64_t h = Rotl64(key, 32) ^ Xxh3SeedConstant(seed);
  // XXH3_rrmxmx(h, 8)
  h ^= Rotl64(h, 49) ^ Rotl64(h, 24);
  h *= kXxh3Rrmxmx;
  h ^= (h >> 35) + 8;
  h *= kXxh3Rrmxmx;
  return h ^ (h >> 28);
}

void InsertHash(const FilterRef& f, uint64_t hash) { Probe<Access::kInsert>(f, hash); }
bool QueryHash(const FilterRef& f, uint64_t hash) { return Probe<Access::kQuery>(f, hash); }
void InsertHashAtomic(const FilterRef& f, uint64_t hash) { Probe<Access::kInsertAtomic>(f, hash); }
bool QueryHashAtomic(const FilterRef& f, uint64_t hash) { return Probe<Access::kQueryAtomic>(f, hash); }

namespace {
void InsertAhead(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t*, size_t) {
  InsertBatch(f, hashes, n);
}
size_t QueryAhead(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t*, size_t, uint8_t* out) {
  return QueryBatch(f, hashes, n, out);
}
void InsertAtomicBatch(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t*, size_t) {
  for (size_t i = 0; i < n; ++i) InsertHashAtomic(f, hashes[i]);
}
}  // namespace

const Ops& ReferenceOps() {
  static const Ops ops{0,           "reference",       &HashBatch,         &InsertBatch, &QueryBatch,
                       &InsertAhead, &QueryAhead,      &InsertAtomicBatch, &InsertKeys,  &QueryKeys};
  return ops;
}

}  // namespace blockbloom::kernels::reference
