// SPDX-License-Identifier: Apache-2.0
// What the layouts' mechanisms share, in plain C++: the block index, the probe
// constants, the classic layout's double hashing, XXH3's 8-byte constants and
// how a reference probe touches a word. The facts of each layout (block size,
// k range, limits) are its row in blockbloom::kLayoutTraits (layout.h); its
// mechanism is kernels/<layout>-inl.h. Changing anything here changes the
// filter format (bump kFormatVersion in engine/include/blockbloom/format.h and
// regenerate the golden schema test).
#ifndef BLOCKBLOOM_KERNELS_COMMON_H_
#define BLOCKBLOOM_KERNELS_COMMON_H_

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "blockbloom/hash.h"
#include "blockbloom/layout.h"

#include "kernels/kernels.h"

namespace blockbloom::kernels {

// Blocks are cache-line aligned; every layout's block divides 64 bytes.
inline constexpr size_t kAlign = 64;

// Bytes of the bit array of a filter with `num_blocks` blocks (classic: m bits),
// rounded up to kAlign so that vector loads past the last block stay inside.
constexpr uint64_t PayloadBytes(Layout l, uint64_t num_blocks) { return LayoutPayloadBytes(l, num_blocks); }

// ---- How a reference probe touches a word ------------------------------------
// Plain loads and stores, or (for filters written by concurrent threads)
// relaxed atomic loads and fetch_or: queries beside InsertAtomic writers must
// load atomically too, or they race under the C++ memory model.
enum class Access { kQuery, kQueryAtomic, kInsert, kInsertAtomic };
constexpr bool IsAtomic(Access a) { return a == Access::kQueryAtomic || a == Access::kInsertAtomic; }
constexpr bool Writes(Access a) { return a == Access::kInsert || a == Access::kInsertAtomic; }

// The word of type T at p (p aligned to sizeof(T): blocks are 64-byte aligned).
template <Access kA, typename T>
inline T LoadWord(const uint8_t* p) {
  if constexpr (IsAtomic(kA)) {
    return std::atomic_ref<T>(*reinterpret_cast<T*>(const_cast<uint8_t*>(p))).load(std::memory_order_relaxed);
  } else {
    T w;
    std::memcpy(&w, p, sizeof(T));
    return w;  // little-endian host assumed (x86-64, AArch64)
  }
}
// Sets `mask` in the word at p whose value was `w` (insert only).
template <Access kA, typename T>
inline void OrWord(uint8_t* p, T w, T mask) {
  if constexpr (kA == Access::kInsert) {
    w |= mask;
    std::memcpy(p, &w, sizeof(T));
  } else if constexpr (kA == Access::kInsertAtomic) {
    std::atomic_ref<T>(*reinterpret_cast<T*>(p)).fetch_or(mask, std::memory_order_relaxed);
  }
}

// ---- Stage 2: pick the block ------------------------------------------------
// Lemire's multiply-shift "fastrange" on the high 32 bits: no division; needs
// num_blocks <= 2^32 (kMaxBlocks). Block j receives floor(2^32 / num_blocks) or one
// more of the 2^32 values, so blocks are equally likely only up to that
// rounding: the model (engine/src/model.cc) weights the two classes.
inline uint64_t BlockIndex(uint64_t hash, uint64_t num_blocks) {
  return ((hash >> 32) * num_blocks) >> 32;
}

// ---- Stage 3 constants ------------------------------------------------------
// blocked512 / register64: probe i uses x_i = lo32 * kGoldenPow[i] (mod 2^32) and
// takes its top 9 (resp. 6) bits as the bit index, as RocksDB's FastLocalBloom
// does with repeated multiplication by the golden constant. kGoldenPow[i] =
// kGolden32^i mod 2^32, kGolden32 = 0x9e3779b9 = floor(2^32 / phi). Powers of an odd
// number are odd, so each x_i is a bijection of lo32.
inline constexpr uint32_t kGoldenPow[16] = {
    0x00000001, 0x9e3779b9, 0xe35e67b1, 0x734297e9, 0x35fbe861, 0xdeb7c719,
    0x0448b211, 0x3459b749, 0xab25f4c1, 0x52941879, 0x9c95e071, 0xf5ab9aa9,
    0x2d6ba521, 0x8bededd9, 0x9bfb72d1, 0x3ae1c209};

// split256 / sectorized512: zone j uses x_j = lo32 * kSalt[j] (mod 2^32); the top
// 5 bits pick the bit in the word, the next log2(words per zone) bits pick the
// word in the zone. split512: u64 word j takes bit x_j >> 26 (its top 6 bits).
// kSalt[0..7] are the Apache Parquet SBBF salts (BloomFilter.md),
// so split256 is bit-exact with Parquet; kSalt[8..15] are the low 32 bits of
// SplitMix64 outputs 1..8 from state 0, forced odd.
inline constexpr uint32_t kSalt[16] = {
    0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b,
    0x9efc4947, 0x5c6bfb31, 0x7b1dcdaf, 0xa1b965f5, 0x8009454f, 0x724c81ed,
    0x51a8749b, 0x747ea2eb, 0x1f4532e1, 0xc916ab3d};
// kSalt[0..7] in the order 0, 4, 1, 5, 2, 6, 3, 7: multiplied in 8 u32 lanes,
// u64 lane j then holds zone j's product in its low half and zone j + 4's in
// its high half (the AVX2 masks of sectorized512 at k = 8 and split512).
inline constexpr uint32_t kInterleavedSalt[8] = {kSalt[0], kSalt[4], kSalt[1], kSalt[5],
                                                 kSalt[2], kSalt[6], kSalt[3], kSalt[7]};

// Classic: Kirsch-Mitzenmacher double hashing g_i = h1 + i * h2 (mod 2^64), bit
// index (g_i * m) >> 64. h1 = the hash, h2 = the hash remixed by one
// multiply-xorshift round and forced odd (so the g_i are distinct mod 2^64).
inline constexpr uint64_t kMix64 = 0x9FB21C651E98DF25ULL;  // XXH3's rrmxmx multiplier
inline uint64_t ClassicStep(uint64_t hash) {
  uint64_t x = hash * kMix64;
  x ^= x >> 29;
  return x | 1;
}
__extension__ using Uint128 = unsigned __int128;
inline uint64_t ClassicIndex(uint64_t g, uint64_t m) {
  return static_cast<uint64_t>((static_cast<Uint128>(g) * m) >> 64);
}

// ---- Stage 1 constants: XXH3-64, 4..8-byte path (xxhash.h XXH3_len_4to8_64b) --
// For an 8-byte input: keyed = rotl64(key, 32) ^ (kXxh3Bitflip8 - seed'),
// seed' = seed ^ (bswap32(lo32(seed)) << 32), then XXH3_rrmxmx(keyed, 8).
// kXxh3Bitflip8 = readLE64(kSecret + 8) ^ readLE64(kSecret + 16).
inline constexpr uint64_t kXxh3Bitflip8 = 0x1cad21f72c81017cULL ^ 0xdb979083e96dd4deULL;
inline constexpr uint64_t kXxh3Rrmxmx = 0x9FB21C651E98DF25ULL;

inline uint64_t Xxh3SeedConstant(uint64_t seed) {
  const uint32_t lo = static_cast<uint32_t>(seed);
  const uint32_t swapped = __builtin_bswap32(lo);
  const uint64_t s = seed ^ (static_cast<uint64_t>(swapped) << 32);
  return kXxh3Bitflip8 - s;
}

inline constexpr uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// XXH3_64bits_withSeed of the key's 8 little-endian bytes, in registers
// (XXH3_len_4to8_64b with len = 8: input1 = lo32(key), input2 = hi32(key),
// input64 = input2 + (input1 << 32) = rotl64(key, 32), then XXH3_rrmxmx).
// Computed from the value, never through a byte buffer: a buffer written
// byte by byte and read back as words fails store-to-load forwarding, and the
// stalled load waits for older stores to retire, i.e. behind the previous
// key's cache miss: single-key lookups then stop overlapping (measured:
// 64-80 ns/key instead of 7.5 on a 1.25 MB split256 filter, AMD EPYC, loaded).
// seed_const = Xxh3SeedConstant(seed): a filter computes it once.
inline uint64_t Xxh3U64WithConstant(uint64_t key, uint64_t seed_const) {
  uint64_t h = Rotl64(key, 32) ^ seed_const;
  h ^= Rotl64(h, 49) ^ Rotl64(h, 24);
  h *= kXxh3Rrmxmx;
  h ^= (h >> 35) + 8;
  h *= kXxh3Rrmxmx;
  return h ^ (h >> 28);
}
inline uint64_t Xxh3U64(uint64_t key, uint64_t seed) { return Xxh3U64WithConstant(key, Xxh3SeedConstant(seed)); }

// XXH64 of the key's 8 little-endian bytes, in registers (XXH64_finalize of
// one 8-byte lane after h64 = seed + PRIME64_5 + len; then XXH64_avalanche).
inline constexpr uint64_t kXxhPrime64[5] = {0x9E3779B185EBCA87ULL, 0xC2B2AE3D27D4EB4FULL, 0x165667B19E3779F9ULL,
                                            0x85EBCA77C2B2AE63ULL, 0x27D4EB2F165667C5ULL};
inline uint64_t Xxh64U64(uint64_t key, uint64_t seed) {
  uint64_t h = seed + kXxhPrime64[4] + 8;
  const uint64_t k1 = Rotl64(key * kXxhPrime64[1], 31) * kXxhPrime64[0];
  h ^= k1;
  h = Rotl64(h, 27) * kXxhPrime64[0] + kXxhPrime64[3];
  h ^= h >> 33;
  h *= kXxhPrime64[1];
  h ^= h >> 29;
  h *= kXxhPrime64[2];
  return h ^ (h >> 32);
}

// "mulx" (HashKind::kMulx, blockbloom/hash.h says when to choose it): the
// 128-bit product of (key ^ seed) and 2^64 / phi, its halves XORed.
inline constexpr uint64_t kMulxMultiplier = 0x9E3779B97F4A7C15ULL;
inline constexpr uint64_t kMulxMultiplier2 = 0xD6E8FEB86659FD93ULL;
inline uint64_t MulxFold(uint64_t x, uint64_t m) {
  const Uint128 p = static_cast<Uint128>(x) * m;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}
// MulxFold by a constant. On x86 with BMI2 the MULX reads its multiplier from
// memory: inlined into a caller's loop (blockbloom/typed.h), two multipliers
// held in registers plus the two products' halves left g++ 12 one register
// short under AVX-512 flags, and it kept the caller's loop counter in an XMM
// register (two cross-domain moves on the loop's carried chain: split256
// per-key queries 2.2 ns/key instead of 1.5 on Zen 5, the CHANGELOG).
template <uint64_t kM>
inline constexpr uint64_t kMulxOperand = kM;
template <uint64_t kM>
inline uint64_t MulxFoldBy(uint64_t x) {
#if defined(__x86_64__) && defined(__BMI2__) && (defined(__GNUC__) || defined(__clang__))
  uint64_t lo, hi;  // their XOR is all that is kept, so the operand order does not matter
  asm("mulx %3, %0, %1" : "=r"(lo), "=r"(hi) : "d"(x), "m"(kMulxOperand<kM>));
  return lo ^ hi;
#else
  return MulxFold(x, kM);
#endif
}
inline uint64_t MulxU64(uint64_t key, uint64_t seed) {
  return MulxFoldBy<kMulxMultiplier2>(MulxFoldBy<kMulxMultiplier>(key ^ seed));
}
// A little-endian u64 read through memcpy, as a value (identity on LE hosts).
inline uint64_t LoadLE64Value(uint64_t raw) {
  if constexpr (std::endian::native == std::endian::little) {
    return raw;
  } else {
    return __builtin_bswap64(raw);
  }
}

// "rocksdb" (HashKind::kRocksdb): XXPH3_64bits_withSeed, the XXH3 preview
// RocksDB keeps for its filters (util/xxph3.h there), of the key's 8
// little-endian bytes, in registers, then its 32-bit halves swapped
// (blockbloom/hash.h says why). XXPH3_len_4to8_64b with len = 8: input64 =
// lo32 | hi32 << 32 = the key itself; keyed = input64 ^ (secret[0..8) + seed);
// mix = 8 + (keyed ^ keyed >> 51) * PRIME32_1; then (mix ^ mix >> 47) *
// PRIME64_2 and the preview's avalanche (x ^= x >> 37; x *= PRIME64_3;
// x ^= x >> 32). seed_const = kXxph3Secret0 + seed: a filter computes it once.
inline constexpr uint64_t kXxph3Secret0 = 0xbe4ba423396cfeb8ULL;  // XXH3's default secret, bytes 0..8 (LE)
inline constexpr uint64_t kXxhPrime32_1 = 0x9E3779B1ULL;
inline uint64_t Xxph3Avalanche(uint64_t h) {
  h ^= h >> 37;
  h *= kXxhPrime64[2];
  return h ^ (h >> 32);
}
inline uint64_t RocksdbU64WithConstant(uint64_t key, uint64_t seed_const) {
  const uint64_t keyed = key ^ seed_const;
  const uint64_t mix = 8 + (keyed ^ (keyed >> 51)) * kXxhPrime32_1;
  return Rotl64(Xxph3Avalanche((mix ^ (mix >> 47)) * kXxhPrime64[1]), 32);
}

// The single-key path hashes a uint64 key with a per-filter constant computed
// once: XXH3's seed-derived constant, XXPH3's first secret word plus the seed,
// else the seed itself.
inline uint64_t KeyHashConstant(HashKind kind, uint64_t seed) {
  if (kind == HashKind::kRocksdb) return kXxph3Secret0 + seed;
  return kind == HashKind::kXxh3 ? Xxh3SeedConstant(seed) : seed;
}
template <HashKind kKind>
inline uint64_t HashU64With(uint64_t key, uint64_t c) {
  if constexpr (kKind == HashKind::kXxh64) {
    return Xxh64U64(key, c);
  } else if constexpr (kKind == HashKind::kMulx) {
    return MulxU64(key, c);
  } else if constexpr (kKind == HashKind::kRocksdb) {
    return RocksdbU64WithConstant(key, c);
  } else {
    return Xxh3U64WithConstant(key, c);
  }
}
inline uint64_t HashU64WithConstant(uint64_t key, HashKind kind, uint64_t c) {
  switch (kind) {
    case HashKind::kXxh64: return HashU64With<HashKind::kXxh64>(key, c);
    case HashKind::kMulx: return HashU64With<HashKind::kMulx>(key, c);
    case HashKind::kRocksdb: return HashU64With<HashKind::kRocksdb>(key, c);
    case HashKind::kXxh3: break;
  }
  return HashU64With<HashKind::kXxh3>(key, c);
}

}  // namespace blockbloom::kernels

#endif  // BLOCKBLOOM_KERNELS_COMMON_H_
