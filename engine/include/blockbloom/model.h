// The exact false-positive model of every layout, and the solver built on it.
//
// Notation: m bits, n keys inserted, k bits per key, B bits per block,
// b = m / B blocks.
//
// Classic (unblocked): a given bit is still 0 after n inserts with probability
// (1 - 1/m)^(kn), so f = (1 - (1 - 1/m)^(kn))^k ~ (1 - e^(-kn/m))^k; optimal
// k = (m/n) ln 2, giving f ~ 0.6185^(m/n); bits for a rate p: m = -n ln p / (ln 2)^2.
// Example: m/n = 8, k = 6 -> 0.0216; m/n = 16, k = 11 -> 0.000458.
//
// Blocked (one block per key; Putze, Sanders & Singler 2007): the block a
// query lands in holds i keys with probability Binomial(i; n, 1/b) (computed
// here in log space by walking out from the mode, so it is exact to double
// precision up to n = 10^10 and beyond), and the rate is the mixture
//   f = sum_i Binom(i; n, 1/b) * f_block(i).
// Because loads vary, a blocked filter is worse than the classic one at the
// same m/n: 10 bits/key, k = 6, B = 512 gives 0.9665% here, where the classic
// formula says 0.819%. Published figures for that point: RocksDB's
// "theoretical" 0.9535% is its two-point approximation (the standard formula
// at loads mean +- 1 sd, averaged; 0.9533% computed), RocksDB's measured
// 0.957% is the textbook mixture of (1 - (1 - 1/B)^(ik))^k (0.9576%,
// TextbookBlockedFpr), which assumes a key's k probes are distinct. The
// kernel's probes may coincide, and it measures 0.9669% +- 0.0007% (4 x 10^8
// probes, tests/fpr_test.cc and `blockbloom verify` hold it to this model).
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
//    f_block(i) = (1 - (1 - k/512)^i)^k.
//  * hash width: the block comes from the high 32 bits of the 64-bit hash and
//    the probe bits from the low 32, so an absent key whose low 32 bits equal one
//    of the i keys' in its block collides on every bit:
//    f_block(i) <- f_block(i) + (1 - f_block(i)) (1 - (1 - 2^-32)^i).
//    (A filter that took both from one 32-bit hash would instead gain
//    1 - (1 - 2^-32)^n overall, which dominates past ~40M keys at 10 bits/key.)
#ifndef BLOCKBLOOM_MODEL_H_
#define BLOCKBLOOM_MODEL_H_

#include <cstdint>

#include "blockbloom/layout.h"

namespace blockbloom {

// ---- Classic formulas ---------------------------------------------------------
// Exact: (1 - (1 - 1/m)^(kn))^k.
double ClassicFprExact(double m, double n, double k);
// Approximate: (1 - e^(-kn/m))^k.
double ClassicFprApprox(double m, double n, double k);
// (m/n) ln 2 (real-valued).
double ClassicOptimalK(double m, double n);
// -n ln p / (ln 2)^2 (real-valued).
double ClassicBitsForFpr(double n, double p);

// ---- The exact model -------------------------------------------------------------
// The false-positive rate of a `layout` filter with `num_blocks` blocks (classic:
// bits) and k bits per key after n distinct keys. Throws std::invalid_argument
// for k or num_blocks out of the layout's range.
double PredictFpr(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t n);
// The per-block rate given a block load of i keys (blocked layouts only).
double BlockFpr(Layout layout, uint32_t k, uint64_t i);

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
// added). Throws std::invalid_argument naming the parameter for n = 0 or fpr
// outside (0, 1), or if no filter within the layout's limits reaches fpr.
FilterParams SolveForKeys(Layout layout, uint64_t n, double fpr);
// The best k (lowest model rate) for a filter of `num_blocks` blocks holding n keys.
FilterParams SolveForSize(Layout layout, uint64_t num_blocks, uint64_t n);
// The largest n whose model rate at (num_blocks, k) is at most fpr (0 if none).
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
