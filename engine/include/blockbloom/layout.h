// Filter layouts and hash functions: the names users see in the API, the CLI,
// the file format and the reports.
#ifndef BLOCKBLOOM_LAYOUT_H_
#define BLOCKBLOOM_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace blockbloom {

// Why sectorized512 is built the way it is: Lang, Neumann, Kemper & Boncz
// ("Performance-Optimal Filtering", VLDB 2019) recommend cache-sectorized
// blocking: a cache-line block cut into word-sized sectors grouped in z zones,
// one sector chosen per zone. Its rate stays close to k-bits-anywhere blocking
// while each probe is one SIMD sequence over one line, with no gather. We take
// 32-bit words (every target multiplies 32-bit lanes natively) and z = k zones
// with one bit per zone, so each zone is a 512/k-bit sector taking one bit per
// key and the per-block rate is exactly (1 - (1 - k/512)^i)^k at load i. At 10
// bits/key, k = 8 gives 1.05% (Boost.Bloom's fast_multiblock64<8> figure),
// against 0.97% for blocked512 (k = 6) and 1.26% for split256.
//
// Values are stored in filter files: never renumber.
enum class Layout : uint8_t {
  kBlocked512 = 0,     // "blocked512": 512-bit (cache-line) blocks, k = 1..16 bits anywhere in the block
  kSplit256 = 1,       // "split256": 8 x u32 words, one bit per word (k = 8), Apache Parquet's SBBF
  kSectorized512 = 2,  // "sectorized512": 16 x u32 words in k zones (k = 1, 2, 4, 8, 16), one bit per zone
  kRegister64 = 3,     // "register64": 64-bit blocks, k = 1..8 bits in one word
  kClassic = 4,        // "classic": unblocked, k = 1..32 probes by double hashing
};

inline constexpr Layout kAllLayouts[] = {Layout::kBlocked512, Layout::kSplit256,
                                         Layout::kSectorized512, Layout::kRegister64,
                                         Layout::kClassic};

// "blocked512", "split256", ...
std::string_view LayoutName(Layout layout);
// Inverse of LayoutName; nullopt for an unknown name.
std::optional<Layout> ParseLayout(std::string_view name);

// Bits per block (classic: 1, every bit is its own block).
uint32_t LayoutBlockBits(Layout layout);
// Smallest and largest k the layout accepts (sectorized512 also needs a power of two).
uint32_t LayoutMinK(Layout layout);
uint32_t LayoutMaxK(Layout layout);
bool LayoutAcceptsK(Layout layout, uint32_t k);

// Values are stored in filter files: never renumber.
enum class HashKind : uint8_t {
  kXxh3 = 0,   // "xxh3": XXH3_64bits_withSeed (the default; vectorized for u64 keys)
  kXxh64 = 1,  // "xxh64": XXH64 (what Apache Parquet uses, with seed 0)
};
std::string_view HashName(HashKind kind);
std::optional<HashKind> ParseHash(std::string_view name);

// Stage 1, the key hash. A uint64 key is hashed as its 8 little-endian bytes,
// so HashU64(x) == HashBytes(string_view of x's 8 LE bytes).
uint64_t HashBytes(std::string_view key, HashKind kind, uint64_t seed);
uint64_t HashU64(uint64_t key, HashKind kind, uint64_t seed);

// ---- SIMD targets -----------------------------------------------------------
struct TargetInfo {
  std::string_view name;  // "avx3", "avx2", "sse4", "ssse3", "emu128", "scalar", "neon", "sve", ...
  bool supported;         // whether this CPU can run it
};
// Every target compiled into this binary, best first.
std::span<const TargetInfo> CompiledTargets();
// The target the kernels use now.
std::string_view ActiveTarget();
// Pins a target by name ("auto" unpins). Throws std::invalid_argument naming the
// compiled and supported targets if `name` is not one of them. The environment
// variable BLOCKBLOOM_TARGET does the same at start-up.
void PinTarget(std::string_view name);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_LAYOUT_H_
