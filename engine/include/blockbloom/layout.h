// SPDX-License-Identifier: Apache-2.0
// Filter layouts: the names users see in the API, the CLI, the file format and
// the reports, and one table of facts per layout (LayoutTraits).
//
// Each layout lives in three places, and the build or a test fails if one is
// forgotten (tests/layout_test.cc, "Adding a layout" in CONTRIBUTING.md):
//   1. its row in kLayoutTraits below (the facts),
//   2. its mechanism: kernels/<name>-inl.h holds its scalar reference probe
//      (the definition of its bits) beside its per-target SIMD probe, listed
//      once in kernels/layouts-inl.h,
//   3. its formulas: the row's ProbeSpread, which the false-positive rate in
//      engine/src/model.cc (BlockModel) and the fill-to-keys estimate in
//      engine/src/fold.cc read (only a new ProbeSpread adds a case to each),
// plus its golden entry (tests/filter_test.cc, tests/golden/) pinning its bytes.
// CONTRIBUTING.md lists every other place that names a layout and what checks it.
#ifndef BLOCKBLOOM_LAYOUT_H_
#define BLOCKBLOOM_LAYOUT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blockbloom {

// Values are stored in filter files: never renumber.
enum class Layout : uint8_t {
  kBlocked512 = 0,     // 512-bit (cache-line) blocks, k = 1..16 bits anywhere in the block
  kSplit256 = 1,       // 8 x u32 words, one bit per word (k = 8): Apache Parquet's SBBF
  kSectorized512 = 2,  // 16 x u32 words in k zones (k = 1, 2, 4, 8, 16), one bit per zone
  kRegister64 = 3,     // 64-bit blocks, k = 1..8 bits in one word
  kClassic = 4,        // unblocked, k = 1..32 probes by double hashing
  kSplit512 = 5,       // 8 x u64 words, one bit per word (k = 8): sectorized512 k = 8 with fewer operations
};

// What Filter::num_blocks() (and the file header's block count) counts.
enum class SizeUnit : uint8_t {
  kBlocks,  // whole blocks of block_bits bits
  kBits,    // single bits (classic: every bit is its own block)
};

// Where a key's k probes fall in its block: what the false-positive model
// (engine/src/model.cc) and the key estimate (engine/src/fold.cc) read.
enum class ProbeSpread : uint8_t {
  kAnywhere,      // k probes, each uniform over the block's block_bits bits (may repeat)
  kOnePerZone,    // k zones of block_bits / k bits, one probe uniform in each
};

// The facts of one layout. Everything that asks "which layout is it?" to learn
// a size, a range or a name reads it from here.
struct LayoutTraits {
  Layout layout;
  std::string_view name;   // as in the CLI, files' reports and benchmarks
  uint32_t block_bits;     // bits per block (classic: 1)
  uint32_t min_k, max_k;   // bits (probes) per key
  bool k_power_of_two;     // k must split the block's 16 words into equal zones
  std::string_view k_text; // the allowed k in words, for error messages
  uint64_t max_blocks;     // largest block count (classic: bits) the index can address
  SizeUnit unit;
  ProbeSpread spread;      // classic: anywhere in its one "block", the m bits
};

// Largest block count of the blocked layouts: the block index is
// ((hash >> 32) * blocks) >> 32 (kernels/common.h), so blocks <= 2^32:
// 256 GiB of 512-bit blocks, 128 GiB split256, 32 GiB register64.
inline constexpr uint64_t kMaxBlocks = uint64_t{1} << 32;
// Classic: the probe index is (g * m) >> 64 on a 64-bit g, exact for any m; 2^40
// bits (128 GiB) bounds it to what a 64-bit machine can allocate with room to spare.
inline constexpr uint64_t kMaxClassicBits = uint64_t{1} << 40;

