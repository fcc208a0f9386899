// SPDX-License-Identifier: Apache-2.0
// The classic layout's rate with its real probes: double hashing puts a key's
// k probes on fewer than k distinct bits for some steps, and the query needs
// only the distinct ones set. The derivation is here, next to the code;
// model.h ("Classic") states the result and the measurements behind it.
//
// Probes (kernels/classic-inl.h): g_i = g_0 + i s (mod 2^64), bit floor(g_i m / 2^64).
// In units of bits, y_i = y_0 + i d (mod m) with y_0 = g_0 m / 2^64 and d = s m / 2^64,
// both uniform (y_0 on [0, m), d on [0, m); the 64-bit grid under them is
// 2^24 finer than a bit at m <= 2^40, the classic layout's limit, and 2^12 at
// the garden's 2^52 cells), and probe i sets bit floor(y_i). Let J
// be the number of distinct bits among the k probes.
//
// Windows. Probes i < i' can share a bit only if ||(i' - i) d||_m < 1 (distance
// to the nearest multiple of m), that is, d lies within 1/D of a multiple
// a m / D of m / D, D = i' - i in [1, k). Reduced to lowest terms, the
// windows are d in (a m/D - 1/D, a m/D + 1/D), gcd(a, D) = 1, a in [0, D) (D = 1:
// a = 0, the window around 0 = m); each has probability 2 / (D m). Two windows
// of different fractions are disjoint when m >= D + D' (their centres are at
// least m / (D D') apart), so for m >= 2k - 3 every d lies in at most one, and
// outside all of them J = k.
//
// Inside the window of a/D, d = a m/D + e with |e| < 1/D. Probe i = qD + r
// (column r in [0, D)) sits at y_0 + r (a m/D + e) + q D e: the D columns are
// m/D apart (different columns never share a bit, or d would lie in a second
// window), and column r is a chain of K_r = floor((k - 1 - r)/D) + 1 probes
// with step t = D|e| < 1. A chain starting at fraction phi with steps of t < 1
// covers 1 + floor(phi + (K - 1) t) bits (it crosses that many integers
// plus one; by the reflection y -> -y, e < 0 is the window of (D - a)/D with
// e > 0, so both signs are the e > 0 case counted twice). With c = a m mod D and
// phi_0 = frac(y_0), column r starts at fraction phi_r = frac(phi_0 + r (c + t)/D),
// so
//   J = sum_r [1 + floor(phi_r + (K_r - 1) t)],
// t uniform on [0, 1) and phi_0 uniform on [0, 1). The columns share phi_0:
// they are not independent (treating them so is off by 20-36% on single
// values of J at m = 20,000, k = 16). For a given t each column adds
// floor((K_r - 1) t) + 1 plus one more on an arc of phi_0 of length
// frac((K_r - 1) t); a sweep over the
// arcs gives J's distribution over phi_0 exactly, and t is integrated by the
// midpoint rule (StepsFor cells). The window's distribution depends on m only
// through c, so it is tabulated once per k, for every (D, c).
//
// Then E[k - J] = (1/m) sum_{D<k} phi(D) (k - D)/D (Euler's phi: E[J | t] =
// D + (k - D) t in every window), which the tables reproduce (model_test).
//
// Small filters (m < 2k - 3, at most 60 bits, or m = 1) have overlapping
// windows; there J's distribution over phi_0 is found exactly for each d on a
// midpoint grid of kSmallStepsPerBit cells per bit (J is constant between the
// points where some phi_0 + i d crosses an integer). That grid is the one
// approximation here that shows: against 1024 cells per bit the rate differs
// by up to 4e-3 relative (k = 32, m = 57, one key; k = 8..32 measured), a
// price for filters this small that keeps one size's distributions for all k
// at ~40 ms (m = 30, Zen 5).
//
// The rate. A key sets J distinct uniform bits, so a bit stays 0 after n keys
// with probability (1 - E[J]/m)^n exactly; with p = 1 - that, the rate is
// sum_j P(J = j) p^j (the bits of one query taken as independent, as the
// textbook (1 - (1 - 1/m)^(kn))^k also takes them, which is this with J = k
// and k n independent throws).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "blockbloom/model.h"
#include "engine/src/errors.h"

