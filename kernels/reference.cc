// SPDX-License-Identifier: Apache-2.0
// The scalar reference: each layout's probe is defined in kernels/<layout>-inl.h
// (its reference part, plain C++); this file switches among them and wraps
// them as an Ops table.
#include "kernels/reference.h"

#include "kernels/common.h"
#include "kernels/layouts-inl.h"

namespace blockbloom::kernels::reference {
namespace {

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

void HashBatch(const uint64_t* keys, size_t n, uint64_t seed, HashKind kind, uint64_t* out) {
  const uint64_t c = KeyHashConstant(kind, seed);
  for (size_t i = 0; i < n; ++i) out[i] = HashU64WithConstant(keys[i], kind, c);
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
void InsertKeys(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed, HashKind hash) {
  const uint64_t c = KeyHashConstant(hash, seed);
  for (size_t i = 0; i < n; ++i) InsertHash(f, HashU64WithConstant(keys[i], hash, c));
}
size_t QueryKeys(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed, HashKind hash,
                 uint8_t* out) {
  const uint64_t c = KeyHashConstant(hash, seed);
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    out[i] = QueryHash(f, HashU64WithConstant(keys[i], hash, c)) ? 1 : 0;
    hits += out[i];
  }
  return hits;
}

}  // namespace

uint64_t HashU64(uint64_t key, uint64_t seed) { return Xxh3U64(key, seed); }

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

namespace {
template <Layout kL>
bool QueryOneAt(const uint8_t* bits, uint64_t num_blocks, uint32_t k, uint64_t hash) {
  return QueryHash(FilterRef{const_cast<uint8_t*>(bits), num_blocks, k, kL}, hash);
}
template <Layout kL>
void InsertOneAt(const OneKeyArgs* a, uint64_t hash) {
  InsertHash(RefOf(*a, kL), hash);
}
template <Layout kL, HashKind kHash>
bool QueryKeyAt(const uint8_t* bits, uint64_t num_blocks, uint32_t k, uint64_t seed_const, uint64_t key) {
  return QueryOneAt<kL>(bits, num_blocks, k, HashU64With<kHash>(key, seed_const));
}
template <Layout kL, HashKind kHash>
void InsertKeyAt(const OneKeyArgs* a, uint64_t key) {
  InsertHash(RefOf(*a, kL), HashU64With<kHash>(key, a->seed_const));
}
template <Layout kL>
void InsertOneAtomicAt(const OneKeyArgs* a, uint64_t hash) {
  InsertHashAtomic(RefOf(*a, kL), hash);
}
template <Layout kL, HashKind kHash>
OneKeyOps OneKeyAtWith() {
  return OneKeyOps{&QueryOneAt<kL>, &InsertOneAt<kL>, &QueryKeyAt<kL, kHash>, &InsertKeyAt<kL, kHash>,
                   &InsertOneAtomicAt<kL>};
}
template <Layout kL>
OneKeyOps OneKeyAt(HashKind hash) {
  switch (hash) {
    case HashKind::kXxh64: return OneKeyAtWith<kL, HashKind::kXxh64>();
    case HashKind::kMulx: return OneKeyAtWith<kL, HashKind::kMulx>();
    case HashKind::kRocksdb: return OneKeyAtWith<kL, HashKind::kRocksdb>();
    case HashKind::kAes: return OneKeyAtWith<kL, HashKind::kAes>();
    case HashKind::kFoldMul: return OneKeyAtWith<kL, HashKind::kFoldMul>();
    case HashKind::kXxh3: break;
  }
  return OneKeyAtWith<kL, HashKind::kXxh3>();
}
}  // namespace

OneKeyOps OneKey(Layout layout, uint32_t, HashKind hash) {
  switch (layout) {
#define BLOCKBLOOM_REFERENCE_ONE_CASE(Name) \
  case Layout::k##Name:                     \
    return OneKeyAt<Layout::k##Name>(hash);
    BLOCKBLOOM_FOR_EACH_LAYOUT(BLOCKBLOOM_REFERENCE_ONE_CASE)
#undef BLOCKBLOOM_REFERENCE_ONE_CASE
  }
  return OneKeyAt<Layout::kBlocked512>(hash);
}

const Ops& ReferenceOps() {
  static const Ops ops{0,           "reference", 0,          &HashBatch, &InsertBatch, &QueryBatch,
                       &InsertAhead, &QueryAhead, &InsertAtomicBatch, &InsertKeys, &QueryKeys,  &OneKey};
  return ops;
}

}  // namespace blockbloom::kernels::reference
