// SPDX-License-Identifier: Apache-2.0
// XXPH3_64bits_withSeed: the preview release of XXH3 (xxHash 0.7.x era) that
// RocksDB keeps, frozen, as the key hash of its filters (util/xxph3.h in
// RocksDB). Written here from that definition; only hash_inline.h includes
// it, after <xxhash.h>, whose XXH3_kSecret is the same 192-byte default
// secret the preview uses. It differs from released XXH3 in the short paths
// (0..16 bytes: other mixing and avalanche) and in the long path (no XXH3
// final rounding changes of 0.8), so XXH3_64bits cannot stand in for it.
// tests/rocksdb_test.cc holds it equal to librocksdb's own Hash64 for every
// length 0..1100 and several seeds.
#ifndef BLOCKBLOOM_ENGINE_XXPH3_H_
#define BLOCKBLOOM_ENGINE_XXPH3_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/common.h"

namespace blockbloom::detail::xxph3 {

inline constexpr uint64_t kPrime32_1 = 0x9E3779B1U;
inline constexpr uint64_t kPrime32_2 = 0x85EBCA77U;
inline constexpr uint64_t kPrime32_3 = 0xC2B2AE3DU;
inline constexpr uint64_t kPrime64_1 = 0x9E3779B185EBCA87ULL;
inline constexpr uint64_t kPrime64_2 = 0xC2B2AE3D27D4EB4FULL;
inline constexpr uint64_t kPrime64_3 = 0x165667B19E3779F9ULL;
inline constexpr uint64_t kPrime64_4 = 0x85EBCA77C2B2AE63ULL;
inline constexpr uint64_t kPrime64_5 = 0x27D4EB2F165667C5ULL;
inline constexpr size_t kSecretSize = 192;     // the default secret
inline constexpr size_t kSecretSizeMin = 136;  // what the mid-size path indexes against
inline constexpr size_t kStripe = 64;          // bytes per accumulate step
inline constexpr size_t kConsumeRate = 8;      // secret bytes advanced per stripe

inline uint32_t Read32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // little-endian host assumed, as the kernels do
}
inline uint64_t Read64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t Fold64(uint64_t a, uint64_t b) { return kernels::MulxFold(a, b); }
using kernels::Xxph3Avalanche;

inline uint64_t Len1To3(const uint8_t* in, size_t len, const uint8_t* secret, uint64_t seed) {
  const uint32_t combined = uint32_t{in[0]} | (uint32_t{in[len >> 1]} << 8) | (uint32_t{in[len - 1]} << 16) |
                            (static_cast<uint32_t>(len) << 24);
  const uint64_t keyed = uint64_t{combined} ^ (Read32(secret) + seed);
  return Xxph3Avalanche(keyed * kPrime64_1);
}
inline uint64_t Len4To8(const uint8_t* in, size_t len, const uint8_t* secret, uint64_t seed) {
  const uint64_t in64 = Read32(in) | (uint64_t{Read32(in + len - 4)} << 32);
  const uint64_t keyed = in64 ^ (Read64(secret) + seed);
  const uint64_t mix = len + (keyed ^ (keyed >> 51)) * kPrime32_1;
  return Xxph3Avalanche((mix ^ (mix >> 47)) * kPrime64_2);
}
inline uint64_t Len9To16(const uint8_t* in, size_t len, const uint8_t* secret, uint64_t seed) {
  const uint64_t lo = Read64(in) ^ (Read64(secret) + seed);
  const uint64_t hi = Read64(in + len - 8) ^ (Read64(secret + 8) - seed);
  return Xxph3Avalanche(len + (lo + hi) + Fold64(lo, hi));
}
inline uint64_t Mix16(const uint8_t* in, const uint8_t* secret, uint64_t seed) {
  return Fold64(Read64(in) ^ (Read64(secret) + seed), Read64(in + 8) ^ (Read64(secret + 8) - seed));
}
inline uint64_t Len17To128(const uint8_t* in, size_t len, const uint8_t* secret, uint64_t seed) {
  uint64_t acc = len * kPrime64_1;
  // Pairs of 16-byte lanes from both ends, outermost first in the secret.
  const size_t pairs = (len - 1) / 32 + 1;  // 17..32: 1, 33..64: 2, 65..96: 3, 97..128: 4
  for (size_t i = 0; i < pairs; ++i) {
    acc += Mix16(in + 16 * i, secret + 32 * i, seed);
    acc += Mix16(in + len - 16 * (i + 1), secret + 32 * i + 16, seed);
  }
  return Xxph3Avalanche(acc);
}
inline uint64_t Len129To240(const uint8_t* in, size_t len, const uint8_t* secret, uint64_t seed) {
  constexpr size_t kStartOffset = 3, kLastOffset = 17;
  uint64_t acc = len * kPrime64_1;
  for (size_t i = 0; i < 8; ++i) acc += Mix16(in + 16 * i, secret + 16 * i, seed);
  acc = Xxph3Avalanche(acc);
  for (size_t i = 8; i < len / 16; ++i) acc += Mix16(in + 16 * i, secret + 16 * (i - 8) + kStartOffset, seed);
  acc += Mix16(in + len - 16, secret + kSecretSizeMin - kLastOffset, seed);
  return Xxph3Avalanche(acc);
}

