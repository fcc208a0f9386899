// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/fold.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "blockbloom/model.h"
#include "engine/src/errors.h"
#include "engine/src/filter_access.h"

namespace blockbloom {
namespace {

// Classic: ORs bit pairs (2j, 2j+1) of a 64-bit word into its 32 low bits, in
// order: first fold each pair onto its even bit, then compact the even bits by
// the usual log-step shuffle (pairs -> nibbles -> bytes -> halves -> word).
uint32_t FoldPairs(uint64_t w) {
  uint64_t x = (w | (w >> 1)) & 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | (x >> 4)) & 0x00ff00ff00ff00ffULL;
  x = (x | (x >> 8)) & 0x0000ffff0000ffffULL;
  x = (x | (x >> 16)) & 0x00000000ffffffffULL;
  return static_cast<uint32_t>(x);
}

}  // namespace

bool CanFold(const Filter& filter) { return filter.num_blocks() % 2 == 0; }

Filter Fold(const Filter& filter) {
  if (!CanFold(filter))
    detail::Invalid("cannot fold: number of " + std::string(LayoutUnitName(filter.layout())) + " = " +
                    std::to_string(filter.num_blocks()) +
                    " is odd: expected an even number (only then does the index halve exactly)");
  Filter out = Filter::WithBlocks(filter.layout(), filter.num_blocks() / 2, filter.k(), filter.hash_kind(), filter.seed());
  const uint8_t* in = filter.data();
  uint8_t* dst = detail::FilterAccess::MutableData(out);
  if (filter.layout() == Layout::kClassic) {
    // 64 source bits -> 32 target bits; bits past m are 0, so bits past m/2 stay 0.
    const uint64_t words = (filter.bit_count() + 63) / 64;
    for (uint64_t i = 0; i < words; ++i) {
      uint64_t w;
      std::memcpy(&w, in + 8 * i, 8);
      const uint32_t half = FoldPairs(w);
      std::memcpy(dst + 4 * i, &half, 4);
    }
  } else {
    const uint64_t block_bytes = LayoutBlockBits(filter.layout()) / 8;
    for (uint64_t i = 0; i < out.num_blocks(); ++i) {
      const uint8_t* a = in + 2 * i * block_bytes;
      const uint8_t* b = a + block_bytes;
      for (uint64_t j = 0; j < block_bytes; ++j) dst[i * block_bytes + j] = a[j] | b[j];
    }
  }
  detail::FilterAccess::SetInserted(out, filter.inserted());
  return out;
}

double EstimateDistinctKeys(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t popcount) {
  const double b = static_cast<double>(num_blocks);
  const double m = b * LayoutBlockBits(layout);
  const double x = static_cast<double>(popcount);
  if (x >= m) return std::numeric_limits<double>::infinity();
  const double log_empty = std::log1p(-x / m);  // ln(1 - X/m), accurate for small fills
  if (layout == Layout::kClassic) {
    // A key sets J distinct bits (double hashing: J < k for some steps,
    // ClassicDistinctProbes), a given one with probability q = E[J]/m; with
    // J = k and ln(1 - k/m) ~ -k/m this is Swamidass & Baldi's -(m/k) ln(1 - X/m).
    return log_empty / std::log1p(-ClassicMeanDistinctProbes(num_blocks, k) / m);
  }
  // q, the chance one key sets a given bit: the key's block is the bit's with
  // probability 1/b; there (the layout's ProbeSpread, layout.h) k probes
  // anywhere in B bits set it with probability 1 - (1 - 1/B)^k, and one probe
  // in each of k zones of B/k bits (the bit's zone is always one of them) with k/B.
  const double block_bits = LayoutBlockBits(layout);
  double q = 0.0;
  switch (Traits(layout).spread) {  // no default: a new ProbeSpread fails the build here (-Wswitch)
    case ProbeSpread::kAnywhere: q = -std::expm1(k * std::log1p(-1.0 / block_bits)) / b; break;
    case ProbeSpread::kOnePerZone: q = k / (b * block_bits); break;
  }
  return log_empty / std::log1p(-q);
}

}  // namespace blockbloom
