// SPDX-License-Identifier: Apache-2.0
// The exact false-positive model of every layout, and the solver built on it.
//
// Notation: m bits, n keys inserted, k bits per key, B bits per block,
// b = m / B blocks.
//
// Classic (unblocked), the textbook: with k independent uniform probes a given
// bit is still 0 after n inserts with probability (1 - 1/m)^(kn), so
// f = (1 - (1 - 1/m)^(kn))^k ~ (1 - e^(-kn/m))^k; optimal k = (m/n) ln 2, giving
// f ~ 0.6185^(m/n); bits for a rate p: m = -n ln p / (ln 2)^2.
// Example: m/n = 8, k = 6 -> 0.0216; m/n = 16, k = 11 -> 0.000458.
// The classic layout's probes are double hashing (kernels/classic-inl.h),
// g + i step, not independent: a step within 1/D bit of a multiple of m/D
// (D < k) puts several probes on one bit, and the query then needs fewer bits
// set. PredictFpr uses the distribution of that distinct-probe count J
// (ClassicDistinctProbes, derived in engine/src/classic_model.cc):
//   f = sum_j P(J = j) p^j,  p = 1 - (1 - E[J]/m)^n.
// Steps that close to a multiple of m/D come with probability ~2/(Dm) each,
// so the term is a floor of order 1/m that the textbook rate falls below:
// at 1,000 keys and 20,000 bits, k = 16, it is 1.17x the textbook; at 60 bits
// per key, k = 20, 53,000x (5.9e-7 against 1.1e-11); for 10^6 keys at 10^-9
// the textbook's choice (43.1 bits/key, k = 30) has 2.9e-9, and the solver
// now takes 51.3 bits/key, k = 21. Measured against real filters (`blockbloom
// verify`, Zen 5, 2026-11-28): 1,000 keys, every classic point of the default
// grid inside its 99.9% interval (1.14-1.87x the textbook at k = 13-18 before);
// one filter of 1,000 keys at 60 bits/key, k = 20, and at 30 bits/key, k = 32,
// and of 100,000 keys at 30 bits/key, k = 32, each inside its 99.99% interval
// (docs/layouts-and-model.md has the figures). What remains approximate is the
// textbook's own step, the query's bits taken as independent given p, and for
// filters of at most 60 bits a grid over the step (within 0.4%).
//
// Blocked (one block per key; Putze, Sanders & Singler 2007): the block a
// query lands in holds i keys with probability Binomial(i; n, 1/b) (computed
// here in log space by walking out from the mode with the ratios of
// neighbouring terms, so it is exact to double precision at any n), and the
// rate is the mixture
//   f = sum_i Binom(i; n, 1/b) * f_block(i).
// (1/b when blocks are equally likely: "Block selection" below gives the two
// classes of blocks the kernels' 32-bit selection really has.)
// Because loads vary, a blocked filter is worse than the classic one at the
// same m/n: 10 bits/key, k = 6, B = 512 gives 0.9665% here, where the classic
// formula says 0.819%. Published figures for that point: RocksDB's
// "theoretical" 0.9535% is its two-point approximation (the standard formula
// at loads mean +- 1 sd, averaged; 0.9533% computed), RocksDB's measured
// 0.957% is the textbook mixture of (1 - (1 - 1/B)^(ik))^k (0.9576%,
// TextbookBlockedFpr), which assumes a key's k probes are distinct. The
// kernel's probes may coincide, and it measures 0.9669% +- 0.0007% (4 x 10^8
// probes, tests/verify/fpr_test.cc and `blockbloom verify` hold it to this model).
//
// f_block(i), per layout, from what the kernel really does:
//  * blocked512 (B = 512) and register64 (B = 64), k bits anywhere: the i keys
//    throw t = i k independent uniform bits into B; the query's k probes land on
//    j distinct bits with probability S(k, j) B!/(B-j)! / B^k (Stirling numbers of
//    the second kind), and j given bits are all set with probability
//    sum_l (-1)^l C(j, l) (1 - l/B)^t (inclusion-exclusion). This counts the
//    coincidences of a key's own probes exactly rather than assuming k distinct
//    bits; it equals the textbook (1 - (1 - 1/B)^(ik))^k up to that correction.
//    The kernel's probes (top bits of lo32 * golden^i) coincide as often as
//    independent uniform probes do: measured over 10^8 keys, P(some pair
//    coincides) = 0.028998 at k = 6, B = 512 (independent: 0.028974).
//  * split256: 8 words of 32 bits, every key sets one bit in every word:
//    f_block(i) = (1 - (1 - 1/32)^i)^8 (Parquet's SBBF; its sizing table
//    6.0 bits/value -> 10%, 10.5 -> 1%, 16.9 -> 0.1% follows).
//  * sectorized512: k zones of 512/k bits, every key sets one bit in every zone:
//    f_block(i) = (1 - (1 - k/512)^i)^k. split512 is its k = 8 (8 words of 64
//    bits, one bit each): f_block(i) = (1 - (1 - 1/64)^i)^8.
//  * hash width: the block comes from the high 32 bits of the 64-bit hash and
//    the probe bits from the low 32, so an absent key whose low 32 bits equal one
//    of the i keys' in its block collides on every bit:
//    f_block(i) <- f_block(i) + (1 - f_block(i)) (1 - (1 - 2^-32)^i).
//    (A filter that took both from one 32-bit hash would instead gain
//    1 - (1 - 2^-32)^n overall, which dominates past ~40M keys at 10 bits/key.)
//
// Block selection (the kernels' BlockIndex, kernels/common.h): the block is
// (h32 * b) >> 32 of the hash's high 32 bits h32, uniform on 2^32 values. Block
// j receives the h32 in [ceil(j 2^32 / b), ceil((j+1) 2^32 / b)): with
// c = floor(2^32 / b) every block gets c or c + 1 values, and since they sum to
// 2^32 exactly r = 2^32 - b c blocks get c + 1 (CountBlockClasses). A key lands
// in a given block of a class with p_s = c / 2^32 or p_l = (c + 1) / 2^32, and
// the query's block is drawn the same way, so the query sees a class with
// probability (blocks in it) x p, and then a load Binomial(n, p):
//   f = (b - r) p_s E[f_block(Binom(n, p_s))] + r p_l E[f_block(Binom(n, p_l))],
// the weights summing to 1 (b c + r = 2^32). When b divides 2^32 (r = 0), and
// in particular at b = 2^31 and 2^32, this is the uniform model with p = 1/b.
// Otherwise the query favours the fuller class: to first order the rate grows
// by E theta (1 - theta) / c^2 relative, theta = r / b, E = d ln f / d ln(load)
// ~ 10 (blocked512, k = 6) or ~ 5.6 (register64, k = 5) at 10 bits/key. Numbers
// (this model against the uniform one, 10 bits/key, relative excess):
//   blocks        blocked512 k=6   split256     sectorized512 k=8  register64 k=5
//   10^7          1.4e-5           1.6e-5       1.8e-5             7.7e-6
//   10^8          2.6e-4           3.0e-4       3.3e-4             1.5e-4
//   1.5 x 10^8    2.8e-3           3.3e-3       3.7e-3             1.6e-3
//   2^31          0                0            0                  0
//   2.9 x 10^9    0.97% -> 2.12%   1.26 -> 3.02 1.05 -> 2.70       1.78 -> 2.96
//   2^32          0                0            0                  0
// A relative excess e is resolved (3 sd) by 9 / (e^2 f) probes: about 5 x 10^12
// at 10^7 blocks, 10^10 at 10^8 (never measured), 2 x 10^8 at 1.5 x 10^8
// (register64 at 10^9 keys: 1.78780% here, 1.78444% uniform; measured 1.78774%
// and 1.78858%, bench/results/scale.md). Past 2^31
// blocks c = 1: the r blocks with 2 values carry the load of a 2^31-block filter,
// so the rate falls only linearly from the 2^31-block rate to the 2^32-block one
// as b grows, and the solver sizes such filters by it. split256 selects blocks
// the same way (Parquet's ((h >> 32) z) >> 32) and is modeled by the same term;
// split512 selects its 512-bit blocks so too, with sectorized512 k=8's column.
// The term applies from b = 3 (b = 1 and powers of two are uniform).
//
// Classic's probe index (g * m) >> 64 with g uniform on 2^64 values gives bits
// floor(2^64 / m) >= 2^24 values or one more (m <= 2^40), so a bit's
// probability is off by at most 2^-24 relative and the rate by ~ k^2 2^-48
// ~ 10^-12 relative at most: below double rounding of anything measurable, so
// it is not modeled. Two keys with equal 64-bit hashes share every probe: that
// term, 1 - (1 - 2^-64)^n, is included (it matters only when n nears 2^64 / 10^3).
//
// Totality: every (layout, blocks, k, n) in range, n up to 2^64 - 1, returns a
// finite rate in [0, 1] after at most 2 x 2 (40 sd + 50) + 2 evaluations of
// f_block (sd = sqrt(load) < 256). The mixture's walk is only taken below a
// mean load of 2^16 keys per block; from there on the limit form is the rate 1,
// exact to double precision: with load lambda >= 2^16 the load is below lambda/2
// with probability <= e^(-lambda/8) <= e^(-8192) (Chernoff), and at a load
// i >= 2^15 every layout has 1 - f_block(i) <= 16 (1 - 1/512)^i <= 16 e^-64
// ~ 3e-27 (a query bit is unset with probability at most (1 - 1/512)^i per
// probe, at most 16 probes), far below 2^-53. The walk itself needs only
// ratios of neighbouring binomial probabilities (no lgamma of n), so it is
// exact to double precision at any n. So `stats` on a header claiming 2^63 keys
// in 2 blocks answers 1 at once, and SolveForKeys(blocked512, 10^19, 0.01)
// refuses in milliseconds: the largest blocked512 filter (2^32 blocks) holds
// at most 221,720,634,432 keys at 1% (k = 6).
#ifndef BLOCKBLOOM_MODEL_H_
#define BLOCKBLOOM_MODEL_H_