// The long path (more than 240 bytes): 8 lanes of 64 bits, one 64-byte stripe
// at a time, the secret advancing 8 bytes per stripe; the lanes scrambled after
// each block of (secret size - 64) / 8 stripes; a last stripe ending at the
// input's end; then the lanes merged.
inline void Accumulate512(uint64_t* acc, const uint8_t* in, const uint8_t* secret) {
  for (size_t i = 0; i < 8; ++i) {
    const uint64_t v = Read64(in + 8 * i);
    const uint64_t k = v ^ Read64(secret + 8 * i);
    acc[i] += v + (k & 0xffffffffULL) * (k >> 32);
  }
}
inline void Scramble(uint64_t* acc, const uint8_t* secret) {
  for (size_t i = 0; i < 8; ++i) {
    uint64_t a = acc[i];
    a ^= a >> 47;
    a ^= Read64(secret + 8 * i);
    acc[i] = a * kPrime32_1;
  }
}
inline uint64_t HashLong(const uint8_t* in, size_t len, const uint8_t* secret) {
  constexpr size_t kLastAccStart = 7, kMergeAccsStart = 11;
  uint64_t acc[8] = {kPrime32_3, kPrime64_1, kPrime64_2, kPrime64_3, kPrime64_4, kPrime32_2, kPrime64_5, kPrime32_1};
  const size_t rounds = (kSecretSize - kStripe) / kConsumeRate;
  const size_t block = kStripe * rounds;
  const size_t blocks = len / block;
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t s = 0; s < rounds; ++s) Accumulate512(acc, in + b * block + s * kStripe, secret + s * kConsumeRate);
    Scramble(acc, secret + kSecretSize - kStripe);
  }
  const size_t stripes = (len - block * blocks) / kStripe;
  for (size_t s = 0; s < stripes; ++s) Accumulate512(acc, in + blocks * block + s * kStripe, secret + s * kConsumeRate);
  if (len % kStripe != 0) Accumulate512(acc, in + len - kStripe, secret + kSecretSize - kStripe - kLastAccStart);
  uint64_t r = len * kPrime64_1;
  for (size_t i = 0; i < 8; i += 2)
    r += Fold64(acc[i] ^ Read64(secret + kMergeAccsStart + 8 * i),
                acc[i + 1] ^ Read64(secret + kMergeAccsStart + 8 * i + 8));
  return Xxph3Avalanche(r);
}

// XXPH3_64bits_withSeed(data, len, seed); `secret` is the 192-byte default.
inline uint64_t Hash64(const void* data, size_t len, uint64_t seed, const uint8_t* secret) {
  const auto* in = static_cast<const uint8_t*>(data);
  if (len > 240) {
    if (seed == 0) return HashLong(in, len, secret);
    // A seeded long input hashes with a secret derived from the seed: each
    // 16 bytes' first word plus the seed, second word minus it.
    uint8_t custom[kSecretSize];
    for (size_t i = 0; i < kSecretSize; i += 16) {
      const uint64_t lo = Read64(secret + i) + seed, hi = Read64(secret + i + 8) - seed;
      std::memcpy(custom + i, &lo, 8);
      std::memcpy(custom + i + 8, &hi, 8);
    }
    return HashLong(in, len, custom);
  }
  if (len > 128) return Len129To240(in, len, secret, seed);
  if (len > 16) return Len17To128(in, len, secret, seed);
  if (len > 8) return Len9To16(in, len, secret, seed);
  if (len >= 4) return Len4To8(in, len, secret, seed);
  if (len > 0) return Len1To3(in, len, secret, seed);
  return Fold64(seed + Read64(secret), kPrime64_2);
}

}  // namespace blockbloom::detail::xxph3

#endif  // BLOCKBLOOM_ENGINE_XXPH3_H_