namespace blockbloom {
namespace {

constexpr uint32_t kMaxK = LayoutMaxK(Layout::kClassic);  // 32
// Midpoint cells over t for the windows of denominator D. The integrand is
// piecewise linear in t, so the rule is exact between its kinks; at D = 1 they
// are at t = j/(k - 1), on cell edges with 64 (k - 1) cells, so that row is
// exact. The rows that weigh most (small D: the most probes on one bit, p^-N
// largest) get the most cells. Against 8192 cells for every D (256 (k - 1) at
// D = 1), the rate differs by at most 2.5e-5 relative over even k = 2..32,
// m = 2k..10^6 and set-bit fractions p = 0.2..0.95, and all 32 k's tables take
// ~100 ms (Zen 5) where 512 cells for every D took 345 ms and erred by 3.6e-4.
int StepsFor(uint32_t d, uint32_t k) {
  if (d == 1) return 64 * static_cast<int>(k - 1);
  if (d < 3) return 4096;
  if (d < 6) return 1024;
  if (d < 10) return 256;
  return 64;
}
constexpr int kSmallStepsPerBit = 64;

// Rows (D, c), D in [1, k), c in [0, D), at index D (D - 1) / 2 + c; each row is
// P(J = j | the window), j = 0..k.
using Tables = std::vector<std::vector<double>>;

Tables BuildTables(uint32_t k) {
  Tables rows(k * (k - 1) / 2, std::vector<double>(k + 1, 0.0));
  std::vector<std::pair<double, int>> ends;
  ends.reserve(4 * k);
  for (uint32_t d = 1; d < k; ++d) {
    const int steps = StepsFor(d, k);
    for (uint32_t c = 0; c < d; ++c) {
      std::vector<double>& row = rows[d * (d - 1) / 2 + c];
      for (int step = 0; step < steps; ++step) {
        const double t = (step + 0.5) / steps;
        const double theta = (c + t) / d;
        uint32_t base = 0;
        ends.clear();
        for (uint32_t r = 0; r < d; ++r) {
          const uint32_t chain = (k - 1 - r) / d + 1;
          const double x = (chain - 1) * t;
          const double whole = std::floor(x);
          const double arc = x - whole;
          base += 1 + static_cast<uint32_t>(whole);
          if (arc <= 0.0) continue;
          // One more bit when phi_r >= 1 - arc: phi_0 in [s, s + arc) mod 1.
          double s = 1.0 - arc - r * theta;
          s -= std::floor(s);
          const double e = s + arc;
          if (e <= 1.0) {
            ends.push_back({s, 1});
            ends.push_back({e, -1});
          } else {
            ends.push_back({0.0, 1});
            ends.push_back({e - 1.0, -1});
            ends.push_back({s, 1});
            ends.push_back({1.0, -1});
          }
        }
        std::sort(ends.begin(), ends.end());
        int cover = 0;
        double prev = 0.0;
        for (const auto& [x, delta] : ends) {
          row[base + cover] += x - prev;
          prev = x;
          cover += delta;
        }
        row[base + cover] += 1.0 - prev;
      }
      for (double& v : row) v /= steps;
    }
  }
  return rows;
}

const Tables& TablesFor(uint32_t k) {
  static std::array<std::once_flag, kMaxK + 1> once;
  static std::array<Tables, kMaxK + 1> tables;
  std::call_once(once[k], [k] { tables[k] = BuildTables(k); });
  return tables[k];
}

// m < 2k - 3 or m = 1 (m <= 60): exact over phi_0 for each d, midpoint over d.
std::vector<double> SmallFilterDistribution(uint64_t m, uint32_t k) {
  std::vector<double> p(k + 1, 0.0);
  const int cells = static_cast<int>(m) * kSmallStepsPerBit;
  std::vector<double> cuts;
  cuts.reserve(k + 2);
  for (int cell = 0; cell < cells; ++cell) {
    const double d = (cell + 0.5) / kSmallStepsPerBit;
    cuts.assign({0.0, 1.0});
    for (uint32_t i = 1; i < k; ++i) {
      const double x = -static_cast<double>(i) * d;
      cuts.push_back(x - std::floor(x));
    }
    std::sort(cuts.begin(), cuts.end());
    for (size_t j = 1; j < cuts.size(); ++j) {
      const double width = cuts[j] - cuts[j - 1];
      if (width <= 0.0) continue;
      const double phi = 0.5 * (cuts[j] + cuts[j - 1]);
      uint64_t seen = 0;  // m <= 60 bits
      for (uint32_t i = 0; i < k; ++i) {
        const double y = phi + i * d;
        seen |= uint64_t{1} << (static_cast<uint64_t>(std::floor(y)) % m);
      }
      p[std::popcount(seen)] += width;
    }
  }
  const double total = std::accumulate(p.begin(), p.end(), 0.0);  // cells, up to rounding
  for (double& v : p) v /= total;
  return p;
}

// The small filters' distributions, each computed once (up to ~4 ms at m = 60,
// k = 32; Capacity bisects over n at one m).
constexpr uint64_t kMaxSmallBits = 2 * kMaxK - 4;
const std::vector<double>& SmallFilterDistributionFor(uint64_t m, uint32_t k) {
  static std::array<std::array<std::once_flag, kMaxK + 1>, kMaxSmallBits + 1> once;
  static std::array<std::array<std::vector<double>, kMaxK + 1>, kMaxSmallBits + 1> dists;
  std::call_once(once[m][k], [m, k] { dists[m][k] = SmallFilterDistribution(m, k); });
  return dists[m][k];
}

}  // namespace

std::vector<double> ClassicDistinctProbes(uint64_t m, uint32_t k) {
  if (k < 1 || k > kMaxK)
    detail::Invalid("k = " + std::to_string(k) + " is out of range for double hashing: expected 1.." +
                    std::to_string(kMaxK));
  if (m < 1) detail::Invalid("bits = 0 is out of range for double hashing: expected at least 1");
  if (m < 2 || m + 3 < 2 * uint64_t{k}) return SmallFilterDistributionFor(m, k);  // m <= kMaxSmallBits
  std::vector<double> p(k + 1, 0.0);
  if (k == 1) {
    p[1] = 1.0;
    return p;
  }
  const Tables& rows = TablesFor(k);
  double in_windows = 0.0;
  for (uint32_t d = 1; d < k; ++d) {
    const double weight = 2.0 / (d * static_cast<double>(m));
    for (uint32_t a = 0; a < d; ++a) {
      if (std::gcd(a, d) != 1) continue;  // d = 1: a = 0 (gcd(0, 1) = 1)
      const std::vector<double>& row = rows[d * (d - 1) / 2 + static_cast<uint32_t>(a * (m % d) % d)];
      for (uint32_t j = 0; j <= k; ++j) p[j] += weight * row[j];
      in_windows += weight;
    }
  }
  p[k] += 1.0 - in_windows;
  return p;
}

namespace {
double Mean(const std::vector<double>& dist) {
  double mean = 0.0;
  for (size_t j = 1; j < dist.size(); ++j) mean += static_cast<double>(j) * dist[j];
  return mean;
}
}  // namespace

double ClassicMeanDistinctProbes(uint64_t m, uint32_t k) { return Mean(ClassicDistinctProbes(m, k)); }

double ClassicDoubleHashingFpr(uint64_t m, uint32_t k, double n) {
  const std::vector<double> dist = ClassicDistinctProbes(m, k);
  if (!(n > 0.0)) return 0.0;
  const double mean = Mean(dist);
  const double set = -std::expm1(n * std::log1p(-std::min(1.0, mean / static_cast<double>(m))));
  if (set >= 1.0) return 1.0;  // every bit set: the sum below is 1 up to rounding
  double f = 0.0;
  for (uint32_t j = 1; j <= k; ++j) f += dist[j] * std::pow(set, j);
  return std::clamp(f, 0.0, 1.0);
}

}  // namespace blockbloom
