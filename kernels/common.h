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

#include <array>
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
// Lemire's multiply-shift "fastrange" on the high 32 bits, ((hash >> 32) *
// num_blocks) >> 32: no division; needs num_blocks <= 2^32 (kMaxBlocks). Block
// j receives floor(2^32 / num_blocks) or one more of the 2^32 values, so blocks
// are equally likely only up to that rounding: the model (engine/src/model.cc)
// weights the two classes.
inline uint64_t BlockIndex(uint64_t hash, uint64_t num_blocks) {
  return ((hash >> 32) * num_blocks) >> 32;
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BLOCKBLOOM_BLOCK_INDEX_MULX 1
// The same value as the high half of BMI2's MULX product of num_blocks and the
// hash with its low half cleared ((hash >> 32) * 2^32 * num_blocks / 2^64,
// exact at num_blocks = 2^32 too): an AND and a MULX where BlockIndex takes a
// shift, an IMUL and a shift, once a loop holds the AND's constant in a
// register. For CPUs with BMI2 only: the kernels of the AVX2 and AVX-512
// targets (BlockOffset, kernels/probe-inl.h; g++ 12 compiles a 128-bit
// product to MUL, whose fixed RAX operand costs a MOV, hence the assembly).
inline uint64_t BlockIndexMulx(uint64_t hash, uint64_t num_blocks) {
  uint64_t lo, hi;  // lo is not needed; MULX writes both halves
  asm("mulx %2, %0, %1" : "=r"(lo), "=r"(hi) : "r"(num_blocks), "d"(hash & 0xFFFFFFFF00000000ULL));
  return hi;
}
#else
#define BLOCKBLOOM_BLOCK_INDEX_MULX 0
#endif

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
// kSalt[0..7] widened to u64 lanes: AVX-512's VPMULUDQ multiplies the low
// halves, so u64 lane j holds zone j's product in its low 32 bits (the line
// masks of split512 and sectorized512 at k = 8).
alignas(64) inline constexpr uint64_t kSalt64[8] = {kSalt[0], kSalt[1], kSalt[2], kSalt[3],
                                                   kSalt[4], kSalt[5], kSalt[6], kSalt[7]};

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

// A 64-bit constant in memory, for instructions that read their operand from
// there (MulBy, MulxFoldBy). Hidden: position-independent code (the library
// is built with it) then reads it relative to the instruction, not through the
// GOT (a load of its address first: one instruction more).
#if defined(__GNUC__) || defined(__clang__)
#define BLOCKBLOOM_HIDDEN __attribute__((visibility("hidden")))
#else
#define BLOCKBLOOM_HIDDEN
#endif
template <uint64_t kM>
BLOCKBLOOM_HIDDEN inline constexpr uint64_t kOperand = kM;
// x * kM (mod 2^64). kFromMemory (x86-64, GNU assembly): an IMUL of the
// constant in memory, for the single-key kernels (kernels/kernels.cc, one call
// a key): they hold no register across calls, so the product of a register
// costs a ten-byte MOVABS of the constant every call. Inlined loops
// (blockbloom/typed.h) hold it in a register: the plain product. Measured:
// the CHANGELOG ("Changed (speed)", the single-key kernels' constants).
template <uint64_t kM, bool kFromMemory = false>
inline uint64_t MulBy(uint64_t x) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (kFromMemory) {
    asm("imul %1, %0" : "+r"(x) : "m"(kOperand<kM>));
    return x;
  }
#endif
  return x * kM;
}