// Indexed by the Layout value.
inline constexpr LayoutTraits kLayoutTraits[] = {
    // Why sectorized512 is built the way it is: Lang, Neumann, Kemper & Boncz
    // ("Performance-Optimal Filtering", VLDB 2019) recommend cache-sectorized
    // blocking: a cache-line block cut into word-sized sectors grouped in z
    // zones, one sector chosen per zone. Its rate stays close to
    // k-bits-anywhere blocking while each probe is one SIMD sequence over one
    // line, with no gather. We take 32-bit words (every target multiplies
    // 32-bit lanes natively) and z = k zones with one bit per zone, so the
    // per-block rate is exactly (1 - (1 - k/512)^i)^k at load i. At 10
    // bits/key, k = 8 gives 1.05% (Boost.Bloom's fast_multiblock64<8> figure),
    // against 0.97% for blocked512 (k = 6) and 1.26% for split256.
    {Layout::kBlocked512, "blocked512", 512, 1, 16, false, "1..16", kMaxBlocks, SizeUnit::kBlocks, ProbeSpread::kAnywhere},
    {Layout::kSplit256, "split256", 256, 8, 8, false, "8", kMaxBlocks, SizeUnit::kBlocks, ProbeSpread::kOnePerZone},
    {Layout::kSectorized512, "sectorized512", 512, 1, 16, true, "1, 2, 4, 8 or 16", kMaxBlocks,
     SizeUnit::kBlocks, ProbeSpread::kOnePerZone},
    {Layout::kRegister64, "register64", 64, 1, 8, false, "1..8", kMaxBlocks, SizeUnit::kBlocks, ProbeSpread::kAnywhere},
    {Layout::kClassic, "classic", 1, 1, 32, false, "1..32", kMaxClassicBits, SizeUnit::kBits, ProbeSpread::kAnywhere},
    // Why split512 exists beside sectorized512 at k = 8 (the same rate: one
    // bit in each of 8 zones of 64 bits, (1 - (1 - 1/64)^i)^8 at load i):
    // word j's bit is the top 6 bits of lo32 * kSalt[j] as they are, where
    // sectorized512 splits them into a word of the zone (1 bit) and a bit of
    // the word (5 bits), so a probe widens the 8 products' top bits to u64
    // lanes and shifts, without recombining them: 5 vector operations a key
    // on AVX-512 instead of 7, 7 on AVX2 instead of 10
    // (kernels/split512-inl.h; what it buys, issue 20: the CHANGELOG).
    {Layout::kSplit512, "split512", 512, 8, 8, false, "8", kMaxBlocks, SizeUnit::kBlocks, ProbeSpread::kOnePerZone},
};
inline constexpr size_t kNumLayouts = std::size(kLayoutTraits);

// Every layout, in Layout value order.
inline constexpr std::array<Layout, kNumLayouts> kAllLayouts = [] {
  std::array<Layout, kNumLayouts> all{};
  for (size_t i = 0; i < kNumLayouts; ++i) all[i] = kLayoutTraits[i].layout;
  return all;
}();

constexpr bool IsKnownLayout(Layout layout) { return static_cast<size_t>(layout) < kNumLayouts; }
// The facts of a known layout (IsKnownLayout(layout) must hold).
constexpr const LayoutTraits& Traits(Layout layout) { return kLayoutTraits[static_cast<size_t>(layout)]; }

static_assert([] {
  for (size_t i = 0; i < kNumLayouts; ++i) {
    if (static_cast<size_t>(kLayoutTraits[i].layout) != i) return false;
  }
  return true;
}(), "kLayoutTraits must be indexed by the Layout value");

// "blocked512", "split256", ... ("unknown" for a value outside the enum).
constexpr std::string_view LayoutName(Layout layout) {
  return IsKnownLayout(layout) ? Traits(layout).name : std::string_view("unknown");
}
// Inverse of LayoutName; nullopt for an unknown name.
constexpr std::optional<Layout> ParseLayout(std::string_view name) {
  for (const LayoutTraits& t : kLayoutTraits) {
    if (t.name == name) return t.layout;
  }
  return std::nullopt;
}
// As ParseLayout, but throws std::invalid_argument naming `param` (e.g.
// "--layout" or "layout"), the value and every layout name.
Layout LayoutFromName(std::string_view name, std::string_view param = "layout");
// "blocked512, split256, sectorized512, register64, classic, split512".
std::string LayoutNames();

constexpr uint32_t LayoutBlockBits(Layout layout) { return Traits(layout).block_bits; }
constexpr uint32_t LayoutMinK(Layout layout) { return Traits(layout).min_k; }
constexpr uint32_t LayoutMaxK(Layout layout) { return Traits(layout).max_k; }
constexpr bool LayoutAcceptsK(Layout layout, uint32_t k) {
  const LayoutTraits& t = Traits(layout);
  return k >= t.min_k && k <= t.max_k && (!t.k_power_of_two || (k & (k - 1)) == 0);
}
// Bits of a filter of `blocks` blocks (classic: bits), blocks <= max_blocks.
constexpr uint64_t LayoutBits(Layout layout, uint64_t blocks) { return blocks * Traits(layout).block_bits; }
// Payload bytes of such a filter: its bits rounded up to whole 64-byte lines,
// so that vector loads past the last block stay inside (zero-padded).
constexpr uint64_t LayoutPayloadBytes(Layout layout, uint64_t blocks) {
  return (LayoutBits(layout, blocks) + 511) / 512 * 64;
}

// Throw std::invalid_argument ("blockbloom: k = 3 is out of range for layout
// sectorized512: expected 1, 2, 4, 8 or 16") unless the layout accepts k /
// the block count (1..max_blocks; the message says "bits" for classic).
void CheckLayoutK(Layout layout, uint32_t k);
void CheckLayoutBlocks(Layout layout, uint64_t blocks);
// "blocks" or "bits": what num_blocks counts for this layout.
constexpr std::string_view LayoutUnitName(Layout layout) {
  return Traits(layout).unit == SizeUnit::kBits ? "bits" : "blocks";
}

}  // namespace blockbloom

#endif  // BLOCKBLOOM_LAYOUT_H_
