// SPDX-License-Identifier: Apache-2.0
// Forms of one piece of work timed side by side on a noisy machine, round by
// round: each round draws its inputs, then runs every form once in an order
// shuffled afresh, so that a change of the host's load or clock hits the forms
// alike; what a tool reports are medians over the rounds, of each form's time
// and of each round's ratio of two forms. bench/prefetch_ab.cc and
// bench/peer_ab.cc; header-only, no Google Benchmark.
#ifndef BLOCKBLOOM_BENCH_AB_ROUNDS_H_
#define BLOCKBLOOM_BENCH_AB_ROUNDS_H_

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

namespace blockbloom::bench {

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The median over the rounds of a[r] / b[r] (times of two forms in one round).
inline double MedianRatio(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> r(a.size());
  for (size_t i = 0; i < a.size(); ++i) r[i] = a[i] / b[i];
  return Median(std::move(r));
}

// `rounds` rounds of kForms forms: new_round() draws the round's inputs, then
// for each form in a shuffled order prepare(form) (not timed) and run(form)
// (timed). Returns ns[form][round]: run(form)'s time divided by `units` (the
// keys it handled, say).
template <size_t kForms, class NewRound, class Prepare, class Run>
std::array<std::vector<double>, kForms> TimeRounds(long rounds, std::mt19937_64& rng, double units,
                                                   NewRound&& new_round, Prepare&& prepare, Run&& run) {
  std::array<std::vector<double>, kForms> ns;
  std::array<size_t, kForms> order;
  std::iota(order.begin(), order.end(), size_t{0});
  for (long r = 0; r < rounds; ++r) {
    new_round();
    std::shuffle(order.begin(), order.end(), rng);
    for (const size_t form : order) {
      prepare(form);
      const auto t0 = std::chrono::steady_clock::now();
      run(form);
      const auto t1 = std::chrono::steady_clock::now();
      ns[form].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / units);
    }
  }
  return ns;
}

}  // namespace blockbloom::bench

#endif  // BLOCKBLOOM_BENCH_AB_ROUNDS_H_
