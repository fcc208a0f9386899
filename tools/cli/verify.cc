// SPDX-License-Identifier: Apache-2.0
// `blockbloom verify`: builds real filters over a grid and holds each measured
// false-positive rate against the exact model.
//
//   verify [--layout L[,L...]] [--keys N] [--probes N] [--bits-per-key LIST]
//          [--streams LIST] [--confidence C] [--format text|csv]
//
// Grid (defaults): every layout; bits per key 4, 8, ..., 24; k = the model's
// best k for that size and its neighbours; n = 10^3, 10^5, 10^7 (or --keys);
// integer (random) and string (urls) keys. Each point inserts n keys into the
// filter and an ExactSet, probes absent keys (sized for a 10% half-width at
// 99.9%, between 10^5 and 2 x 10^7, or --probes), and counts false positives
// against the ExactSet (measure.h). Small filters spread the probes over
// independent replicas (SuggestedReplicas).
//
// Each point prints measured, predicted, the model's binomial acceptance
// interval at --confidence (default 99.9%) and PASS/FAIL. With M points, about
// M (1 - confidence) fail by chance, so the exit status is decided at the
// Bonferroni level 1 - (1 - confidence) / M: 0 if every point is inside that
// wider interval, 1 otherwise. Progress goes to stderr.
//
//   verify --streamed [--layout L[,L...]] --keys N [--bits-per-key LIST | --blocks B]
//          [--k K] [--probes N] [--confidence C] [--format text|csv|markdown]
//
// Streamed mode (measure.h, MeasureFprStreamed): no exact set, so it reaches
// 10^9 keys and whatever filter the machine's memory holds (refused up front,
// with the sizes, if the filter exceeds the memory available). Keys are
// SplitMix64(i), probes SplitMix64 of a disjoint index range (absent by
// construction). One filter per point: layouts x bits per key (default 10),
// k = the model's best (or --k), blocks = n x bits/key / block bits (or
// --blocks). Probes default to what puts the 99.99% (--confidence) acceptance
// interval within +-5% of the model's rate: 6.0e5 probes at 1%, 6.0e9 at 1e-6,
// capped at 10^10 (about 2-5 minutes of queries on one core), with a note when
// the cap widens the interval. Each point prints measured, model, the uniform-
// block model (model.h, PredictFprUniformBlocks), z = (measured - model) / sd
// and PASS/FAIL; the exit status is decided at the Bonferroni level as above.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "blockbloom/filter.h"
#include "blockbloom/layout.h"
#include "blockbloom/verify/measure.h"
#include "blockbloom/model.h"
#include "blockbloom/verify/stats.h"
#include "blockbloom/targets.h"
#include "tools/cli/args.h"
#include "tools/cli/commands.h"

