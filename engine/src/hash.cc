// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/hash.h"

#include <string>

#include "engine/src/errors.h"
#include "engine/src/hash_inline.h"

namespace blockbloom {

std::string_view HashName(HashKind kind) {
  switch (kind) {
    case HashKind::kXxh64: return "xxh64";
    case HashKind::kMulx: return "mulx";
    case HashKind::kRocksdb: return "rocksdb";
    case HashKind::kAes: return "aes";
    case HashKind::kFoldMul: return "foldmul";
    case HashKind::kXxh3: break;
  }
  return "xxh3";
}

std::optional<HashKind> ParseHash(std::string_view name) {
  if (name == "xxh3") return HashKind::kXxh3;
  if (name == "xxh64") return HashKind::kXxh64;
  if (name == "mulx") return HashKind::kMulx;
  if (name == "rocksdb") return HashKind::kRocksdb;
  if (name == "aes") return HashKind::kAes;
  if (name == "foldmul") return HashKind::kFoldMul;
  return std::nullopt;
}

HashKind HashFromName(std::string_view name, std::string_view param) {
  if (const std::optional<HashKind> h = ParseHash(name)) return *h;
  detail::Invalid(std::string(param) + " = '" + std::string(name) +
                  "' is unknown: expected xxh3, xxh64, mulx, rocksdb, aes or foldmul");
}

uint64_t HashBytes(std::string_view key, HashKind kind, uint64_t seed) {
  return detail::HashBytesInline(key.data(), key.size(), kind, seed);
}
uint64_t HashU64(uint64_t key, HashKind kind, uint64_t seed) { return detail::HashU64Inline(key, kind, seed); }

}  // namespace blockbloom