#include <cstdint>
#include <vector>

#include <optional>

#include "blockbloom/layout.h"

namespace blockbloom {

// ---- Classic formulas ---------------------------------------------------------
// The textbook rate of k independent uniform probes: (1 - (1 - 1/m)^(kn))^k.
// ("Exact" for that textbook filter; the classic layout's own rate is
// ClassicDoubleHashingFpr below.)
double ClassicFprExact(double m, double n, double k);
// Approximate: (1 - e^(-kn/m))^k.
double ClassicFprApprox(double m, double n, double k);
// (m/n) ln 2 (real-valued).
double ClassicOptimalK(double m, double n);
// -n ln p / (ln 2)^2 (real-valued).
double ClassicBitsForFpr(double n, double p);

// The probes of the classic layout and of the garden's cell filters (double
// hashing, kernels/classic-inl.h): element j of the result is the chance that
// one key's k probes land on exactly j distinct bits of m (j = 0..k; element 0
// is 0). Derived in engine/src/classic_model.cc. Throws std::invalid_argument
// unless 1 <= k <= 32 and m >= 1. Thread-safe; the first call for a k
// tabulates it (all 32 k's take ~0.1 s on Zen 5), later calls cost O(k^3)
// (~3 us at k = 32).
std::vector<double> ClassicDistinctProbes(uint64_t m, uint32_t k);
// E[J] of that distribution: a given bit is among a key's probes with
// probability E[J]/m (EstimateDistinctKeys, the rate below). Same errors.
double ClassicMeanDistinctProbes(uint64_t m, uint32_t k);
// The rate of those probes after n keys: sum_j P(J = j) p^j, where a bit is set
// with probability p = 1 - (1 - E[J]/m)^n. PredictFpr's classic branch.
double ClassicDoubleHashingFpr(uint64_t m, uint32_t k, double n);

// ---- The exact model -------------------------------------------------------------
// The false-positive rate of a `layout` filter with `num_blocks` blocks (classic:
// bits) and k bits per key after n distinct keys. Throws std::invalid_argument
// for k or num_blocks out of the layout's range.
double PredictFpr(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n);
// The per-block rate given a block load of i keys (blocked layouts only).
double BlockFpr(Layout layout, uint32_t k, uint64_t i);
// What PredictFpr would say if every block were equally likely (1/b): the
// model before the block-selection term, for comparison (classic: PredictFpr).
double PredictFprUniformBlocks(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n);

// Block selection (see above): index = (h * b) >> w for h uniform on 2^w values
// gives values_per_block = floor(2^w / b) values to every block and one more to
// big_blocks = 2^w - b * floor(2^w / b) of them. Throws std::invalid_argument
// unless 1 <= w <= 32 and 1 <= b <= 2^w.
struct BlockClasses {
  uint64_t values_per_block;  // c
  uint64_t big_blocks;        // blocks with c + 1 values
};
BlockClasses CountBlockClasses(uint64_t num_blocks, unsigned select_bits);

namespace detail {
// PredictFpr of a blocked layout whose block index is (h * b) >> select_bits
// for a uniform select_bits-bit h; the kernels' is select_bits = 32, and
// PredictFpr(layout, b, k, n) == PredictBlockedFprSelecting(layout, b, k, n, 32).
// A smaller width lets a test enumerate every h (tests/model_test.cc).
double PredictBlockedFprSelecting(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n, unsigned select_bits);
}  // namespace detail

// ---- The solver --------------------------------------------------------------------
struct FilterParams {
  Layout layout;
  uint64_t num_blocks;  // classic: bits
  uint32_t k;
  uint64_t bits;        // num_blocks * block bits
  double fpr;           // the model's rate at the requested n
  uint64_t capacity = 0;  // BestCapacity only: the keys it holds at the rate
};

// The smallest filter (fewest bits; among equal sizes the lowest rate) whose
// model rate for n keys is at most fpr: every k the layout accepts is searched
// (doubling then bisection on the block count, the rate falling as blocks are
// added; with the block-selection term too, piecewise). Throws
// std::invalid_argument naming the parameter for n = 0 or fpr outside (0, 1),
// and, before any search, when n is beyond what the layout's largest filter
// holds at fpr: the message gives that filter and how many keys it holds
// ("expected keys = 10000000000000000000 is beyond what any blocked512 filter
// holds at false-positive rate 0.01: the largest blocked512 filter (4294967296
// blocks, 256 GiB) holds at most 221720634432 keys (k = 6)"). Bounded time for
// every input (milliseconds to a tenth of a second).
FilterParams SolveForKeys(Layout layout, uint64_t n, double fpr);
// The same search for one given k: the fewest blocks (classic: bits) whose
// model rate for n keys is at most fpr, or nullopt if none up to the layout's
// largest filter. k must be accepted by the layout, n >= 1, 0 < fpr < 1.
std::optional<uint64_t> BlocksForKeys(Layout layout, uint32_t k, uint64_t n, double fpr);
// The best k (lowest model rate) for a filter of `num_blocks` blocks holding n keys.
FilterParams SolveForSize(Layout layout, uint64_t num_blocks, uint64_t n);
// The largest n whose model rate at (num_blocks, k) is at most fpr (0 if none,
// 2^64 - 1 if every n is).
uint64_t Capacity(Layout layout, uint64_t num_blocks, uint32_t k, double fpr);
// The k with the largest capacity at (num_blocks, fpr): capacity holds that n,
// fpr the model's rate there (k = 0, capacity = 0 if no k reaches fpr).
FilterParams BestCapacity(Layout layout, uint64_t num_blocks, double fpr);

// ---- Textbook form, for comparison with the literature ---------------------------
// Putze, Sanders & Singler's blocked rate with Poisson(B / bits_per_key) loads and
// k distinct probe bits: sum_i Poisson(i) (1 - (1 - 1/B)^(ik))^k. Not what the
// kernel does (see above); 512, 6, 10.0 gives 0.9576%.
double TextbookBlockedFpr(uint32_t block_bits, uint32_t k, double bits_per_key);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_MODEL_H_
