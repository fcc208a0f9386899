#include "kernels/reference.h"

#include <cstring>

#include "kernels/layout.h"

namespace blockbloom::kernels::reference {
namespace {

inline uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint32_t LoadWord32(const uint8_t* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;  // little-endian host assumed (x86-64, AArch64)
}

// How a probe writes: not at all (query), plainly, or with an atomic OR.
enum class Write { kNone, kPlain, kAtomic };

// Sets `mask` in the word at p (4- or 8-byte aligned: blocks are 64-byte aligned).
template <Write kW, typename T>
inline void OrWord(uint8_t* p, T w, T mask) {
  if constexpr (kW == Write::kPlain) {
    std::memcpy(p, &(w |= mask), sizeof(T));
  } else if constexpr (kW == Write::kAtomic) {
    __atomic_fetch_or(reinterpret_cast<T*>(p), mask, __ATOMIC_RELAXED);
  }
}
inline uint64_t LoadWord64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// Sets (insert) or tests (query) one key's bits. Returns whether all were set
// before the call.
template <Write kW>
bool Probe(const FilterRef& f, uint64_t hash) {
  const uint32_t lo = static_cast<uint32_t>(hash);
  switch (f.layout) {
    case LayoutId::kBlocked512: {
      uint8_t* block = f.bits + BlockIndex(hash, f.nblocks) * 64;
      bool all = true;
      for (uint32_t i = 0; i < f.k; ++i) {
        const uint32_t bit = (lo * kGoldenPow[i]) >> 23;  // 0..511
        uint8_t* word = block + (bit >> 5) * 4;
        const uint32_t mask = uint32_t{1} << (bit & 31);
        const uint32_t w = LoadWord32(word);
        all &= (w & mask) != 0;
        OrWord<kW>(word, w, mask);
      }
      return all;
    }
    case LayoutId::kSplit256:
    case LayoutId::kSectorized512: {
      const uint32_t words = f.layout == LayoutId::kSplit256 ? 8 : 16;
      const uint32_t zones = f.layout == LayoutId::kSplit256 ? 8 : f.k;
      const uint32_t per_zone = words / zones;  // a power of two
      const uint32_t sel_bits = static_cast<uint32_t>(__builtin_ctz(per_zone));
      uint8_t* block = f.bits + BlockIndex(hash, f.nblocks) * words * 4;
      bool all = true;
      for (uint32_t z = 0; z < zones; ++z) {
        const uint32_t x = lo * kSalt[z];
        const uint32_t sel = sel_bits == 0 ? 0 : (x >> (27 - sel_bits)) & (per_zone - 1);
        uint8_t* word = block + (z * per_zone + sel) * 4;
        const uint32_t mask = uint32_t{1} << (x >> 27);
        const uint32_t w = LoadWord32(word);
        all &= (w & mask) != 0;
        OrWord<kW>(word, w, mask);
      }
      return all;
    }
    case LayoutId::kRegister64: {
      uint8_t* word = f.bits + BlockIndex(hash, f.nblocks) * 8;
      uint64_t mask = 0;
      for (uint32_t i = 0; i < f.k; ++i) mask |= uint64_t{1} << ((lo * kGoldenPow[i]) >> 26);
      const uint64_t w = LoadWord64(word);
      OrWord<kW>(word, w, mask);
      return (w & mask) == mask;
    }
    case LayoutId::kClassic: {
      const uint64_t step = ClassicStep(hash);
      uint64_t g = hash;
      bool all = true;
      for (uint32_t i = 0; i < f.k; ++i, g += step) {
        const uint64_t bit = ClassicIndex(g, f.nblocks);
        uint8_t* byte = f.bits + (bit >> 3);
        const uint8_t mask = static_cast<uint8_t>(1u << (bit & 7));
        all &= (*byte & mask) != 0;
        OrWord<kW, uint8_t>(byte, *byte, mask);
      }
      return all;
    }
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

void InsertHash(const FilterRef& f, uint64_t hash) { Probe<Write::kPlain>(f, hash); }
bool QueryHash(const FilterRef& f, uint64_t hash) { return Probe<Write::kNone>(f, hash); }
void InsertHashAtomic(const FilterRef& f, uint64_t hash) { Probe<Write::kAtomic>(f, hash); }

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
