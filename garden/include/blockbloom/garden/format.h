// SPDX-License-Identifier: Apache-2.0
// The garden file: every garden variant saved, loaded and validated with the
// discipline of the filter file (blockbloom/format.h): magic, version, type,
// parameters, checksum, atomic save, a validating load whose errors name the
// byte offset, and golden files (tests/golden/garden_*.bbg).
//
//   blockbloom::garden::SaveGarden(cbf, "digest.bbg");              // atomic
//   auto cbf = blockbloom::garden::LoadGarden<CountingFilter>("digest.bbg");
//   cbf.MergeFrom(LoadGarden<CountingFilter>("peer.bbg"));         // Summary Cache
//
// Layout of a file, version 1 (all integers little-endian):
//
//   offset size  field
//        0    8  magic "BBGARDN1" (kGardenMagic)
//        8    4  format version (kGardenVersion = 1)
//       12    1  type (GardenType)
//       13    1  hash (blockbloom::HashKind value: 0 xxh3, 1 xxh64, 2 mulx, 3 rocksdb)
//       14    2  reserved, 0
//       16    8  hash seed
//       24    8  parameter bytes P (a multiple of 8)
//       32    8  payload bytes Q (a multiple of 8)
//       40    8  checksum: XXH3-64 (seed 0) of bytes [0, 40), then the P + Q bytes after the header
//       48   16  reserved, 0
//       64    P  parameters: 64-bit fields, per type (below); reals as IEEE-754 binary64 bits
//    64 + P   Q  payload: 64-bit words, per type; nothing after it
//
// Parameters and payload per type (each field one u64 unless noted):
//   counting (1)        cells, k, width, saturations | counter words (counter i at bit i*width)
//   spectral (2)        policy (0 MS, 1 MI, 2 RM), cells, k, width, secondary cells (0: none),
//                       saturations, secondary saturations | primary words, secondary words
//   count-min (3)       width, depth, conservative (0/1), total N | depth rows of width u64 counters
//   bitwise (4)         levels L, saturations, then L x (cells, k, width) | level 0 words, level 1 words, ...
//   stable (5)          cells, k, Max, decrements P, rng seed, rng state, inserted | cell words
//   A2 (6)              bits, target fpr (real), k_a, capacity, active vector (0/1), active count,
//                       passive count, swaps | vector 0 bytes, vector 1 bytes (as Filter::data())
//   scalable (7)        initial capacity, fpr (real), layout, growth, tightening (real), slices S,
//                       then S x (blocks, k, inserted) | slice 0 bytes, slice 1 bytes, ...
//   blocked counting (8) blocks, k, inserted, saturations | blocks x 64 bytes (kernels/counting.h)
//
// The loader checks, in file order, everything a value could break: sizes
// against the file's length before anything is allocated, the checksum, every
// parameter against what the constructor accepts (and derived ones, such as
// A2's k_a and capacity or a scalable slice's size, against what the
// constructor would compute), counter padding bits, and counters against their
// invariants (count-min counters <= N, stable cells <= Max). A failed load
// leaves the caller's object untouched.
//
// Any change to the layout above or to a variant's hashing needs a new
// kGardenVersion and regenerated golden files (tests/garden/garden_format_test.cc).
#ifndef BLOCKBLOOM_GARDEN_FORMAT_H_
#define BLOCKBLOOM_GARDEN_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blockbloom/format.h"  // FormatError
#include "blockbloom/garden/aging.h"
#include "blockbloom/garden/blocked_counting.h"
#include "blockbloom/garden/multiset.h"
#include "blockbloom/garden/scalable.h"

namespace blockbloom::garden {

inline constexpr char kGardenMagic[8] = {'B', 'B', 'G', 'A', 'R', 'D', 'N', '1'};
inline constexpr uint32_t kGardenVersion = 1;
inline constexpr size_t kGardenHeaderBytes = 64;

// Values are stored in files: never renumber.
enum class GardenType : uint8_t {
  kCounting = 1,
  kSpectral = 2,
  kCountMin = 3,
  kBitwise = 4,
  kStable = 5,
  kA2 = 6,
  kScalable = 7,
  kBlockedCounting = 8,
};
// "counting", "spectral", "count-min", "bitwise", "stable", "a2", "scalable", "blocked-counting".
std::string_view GardenTypeName(GardenType type);

template <typename T>
concept GardenVariant =
    std::same_as<T, CountingFilter> || std::same_as<T, SpectralFilter> || std::same_as<T, CountMinSketch> ||
    std::same_as<T, BitwiseFilter> || std::same_as<T, StableFilter> || std::same_as<T, A2Filter> ||
    std::same_as<T, ScalableFilter> || std::same_as<T, BlockedCountingFilter>;

// The type a garden buffer holds, after validating its header and checksum
// (not its parameters). Throws FormatError.
GardenType PeekGardenType(std::span<const uint8_t> bytes, std::string_view name = "<buffer>");

// Throws std::logic_error for an empty (moved-from) variant: no garden file
// holds one, so none is written that would not load.
template <GardenVariant T>
std::vector<uint8_t> SerializeGarden(const T& variant);
// Validates everything (see above); `name` only labels error messages.
// Throws FormatError, naming the byte offset, for a bad buffer or one holding
// another type.
template <GardenVariant T>
T DeserializeGarden(std::span<const uint8_t> bytes, std::string_view name = "<buffer>");

// Atomic (temporary file, fsync, rename: WriteFileAtomic of blockbloom/format.h).
// Refuses an empty (moved-from) variant as SerializeGarden does, writing nothing.
template <GardenVariant T>
void SaveGarden(const T& variant, const std::string& path);
template <GardenVariant T>
T LoadGarden(const std::string& path);
// As above, then moves the loaded variant into *into; on any error *into is untouched.
template <GardenVariant T>
void LoadGarden(const std::string& path, T* into);

// The whole file read into memory (for the CLI: peek, then load the right type).
// Only a regular file is opened (a FIFO, device, directory or socket is
// refused at once, as LoadFilter refuses it), and its header is checked
// (magic, version, type, hash, sizes against the file's length) before the
// rest is read: a large file that is not a garden file costs one 64-byte read.
// Throws std::runtime_error naming the path if it cannot be read, FormatError
// for a bad header.
std::vector<uint8_t> ReadGardenFile(const std::string& path);

}  // namespace blockbloom::garden

#endif  // BLOCKBLOOM_GARDEN_FORMAT_H_
