// SPDX-License-Identifier: Apache-2.0
// Kernels of the blocked counting filter (blockbloom/garden/blocked_counting.h): 4-bit
// counters, the k counters of a key in one 64-byte line, so a key costs one
// cache miss however large the filter (the classic counting filter costs k).
//
// This header is plain C++ (no Highway types), like kernels/kernels.h. Its own
// dispatch module (kernels/counting.cc, kernels/counting-inl.h) compiles every
// SIMD target; kernels/counting_reference.cc is the scalar reference that
// defines the bits, and every target reproduces it byte for byte
// (tests/garden/garden_counting_kernels_test.cc, one test case per target).
//
// Bit layout (stored in garden files: changing it needs a new kGardenVersion):
//   block    b = BlockIndex(hash, num_blocks) = ((hash >> 32) * num_blocks) >> 32   (kernels/common.h)
//   line     64 bytes = 128 counters of 4 bits; counter c is bits [4 (c % 16), 4 (c % 16) + 4)
//            of the line's little-endian u64 word c / 16 (so: byte c / 2, low nibble if c is even)
//   probes   c_i = (lo32 * kGoldenPow[i]) >> 25 for i < k, k in [1, 16]: the top 7 bits of
//            the same golden-ratio products blocked512 uses (kernels/common.h)
//   the key's counters are the DISTINCT c_i (a repeated probe counts once)
//   insert   every counter of the key below 15 gains 1; a counter at 15 stays (saturated,
//            sticky: it is never decremented again); returns the increments lost that way
//   remove   if every counter of the key is non-zero, every one below 15 loses 1 (removed = 1);
//            otherwise nothing changes (removed = 0: the key was surely never inserted)
//   query    1 iff every counter of the key is non-zero
//   count    the minimum of the key's counters (0..15)
// Batches run in order: a batch equals the per-key calls one after another.
#ifndef BLOCKBLOOM_KERNELS_COUNTING_H_
#define BLOCKBLOOM_KERNELS_COUNTING_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace blockbloom::kernels::counting {

inline constexpr uint32_t kLineBytes = 64;
inline constexpr uint32_t kCounters = 128;  // per line: 512 bits / 4
inline constexpr uint32_t kCounterBits = 4;
inline constexpr uint32_t kMaxCount = 15;   // 2^4 - 1: saturated
inline constexpr uint32_t kMaxK = 16;       // kGoldenPow has 16 entries
inline constexpr uint32_t kProbeShift = 25;  // 32 - log2(kCounters)
// Largest block count: BlockIndex needs blocks <= 2^32 (256 GiB of lines).
inline constexpr uint64_t kMaxBlocks = uint64_t{1} << 32;

// What a kernel sees of a filter.
//   lines:       64-byte aligned, 64 * num_blocks bytes.
//   num_blocks:  1 <= num_blocks <= kMaxBlocks.
//   k:           1 <= k <= kMaxK.
struct CountingRef {
  uint8_t* lines;
  uint64_t num_blocks;
  uint32_t k;
};

// One compiled target's kernels; every entry point writes the same bytes and
// answers as the reference. hashes[0, n) readable; out / removed hold n bytes.
struct CountingOps {
  int64_t target;    // Highway target bit, 0 for the reference
  const char* name;  // lower-case: "avx2", "sse4", "emu128", ..., "reference"
  // Returns the increments lost to saturated counters.
  uint64_t (*insert)(const CountingRef& f, const uint64_t* hashes, size_t n);
  // removed[i] = 1 if key i was removed; returns the number removed.
  size_t (*remove)(const CountingRef& f, const uint64_t* hashes, size_t n, uint8_t* removed);
  // out[i] = 1 if key i may be present; returns the number of 1s.
  size_t (*query)(const CountingRef& f, const uint64_t* hashes, size_t n, uint8_t* out);
  // out[i] = the minimum of key i's counters.
  void (*count)(const CountingRef& f, const uint64_t* hashes, size_t n, uint8_t* out);
};

// Every target compiled into this binary, best first (including ones this CPU
// cannot run: check Supported).
std::span<const CountingOps* const> CountingTargets();
bool Supported(const CountingOps& ops);
// The target of the engine's kernels::Active() (so BLOCKBLOOM_TARGET and
// PinTarget pin both), else the best supported one.
const CountingOps& ActiveCounting();

namespace reference {
uint64_t InsertHash(const CountingRef& f, uint64_t hash);  // lost increments
bool RemoveHash(const CountingRef& f, uint64_t hash);
bool QueryHash(const CountingRef& f, uint64_t hash);
uint32_t CountHash(const CountingRef& f, uint64_t hash);
// The reference as a CountingOps table (name "reference").
const CountingOps& ReferenceCountingOps();
}  // namespace reference

}  // namespace blockbloom::kernels::counting

#endif  // BLOCKBLOOM_KERNELS_COUNTING_H_