namespace blockbloom::cli {
namespace {

// One point's verdict: at its own confidence, at the family-wise level, and
// its acceptance interval as rates (exact-set and streamed measurements alike).
struct PointVerdict {
  bool pass, pass_family;
  double lo, hi;
  const char* text;
};
template <typename M>
PointVerdict Judge(const M& m, double family_confidence) {
  const FprCheck& c = m.check;
  const CountInterval wide = BinomialAcceptance(c.trials, c.predicted, family_confidence);
  PointVerdict v;
  v.pass = m.pass();
  v.pass_family = m.false_negatives == 0 && c.hits >= wide.lo && c.hits <= wide.hi;
  v.lo = static_cast<double>(c.accept.lo) / static_cast<double>(c.trials);
  v.hi = static_cast<double>(c.accept.hi) / static_cast<double>(c.trials);
  v.text = m.false_negatives ? "FAIL (false negatives)"
           : v.pass          ? "PASS"
           : v.pass_family   ? "FAIL (within the family-wise interval)"
                             : "FAIL";
  return v;
}


struct GridPoint {
  Layout layout;
  uint64_t n;
  double bits_per_key;
  uint32_t k;
  KeyStream stream;
};

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

uint64_t BlocksFor(Layout l, uint64_t n, double bits_per_key) {
  const double blocks = bits_per_key * static_cast<double>(n) / LayoutBlockBits(l);
  return std::max<uint64_t>(1, static_cast<uint64_t>(blocks + 0.5));
}

// Probes for a 10% half-width at 99.9%, within [10^5, 2 x 10^7].
constexpr double kDefaultRelativeHalfWidth = 0.1;
constexpr double kProbeSizingConfidence = 0.999;
constexpr uint64_t kMinProbes = 100'000;
constexpr uint64_t kMaxProbes = 20'000'000;
// Key families: each point gets 2^14 of them for its replicas; MeasureFpr takes
// families below 2^24, so up to 1024 points.
constexpr unsigned kFamilyBitsPerPoint = 14;
constexpr uint64_t kMaxReplicas = (uint64_t{1} << kFamilyBitsPerPoint) - 1;
constexpr size_t kMaxPoints = size_t{1} << (24 - kFamilyBitsPerPoint);

// Streamed mode: +-5% at 99.99% by default, at most 10^10 probes.
constexpr double kStreamedRelativeHalfWidth = 0.05;
constexpr uint64_t kMaxStreamedProbes = 10'000'000'000;

void StreamProgress(const char* stage, uint64_t done, uint64_t total) {
  std::fprintf(stderr, "verify:   %s %llu / %llu\n", stage, static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total));
}

int VerifyStreamed(const Args& args, const std::vector<Layout>& layouts, double confidence, const std::string& format) {
  if (!args.Has("keys")) throw UsageError("--streamed needs --keys N (the keys to insert, up to 2^39)");
  const uint64_t n = args.U64("keys", 0, 1, uint64_t{1} << 39);
  const std::optional<uint64_t> fixed_probes = args.OptU64("probes", 1, uint64_t{1} << 39);
  const std::optional<uint64_t> fixed_blocks = args.OptU64("blocks", 1, uint64_t{1} << 40);
  const std::optional<uint64_t> fixed_k = args.OptU64("k", 1, 32);
  if (fixed_blocks && args.Has("bits-per-key")) throw UsageError("--blocks and --bits-per-key exclude each other");
  std::vector<double> bpks;
  for (const std::string& b : SplitList(args.GetOr("bits-per-key", "10"))) {
    const double v = ParseDouble(b, "bits-per-key");
    if (!(v > 0 && v <= 1000)) throw UsageError("--bits-per-key = " + b + " is out of range: expected 0 < b <= 1000");
    bpks.push_back(v);
  }
  if (bpks.empty()) throw UsageError("--bits-per-key is empty: expected a comma-separated list such as 8,10,16");
  if (fixed_blocks) bpks.assign(1, 0.0);

  struct Point {
    Layout layout;
    uint64_t blocks;
    uint32_t k;
  };
  std::vector<Point> points;
  for (Layout l : layouts) {
    for (double bpk : bpks) {
      const uint64_t blocks = fixed_blocks ? *fixed_blocks : BlocksFor(l, n, bpk);
      const uint32_t k = fixed_k ? static_cast<uint32_t>(*fixed_k) : SolveForSize(l, blocks, n).k;
      if (!LayoutAcceptsK(l, k))
        throw UsageError("--k = " + std::to_string(k) + " is out of range for layout " + std::string(LayoutName(l)));
      points.push_back({l, blocks, k});
    }
  }
  const double family_confidence = 1.0 - (1.0 - confidence) / static_cast<double>(points.size());
  const bool csv = format == "csv", md = format == "markdown";
  if (csv) {
    std::printf("layout,k,n,blocks,bits_per_key,probes,false_positives,measured,model,uniform_model,z,accept_lo,accept_hi,pass\n");
  } else if (md) {
    std::printf("| layout | k | n | blocks | bits/key | probes | measured | model | uniform-block model | z | %.4g%% interval | result |\n",
                confidence * 100);
    std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  } else {
    std::printf("blockbloom verify --streamed: %zu points, n = %llu, target %s, %.4g%% acceptance intervals\n",
                points.size(), static_cast<unsigned long long>(n), std::string(ActiveTarget()).c_str(), confidence * 100);
  }
  std::fflush(stdout);
  size_t failed = 0, failed_family = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& pt = points[i];
    if (pt.blocks > Traits(pt.layout).max_blocks)
      throw UsageError("blocks = " + std::to_string(pt.blocks) + " is out of range for layout " +
                       std::string(LayoutName(pt.layout)));
    const double predicted = PredictFpr(pt.layout, pt.blocks, pt.k, n);
    const double uniform = PredictFprUniformBlocks(pt.layout, pt.blocks, pt.k, n);
    uint64_t probes = 0;
    if (fixed_probes) {
      probes = *fixed_probes;
    } else {
      // N = (z / r)^2 (1 - p) / p (stats.h), in double: it is unbounded as p -> 0.
      const double z = NormalQuantile(0.5 + confidence / 2);
      const double zr = z / kStreamedRelativeHalfWidth;
      const double needed = predicted > 0.0 ? zr * zr * (1.0 - predicted) / predicted : HUGE_VAL;
      probes = needed >= static_cast<double>(kMaxStreamedProbes) ? kMaxStreamedProbes
                                                                   : std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(needed)));
      if (needed > static_cast<double>(kMaxStreamedProbes))
        std::fprintf(stderr,
                     "verify: %s: a rate of %.3g needs %.3g probes for a +-5%% interval at %.4g%%; capped at %.3g "
                     "(interval about +-%.1f%%); pass --probes to choose\n",
                     std::string(LayoutName(pt.layout)).c_str(), predicted, needed, confidence * 100,
                     static_cast<double>(kMaxStreamedProbes),
                     100 * kStreamedRelativeHalfWidth * std::sqrt(needed / static_cast<double>(kMaxStreamedProbes)));
    }
    if (probes >= (uint64_t{1} << 40) - n) throw UsageError("--keys + probes must be below 2^40");
    // One filter: its realized rate's scatter over key sets (measure.h) is
    // outside the binomial interval; say so when it is no longer small.
    if (predicted > 0.0 && predicted < 1.0) {
      const double scatter = static_cast<double>(probes) * RealizedRateVariance(pt.layout, pt.blocks, pt.k, n) /
                             (predicted * (1.0 - predicted));
      if (scatter > 0.1)
        std::fprintf(stderr,
                     "verify: %s: one filter's rate scatters over key sets by %.2g of the interval's binomial "
                     "variance at %llu probes (RealizedRateVariance), so the interval holds less often than %.4g%%; "
                     "more keys, or fewer probes (--probes), make it small\n",
                     std::string(LayoutName(pt.layout)).c_str(), scatter, static_cast<unsigned long long>(probes),
                     confidence * 100);
    }
    // Memory: refuse up front what the machine cannot hold.
    const uint64_t bytes = LayoutPayloadBytes(pt.layout, pt.blocks);
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && bytes > static_cast<uint64_t>(pages) * static_cast<uint64_t>(page))
      throw UsageError("a " + std::string(LayoutName(pt.layout)) + " filter of " + std::to_string(pt.blocks) +
                       " blocks needs " + std::to_string(bytes >> 20) + " MiB; this machine has " +
                       std::to_string((static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)) >> 20) +
                       " MiB available");
    std::fprintf(stderr, "verify: [%zu/%zu] %s k=%u n=%llu blocks=%llu (%llu MiB) probes=%llu  %.0fs\n", i + 1,
                 points.size(), std::string(LayoutName(pt.layout)).c_str(), pt.k, static_cast<unsigned long long>(n),
                 static_cast<unsigned long long>(pt.blocks), static_cast<unsigned long long>(bytes >> 20),
                 static_cast<unsigned long long>(probes),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    Filter filter = Filter::WithBlocks(pt.layout, pt.blocks, pt.k);
    StreamedSpec spec;
    spec.keys = n;
    spec.probes = probes;
    spec.family = i;
    spec.confidence = confidence;
    spec.progress = &StreamProgress;
    const StreamedMeasurement m = MeasureFprStreamed(filter, spec);
    const FprCheck& c = m.check;
    const PointVerdict v = Judge(m, family_confidence);
    failed += !v.pass;
    failed_family += !v.pass_family;
    const double lo = v.lo, hi = v.hi;
    const char* verdict = v.text;
    const double bpk = static_cast<double>(filter.bit_count()) / static_cast<double>(n);
    if (csv) {
      std::printf("%s,%u,%llu,%llu,%.4g,%llu,%llu,%.8g,%.8g,%.8g,%.2f,%.8g,%.8g,%d\n", std::string(LayoutName(pt.layout)).c_str(),
                  pt.k, static_cast<unsigned long long>(n), static_cast<unsigned long long>(pt.blocks), bpk,
                  static_cast<unsigned long long>(c.trials), static_cast<unsigned long long>(c.hits), c.rate(), c.predicted,
                  uniform, m.z, lo, hi, v.pass ? 1 : 0);
    } else if (md) {
      std::printf("| %s | %u | %.4g | %llu | %.4g | %.4g | %.6g%% | %.6g%% | %.6g%% | %.2f | [%.6g%%, %.6g%%] | %s |\n",
                  std::string(LayoutName(pt.layout)).c_str(), pt.k, static_cast<double>(n),
                  static_cast<unsigned long long>(pt.blocks), bpk, static_cast<double>(c.trials), c.rate() * 100,
                  c.predicted * 100, uniform * 100, m.z, lo * 100, hi * 100, verdict);
    } else {
      std::printf("%-13s k=%-2u n=%-11llu blocks=%-11llu %5.4g bits/key %.3g probes: measured %.5f%% model %.5f%% "
                  "(uniform blocks %.5f%%) z = %+.2f [%.5f%%, %.5f%%] %s\n",
                  std::string(LayoutName(pt.layout)).c_str(), pt.k, static_cast<unsigned long long>(n),
                  static_cast<unsigned long long>(pt.blocks), bpk, static_cast<double>(c.trials), c.rate() * 100,
                  c.predicted * 100, uniform * 100, m.z, lo * 100, hi * 100, verdict);
    }
    std::fflush(stdout);
  }
  std::fprintf(stderr, "verify: %zu of %zu points inside the %.4g%% interval; %zu outside the family-wise %.6g%% interval (%.0fs)\n",
               points.size() - failed, points.size(), confidence * 100, failed_family, family_confidence * 100,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return failed_family == 0 ? 0 : 1;
}

}  // namespace

