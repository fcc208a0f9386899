// SPDX-License-Identifier: Apache-2.0
// Whole-filter arithmetic beyond union: halving a filter (fold) and estimating
// how many distinct keys it holds from its fill.
#ifndef BLOCKBLOOM_FOLD_H_
#define BLOCKBLOOM_FOLD_H_

#include <cstdint>

#include "blockbloom/filter.h"
#include "blockbloom/layout.h"

namespace blockbloom {

// ---- Fold: half the size, the same keys ---------------------------------------
// A key's block is b_idx = (hi32 * b) >> 32 (classic: bit (g_i * m) >> 64). With
// b even and b' = b / 2:
//   (hi32 * b') >> 32 = floor(hi32 * b / 2^33) = floor(floor(hi32 * b / 2^32) / 2)
//                     = floor(b_idx / 2),
// and the bits inside the block depend only on the low 32 bits and k, which do
// not change. So the filter of the same keys at b' blocks is exactly block pairs
// (2i, 2i+1) ORed into block i (classic: bit pairs (2j, 2j+1) into bit j).
// Fold(f) therefore equals, byte for byte, the filter built directly at half
// the size from the same keys: no false negatives, and the false-positive rate
// of a filter of b' blocks holding the same keys (model.h's PredictFpr).
//
// Whether `filter` can be folded: its number of blocks (classic: bits) is even.
bool CanFold(const Filter& filter);
// The folded filter (inserted() carried over). Throws std::invalid_argument
// naming the odd block count if !CanFold(filter).
Filter Fold(const Filter& filter);

// ---- Distinct keys from the fill ----------------------------------------------------
// Every layout sets each bit independently with the same probability q per
// inserted key (q below), so after n distinct keys E[X] / m = 1 - (1 - q)^n
// and inverting gives n ~ ln(1 - X/m) / ln(1 - q):
//   classic:                 q = E[J]/m, J the distinct bits of a key's k
//                            double-hashed probes (ClassicDistinctProbes, model.h);
//                            with q ~ k/m, Swamidass & Baldi's -(m/k) ln(1 - X/m)
//   blocked512, register64:  the key's block with prob. 1/b, then k probes with
//                            replacement among B bits: q = (1 - (1 - 1/B)^k) / b
//   split256, sectorized512: one bit per zone of S bits (S = 32, resp. 512/k):
//                            q = 1 / (b S)
// X = popcount, m = bits. Returns +infinity when every bit is set (X = m).
// Classic: throws std::invalid_argument for k outside 1..32.
double EstimateDistinctKeys(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t popcount);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_FOLD_H_