// XXH3_64bits_withSeed of the key's 8 little-endian bytes, in registers
// (XXH3_len_4to8_64b with len = 8: input1 = lo32(key), input2 = hi32(key),
// input64 = input2 + (input1 << 32) = rotl64(key, 32), then XXH3_rrmxmx).
// Computed from the value, never through a byte buffer: a buffer written
// byte by byte and read back as words fails store-to-load forwarding, and the
// stalled load waits for older stores to retire, i.e. behind the previous
// key's cache miss: single-key lookups then stop overlapping (measured:
// 64-80 ns/key instead of 7.5 on a 1.25 MB split256 filter, AMD EPYC, loaded).
// seed_const = Xxh3SeedConstant(seed): a filter computes it once. kOneCall:
// the multiplier from memory (MulBy).
template <bool kOneCall = false>
inline uint64_t Xxh3U64WithConstant(uint64_t key, uint64_t seed_const) {
  uint64_t h = Rotl64(key, 32) ^ seed_const;
  h ^= Rotl64(h, 49) ^ Rotl64(h, 24);
  h = MulBy<kXxh3Rrmxmx, kOneCall>(h);
  h ^= (h >> 35) + 8;
  h = MulBy<kXxh3Rrmxmx, kOneCall>(h);
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
inline uint64_t MulxFoldBy(uint64_t x) {
#if defined(__x86_64__) && defined(__BMI2__) && (defined(__GNUC__) || defined(__clang__))
  uint64_t lo, hi;  // their XOR is all that is kept, so the operand order does not matter
  asm("mulx %3, %0, %1" : "=r"(lo), "=r"(hi) : "d"(x), "m"(kOperand<kM>));
  return lo ^ hi;
#else
  return MulxFold(x, kM);
#endif
}
inline uint64_t MulxU64(uint64_t key, uint64_t seed) {
  return MulxFoldBy<kMulxMultiplier2>(MulxFoldBy<kMulxMultiplier>(key ^ seed));
}
// "foldmul" (HashKind::kFoldMul, blockbloom/hash.h says when to choose it):
// mulx's first fold, then a 64-bit multiply by an odd constant (a multiplier
// of Steele and Vigna's "Computationally easy, spectrally good multipliers for
// congruential pseudorandom number generators", arXiv:2001.05304, the one
// Boost.Bloom's position generator also uses). On sequential keys the fold's low half is a Weyl
// sequence and its high half nearly constant, so the fold's top bits spread
// keys over blocks more evenly than chance; the multiply makes every top bit
// depend on all 64 bits of the fold. A fold then a multiply, not two folds:
// the multiply is one instruction with no high half to fetch and XOR (typed.h
// figures: blockbloom/hash.h).
inline constexpr uint64_t kFoldMulMultiplier = 0xF1357AEA2E62A9C5ULL;
// The fold's multiplier in a register (MulxFold), not from memory as mulx's
// (MulxFoldBy): with one fold the caller's loop has the register to spare.
// kOneCall: the second multiplier from memory (MulBy says why; the fold's
// MUL takes a MOV of its operand either way).
template <bool kOneCall = false>
inline uint64_t FoldMulU64(uint64_t key, uint64_t seed) {
  return MulBy<kFoldMulMultiplier, kOneCall>(MulxFold(key ^ seed, kMulxMultiplier));
}
// "aes" (HashKind::kAes, blockbloom/hash.h says when to choose it): three
// rounds of AES encryption, as x86's AESENC computes one (SubBytes,
// ShiftRows, MixColumns, then XOR of the round key; FIPS-197 section 5.1),
// of the 16-byte block whose bytes 0..7 are (key ^ seed) little-endian and
// whose bytes 8..15 are zero; the hash is the result's bytes 0..7
// (little-endian). Round keys: kAesRoundKey (fixed; the seed only enters
// through the key). Why three: with two, strided keys leave the model in the
// verifier's exact sets (keys i << 20: split256 at 10 bits/key 19% against
// its 1.27%); three stay inside it at every test point, sequential, random and
// strided (tests/verify/fpr_test.cc). On CPUs with AES instructions a round is
// one instruction (kernels/aes-inl.h); this portable form is the reference's,
// the engine's and the fallback.
inline constexpr uint8_t kAesSbox[256] = {
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
};
// The round keys as (bytes 0..7, bytes 8..15) little-endian: the fractional
// hexadecimal digits of pi (Blowfish's P-array), 0x243f6a88... in order.
inline constexpr uint64_t kAesRoundKey[3][2] = {{0x13198a2e03707344ULL, 0x243f6a8885a308d3ULL},
                                                {0x082efa98ec4e6c89ULL, 0xa4093822299f31d0ULL},
                                                {0xbe5466cf34e90c6cULL, 0x452821e638d01377ULL}};
inline constexpr uint8_t AesXtime(uint8_t b) { return static_cast<uint8_t>((b << 1) ^ ((b >> 7) * 0x1b)); }
// One AESENC round on the block as four little-endian u32 columns (byte r of
// column c is state byte r + 4c): column c becomes MixColumns of the S-boxed
// bytes ShiftRows brings to it, (s[c] byte 0, s[c + 1] byte 1, s[c + 2] byte 2,
// s[c + 3] byte 3), XOR the round key's column. kAesTable[x] is MixColumns of
// the column (S(x), 0, 0, 0), i.e. (2 S(x), S(x), S(x), 3 S(x)); rows 1..3 of
// the input are its rotations by 8, 16 and 24 bits.
inline constexpr auto kAesTable = [] {
  std::array<uint32_t, 256> t{};
  for (int x = 0; x < 256; ++x) {
    const uint32_t sb = kAesSbox[x], two = AesXtime(kAesSbox[x]);
    t[x] = two | sb << 8 | sb << 16 | (two ^ sb) << 24;
  }
  return t;
}();
inline void AesRoundColumns(uint32_t s[4], const uint32_t round_key[4]) {
  uint32_t t[4];
  for (int c = 0; c < 4; ++c) {
    t[c] = kAesTable[s[c] & 0xff] ^ std::rotl(kAesTable[(s[(c + 1) & 3] >> 8) & 0xff], 8) ^
           std::rotl(kAesTable[(s[(c + 2) & 3] >> 16) & 0xff], 16) ^ std::rotl(kAesTable[s[(c + 3) & 3] >> 24], 24) ^
           round_key[c];
  }
  for (int c = 0; c < 4; ++c) s[c] = t[c];
}
// The same on 16 bytes (FIPS-197's order: byte r + 4c is row r of column c).
inline void AesRoundPortable(uint8_t s[16], const uint8_t round_key[16]) {
  uint32_t w[4], k[4];
  for (int c = 0; c < 4; ++c) {
    w[c] = static_cast<uint32_t>(s[4 * c]) | s[4 * c + 1] << 8 | s[4 * c + 2] << 16 |
           static_cast<uint32_t>(s[4 * c + 3]) << 24;
    k[c] = static_cast<uint32_t>(round_key[4 * c]) | round_key[4 * c + 1] << 8 | round_key[4 * c + 2] << 16 |
           static_cast<uint32_t>(round_key[4 * c + 3]) << 24;
  }
  AesRoundColumns(w, k);
  for (int i = 0; i < 16; ++i) s[i] = static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4)));
}
// The first `rounds` rounds (3 for the hash; tests/verify/fpr_test.cc shows
// why not 2).
inline uint64_t AesRoundsU64(uint64_t key, uint64_t seed, int rounds) {
  const uint64_t x = key ^ seed;
  uint32_t s[4] = {static_cast<uint32_t>(x), static_cast<uint32_t>(x >> 32), 0, 0};
  for (int r = 0; r < rounds; ++r) {
    const uint64_t lo = kAesRoundKey[r][0], hi = kAesRoundKey[r][1];
    const uint32_t k[4] = {static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32), static_cast<uint32_t>(hi),
                           static_cast<uint32_t>(hi >> 32)};
    AesRoundColumns(s, k);
  }
  return s[0] | static_cast<uint64_t>(s[1]) << 32;
}
inline uint64_t AesU64Portable(uint64_t key, uint64_t seed) { return AesRoundsU64(key, seed, 3); }
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
// kOneCall: the constants from memory where the kind has a form for it
// (MulBy; the single-key kernels).
template <HashKind kKind, bool kOneCall = false>
inline uint64_t HashU64With(uint64_t key, uint64_t c) {
  if constexpr (kKind == HashKind::kXxh64) {
    return Xxh64U64(key, c);
  } else if constexpr (kKind == HashKind::kMulx) {
    return MulxU64(key, c);
  } else if constexpr (kKind == HashKind::kRocksdb) {
    return RocksdbU64WithConstant(key, c);
  } else if constexpr (kKind == HashKind::kAes) {
    return AesU64Portable(key, c);
  } else if constexpr (kKind == HashKind::kFoldMul) {
    return FoldMulU64<kOneCall>(key, c);
  } else {
    static_assert(kKind == HashKind::kXxh3, "a hash kind missing here");
    return Xxh3U64WithConstant<kOneCall>(key, c);
  }
}
inline uint64_t HashU64WithConstant(uint64_t key, HashKind kind, uint64_t c) {
  switch (kind) {
    case HashKind::kXxh64: return HashU64With<HashKind::kXxh64>(key, c);
    case HashKind::kMulx: return HashU64With<HashKind::kMulx>(key, c);
    case HashKind::kRocksdb: return HashU64With<HashKind::kRocksdb>(key, c);
    case HashKind::kAes: return HashU64With<HashKind::kAes>(key, c);
    case HashKind::kFoldMul: return HashU64With<HashKind::kFoldMul>(key, c);
    case HashKind::kXxh3: break;
  }
  return HashU64With<HashKind::kXxh3>(key, c);
}

}  // namespace blockbloom::kernels

#endif  // BLOCKBLOOM_KERNELS_COMMON_H_