int Verify(int argc, char** argv) {
  Args args(argc, argv, {"layout", "keys", "probes", "bits-per-key", "streams", "confidence", "format", "blocks", "k"},
            {"streamed"});
  args.ExpectPositionals(0, 0, "no positional arguments");

  std::vector<Layout> layouts;
  for (const std::string& name : SplitList(args.GetOr("layout", ""))) {
    const std::optional<Layout> l = LayoutOption(name);
    layouts.push_back(*l);
  }
  if (layouts.empty()) layouts.assign(std::begin(kAllLayouts), std::end(kAllLayouts));

  if (args.Has("streamed")) {
    const double confidence = args.Double("confidence", 0.9999);
    if (!(confidence > 0.5 && confidence < 1.0))
      throw UsageError("--confidence = " + args.GetOr("confidence", "") + " is out of range: expected 0.5 < C < 1");
    const std::string format = args.GetOr("format", "text");
    if (format != "text" && format != "csv" && format != "markdown")
      throw UsageError("--format = '" + format + "' is not one of: text, csv, markdown");
    if (args.Has("streams")) throw UsageError("--streams does not apply to --streamed (keys are SplitMix64(i))");
    return VerifyStreamed(args, layouts, confidence, format);
  }
  if (args.Has("blocks") || args.Has("k")) throw UsageError("--blocks and --k need --streamed");

  std::vector<uint64_t> ns = {1'000, 100'000, 10'000'000};
  if (args.Has("keys")) ns = {args.U64("keys", 0, 1, uint64_t{1} << 32)};
  const std::optional<uint64_t> fixed_probes = args.OptU64("probes", 1, uint64_t{1} << 36);

  std::vector<double> bpks;
  for (const std::string& b : SplitList(args.GetOr("bits-per-key", "4,8,12,16,20,24"))) {
    const double v = ParseDouble(b, "bits-per-key");
    if (!(v >= 1 && v <= 1000)) throw UsageError("--bits-per-key = " + b + " is out of range: expected 1..1000");
    bpks.push_back(v);
  }
  if (bpks.empty()) throw UsageError("--bits-per-key is empty: expected a comma-separated list such as 4,8,16");

  std::vector<KeyStream> streams;
  for (const std::string& s : SplitList(args.GetOr("streams", "random,urls"))) {
    const auto ks = ParseKeyStream(s);
    if (!ks) throw UsageError("--streams = '" + s + "' is not a key stream (expected random, sequential or urls)");
    streams.push_back(*ks);
  }
  if (streams.empty()) throw UsageError("--streams is empty: expected a comma-separated list such as random,urls");

  const double confidence = args.Double("confidence", 0.999);
  if (!(confidence > 0.5 && confidence < 1.0))
    throw UsageError("--confidence = " + args.GetOr("confidence", "") + " is out of range: expected 0.5 < C < 1");
  const std::string format = args.GetOr("format", "text");
  if (format != "text" && format != "csv") throw UsageError("--format = '" + format + "' is not one of: text, csv");

  // The grid: k = the best k at that size, and its accepted neighbours.
  std::vector<GridPoint> grid;
  for (Layout l : layouts) {
    for (uint64_t n : ns) {
      for (double bpk : bpks) {
        const uint32_t best = SolveForSize(l, BlocksFor(l, n, bpk), n).k;
        for (uint32_t k : {best - 1, best, best + 1}) {
          if (k == 0 || !LayoutAcceptsK(l, k)) continue;
          for (KeyStream s : streams) grid.push_back({l, n, bpk, k, s});
        }
      }
    }
  }
  if (grid.size() > kMaxPoints)
    throw UsageError("the grid has " + std::to_string(grid.size()) + " points: expected at most " +
                     std::to_string(kMaxPoints) + " (narrow --layout, --bits-per-key or --streams)");
  // The family-wise level that decides the exit status (Bonferroni).
  const double family_confidence = 1.0 - (1.0 - confidence) / static_cast<double>(grid.size());

  const bool csv = format == "csv";
  if (csv) {
    std::printf("layout,keys,n,bits_per_key,k,replicas,probes,false_positives,measured,predicted,accept_lo,accept_hi,pass\n");
  } else {
    std::printf("blockbloom verify: %zu points, target %s, %.4g%% acceptance intervals of the exact model\n", grid.size(),
                std::string(ActiveTarget()).c_str(), confidence * 100);
    std::printf("%-13s %-10s %9s %6s %3s %10s %11s %11s %25s %s\n", "layout", "keys", "n", "bits/k", "k", "probes",
                "measured", "predicted", "accepted range", "result");
  }
  size_t failed = 0, failed_family = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < grid.size(); ++i) {
    const GridPoint& g = grid[i];
    Filter filter = Filter::WithBlocks(g.layout, BlocksFor(g.layout, g.n, g.bits_per_key), g.k);
    const double predicted = PredictFpr(g.layout, filter.num_blocks(), g.k, g.n);
    MeasureSpec spec;
    spec.stream = g.stream;
    spec.family = i << kFamilyBitsPerPoint;  // disjoint key families per point (replicas use family + r)
    spec.inserts = g.n;
    spec.probes = fixed_probes ? *fixed_probes
                               : std::clamp<uint64_t>(ProbesForRelativeHalfWidth(predicted, kDefaultRelativeHalfWidth,
                                                                                 kProbeSizingConfidence),
                                                      kMinProbes, kMaxProbes);
    spec.replicas = std::min<uint64_t>({SuggestedReplicas(g.layout, filter.num_blocks(), g.k, g.n, spec.probes), spec.probes,
                                        kMaxReplicas});
    spec.confidence = confidence;
    std::fprintf(stderr, "verify: [%zu/%zu] %s %s n=%llu %.0f bits/key k=%u (%llu probes over %llu filters)  %.0fs\n",
                 i + 1, grid.size(), std::string(LayoutName(g.layout)).c_str(), std::string(KeyStreamName(g.stream)).c_str(),
                 static_cast<unsigned long long>(g.n), g.bits_per_key, g.k, static_cast<unsigned long long>(spec.probes),
                 static_cast<unsigned long long>(spec.replicas),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    const Measurement m = MeasureFpr(filter, spec);
    const FprCheck& c = m.check;
    const PointVerdict v = Judge(m, family_confidence);
    failed += !v.pass;
    failed_family += !v.pass_family;
    const double lo = v.lo, hi = v.hi;
    const char* verdict = v.text;
    if (csv) {
      std::printf("%s,%s,%llu,%g,%u,%llu,%llu,%llu,%.6g,%.6g,%.6g,%.6g,%d\n", std::string(LayoutName(g.layout)).c_str(),
                  std::string(KeyStreamName(g.stream)).c_str(), static_cast<unsigned long long>(g.n), g.bits_per_key, g.k,
                  static_cast<unsigned long long>(spec.replicas), static_cast<unsigned long long>(c.trials),
                  static_cast<unsigned long long>(c.hits), c.rate(), c.predicted, lo, hi, v.pass ? 1 : 0);
    } else {
      std::printf("%-13s %-10s %9llu %6g %3u %10llu %10.4g%% %10.4g%% [%10.4g%%, %10.4g%%] %s\n",
                  std::string(LayoutName(g.layout)).c_str(), std::string(KeyStreamName(g.stream)).c_str(),
                  static_cast<unsigned long long>(g.n), g.bits_per_key, g.k, static_cast<unsigned long long>(c.trials),
                  c.rate() * 100, c.predicted * 100, lo * 100, hi * 100, verdict);
    }
    std::fflush(stdout);
  }
  const double expected_chance = static_cast<double>(grid.size()) * (1.0 - confidence);
  std::fprintf(stderr,
               "verify: %zu of %zu points inside the %.4g%% interval (%.2g expected outside by chance); %zu outside the "
               "family-wise %.6g%% interval\n",
               grid.size() - failed, grid.size(), confidence * 100, expected_chance, failed_family, family_confidence * 100);
  return failed_family == 0 ? 0 : 1;
}

}  // namespace blockbloom::cli
