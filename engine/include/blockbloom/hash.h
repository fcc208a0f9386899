// SPDX-License-Identifier: Apache-2.0
// Stage 1, the key hash: which functions a filter can use and how a key is fed
// to them. The kernels take these 64-bit hashes, never keys.
#ifndef BLOCKBLOOM_HASH_H_
#define BLOCKBLOOM_HASH_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace blockbloom {

// Values are stored in filter files: never renumber.
enum class HashKind : uint8_t {
  kXxh3 = 0,   // "xxh3": XXH3_64bits_withSeed (the default; vectorized for u64 keys)
  kXxh64 = 1,  // "xxh64": XXH64 (what Apache Parquet uses, with seed 0)
  // "mulx": an 8-byte key (every uint64) is mixed by two folded multiplies,
  // fold(fold(key ^ seed, m1), m2), fold(x, m) = the 128-bit product x * m
  // with its halves XORed (kernels/common.h MulxU64): a short single-key path,
  // the shortest on CPUs without AES instructions (with them "aes" is shorter
  // for most layouts: docs/typed.md). One fold
  // (Boost.Bloom's mulx64 mixing of integer keys) spreads sequential keys
  // more evenly than chance and breaks the false-positive model; two meet it
  // (tests/verify/fpr_test.cc). Keys of any other length hash with XXH3 (seeded),
  // exactly as "xxh3". Weaker than XXH3 against crafted keys: both folds are
  // cheap to search, so anyone who knows the seed can choose colliding keys;
  // use it for keys no adversary picks.
  kMulx = 2,
  // "rocksdb": RocksDB's filter hash, XXPH3_64bits_withSeed (the preview
  // release of XXH3 that RocksDB keeps for its format, util/xxph3.h there;
  // it differs from released XXH3 for every length), with the result's two
  // 32-bit halves swapped: RocksDB's FastLocalBloom picks the cache line with
  // the lower half and probes with the upper, blocked512 the other way round,
  // so with the swap a blocked512 filter of this kind is bit-exact with
  // RocksDB's (blockbloom/rocksdb.h). RocksDB itself uses seed 0. Not
  // vectorized: batches of uint64 keys hash key by key in the kernels' key
  // pipeline (as xxh64 and mulx do; only XXH3 hashes in vectors).
  kRocksdb = 3,
  // "aes": an 8-byte key (every uint64) is mixed by three rounds of AES
  // encryption (kernels/common.h AesU64Portable says which), one instruction
  // each on CPUs with AES (x86 AES-NI, ARMv8 crypto): a short single-key path
  // that meets the false-positive model on sequential and strided keys
  // (tests/verify/fpr_test.cc; "foldmul" is shorter, "mulx" takes two
  // dependent 64x64-bit multiplies, XXH3 two and their shifts), and batches
  // hash eight keys per vector where the CPU has VAES. Where the CPU has no
  // AES instructions (x86 CPUs or virtual machines without AES-NI, AArch64
  // CPUs without the crypto extension; the NEON and SVE kernels use it where
  // present) it is computed in software by the scalar reference, ~50 ns a
  // key: there prefer "foldmul" for single keys, "xxh3" for batches. Keys of
  // any other length hash with XXH3 (seeded), exactly as "xxh3". Three rounds
  // with fixed round keys are no cipher: like "mulx", use it for keys no
  // adversary picks.
  kAes = 4,
  // "foldmul": an 8-byte key (every uint64) is mixed by one folded multiply
  // and one plain one: fold(key ^ seed, m1) * m3 (mod 2^64; kernels/common.h
  // FoldMulU64). The fold alone (Boost.Bloom's mixing) leaves the model on
  // sequential keys; the second, 64-bit multiply carries every bit of the
  // fold into the high half that picks the block, and with it the kind meets
  // the model on every grid point and strided pattern the fast hashes are
  // held to (tests/verify/fpr_test.cc). The shortest chain of the kinds, with
  // no AES instructions needed: the kind for single keys (typed.h, Insert(key),
  // MayContain(key); docs/typed.md has the figures). Its batches hash key by
  // key, where "aes" and "xxh3" hash several keys per vector: for batches
  // prefer those. Keys of any other length hash with XXH3 (seeded), exactly as
  // "xxh3". Like "mulx" and "aes", for keys no adversary picks.
  kFoldMul = 5,
};
// The largest HashKind value: files with a larger hash byte are refused.
inline constexpr HashKind kLastHashKind = HashKind::kFoldMul;
// Every kind, in value order (tests iterate over it so that none is missed).
inline constexpr HashKind kHashKinds[] = {HashKind::kXxh3,    HashKind::kXxh64, HashKind::kMulx,
                                          HashKind::kRocksdb, HashKind::kAes,   HashKind::kFoldMul};
static_assert(sizeof(kHashKinds) / sizeof(kHashKinds[0]) == static_cast<size_t>(kLastHashKind) + 1);
std::string_view HashName(HashKind kind);
// Inverse of HashName; nullopt for an unknown name.
std::optional<HashKind> ParseHash(std::string_view name);
// As ParseHash, but throws std::invalid_argument naming `param`, the value and
// the known names.
HashKind HashFromName(std::string_view name, std::string_view param = "hash");

// A uint64 key is hashed as its 8 little-endian bytes (for "rocksdb" too: a
// RocksDB user key of those 8 bytes), so
// HashU64(x) == HashBytes(string_view of x's 8 LE bytes).
uint64_t HashBytes(std::string_view key, HashKind kind, uint64_t seed);
uint64_t HashU64(uint64_t key, HashKind kind, uint64_t seed);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_HASH_H_
