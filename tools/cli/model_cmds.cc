// SPDX-License-Identifier: Apache-2.0
// `blockbloom params` and `blockbloom table`: the exact model (model.h) as a
// calculator.
//
//   params --n N --fpr P [--layout L] [--format text|csv|json]
//     for each layout (or one): the smallest filter meeting P for N keys by the
//     exact model, its bits, bytes, bits per key, k and predicted rate, and the
//     cheapest layout (fewest bytes).
//   table --layout L --mn A:B --k C:D [--n N] [--format text|csv]
//     the model's rate by bits per key (rows, A..B step 1) and k (columns),
//     like the Summary Cache table; csv rows are m_over_n,k,fpr.
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "blockbloom/layout.h"
#include "blockbloom/model.h"
#include "tools/cli/args.h"
#include "tools/cli/commands.h"

namespace blockbloom::cli {
namespace {

enum class Format { kText, kCsv, kJson };

Format ParseFormat(const Args& args, bool allow_json) {
  const std::string f = args.GetOr("format", "text");
  if (f == "text") return Format::kText;
  if (f == "csv") return Format::kCsv;
  if (f == "json" && allow_json) return Format::kJson;
  throw UsageError("--format = '" + f + "' is not one of: text, csv" + (allow_json ? ", json" : ""));
}

Layout ParseLayoutOption(const std::string& name) { return LayoutOption(name); }

// Payload bytes as the filter allocates them (a 64-byte multiple).
uint64_t BytesFor(Layout l, uint64_t num_blocks) {
  return LayoutPayloadBytes(l, num_blocks);
}

struct ParamsRow {
  Layout layout;
  std::optional<FilterParams> params;  // nullopt: the target is out of reach
  std::string why;
};

}  // namespace

int Params(int argc, char** argv) {
  Args args(argc, argv, {"n", "fpr", "layout", "format"});
  args.ExpectPositionals(0, 0, "no positional arguments");
  if (!args.Has("n")) throw UsageError("--n is required");
  const uint64_t n = args.U64("n", 0, 1, kMaxKeys);
  const auto fpr_opt = args.OptDouble("fpr");
  if (!fpr_opt) throw UsageError("--fpr is required");
  const double fpr = *fpr_opt;
  if (!(fpr > 0.0 && fpr < 1.0)) throw UsageError("--fpr = " + *args.Get("fpr") + " is out of range: expected 0 < rate < 1");
  const Format format = ParseFormat(args, true);

  std::vector<Layout> layouts;
  if (auto l = args.Get("layout")) {
    layouts.push_back(ParseLayoutOption(*l));
  } else {
    layouts.assign(std::begin(kAllLayouts), std::end(kAllLayouts));
  }

  std::vector<ParamsRow> rows;
  const ParamsRow* cheapest = nullptr;
  for (Layout l : layouts) {
    ParamsRow row{l, std::nullopt, {}};
    try {
      row.params = SolveForKeys(l, n, fpr);
    } catch (const std::invalid_argument& e) {
      if (layouts.size() == 1) throw;  // the one layout asked for: that is the answer
      row.why = e.what();
    }
    rows.push_back(row);
  }
  for (const ParamsRow& r : rows) {
    if (!r.params) continue;
    if (cheapest == nullptr || BytesFor(r.layout, r.params->num_blocks) < BytesFor(cheapest->layout, cheapest->params->num_blocks))
      cheapest = &r;
  }
  const double classic_bpk = ClassicBitsForFpr(static_cast<double>(n), fpr) / static_cast<double>(n);
  auto bpk = [n](const FilterParams& p) { return static_cast<double>(p.bits) / static_cast<double>(n); };

  if (format == Format::kCsv) {
    std::printf("layout,bits,bytes,bits_per_key,k,fpr,cheapest\n");
    for (const ParamsRow& r : rows) {
      const std::string name(LayoutName(r.layout));
      if (!r.params) {
        std::printf("%s,,,,,,0\n", name.c_str());
        continue;
      }
      std::printf("%s,%llu,%llu,%.4f,%u,%.6g,%d\n", name.c_str(), static_cast<unsigned long long>(r.params->bits),
                  static_cast<unsigned long long>(BytesFor(r.layout, r.params->num_blocks)), bpk(*r.params), r.params->k,
                  r.params->fpr, &r == cheapest ? 1 : 0);
    }
    return 0;
  }
  if (format == Format::kJson) {
    std::printf("{\"n\": %llu, \"fpr\": %.6g, \"classic_formula_bits_per_key\": %.4f, \"layouts\": [",
                static_cast<unsigned long long>(n), fpr, classic_bpk);
    for (size_t i = 0; i < rows.size(); ++i) {
      const ParamsRow& r = rows[i];
      std::printf("%s\n  {\"layout\": \"%s\", ", i ? "," : "", std::string(LayoutName(r.layout)).c_str());
      if (!r.params) {
        std::printf("\"reachable\": false}");
        continue;
      }
      std::printf("\"reachable\": true, \"bits\": %llu, \"bytes\": %llu, \"bits_per_key\": %.4f, \"k\": %u, \"fpr\": %.6g}",
                  static_cast<unsigned long long>(r.params->bits),
                  static_cast<unsigned long long>(BytesFor(r.layout, r.params->num_blocks)), bpk(*r.params),
                  r.params->k, r.params->fpr);
    }
    std::printf("\n], \"cheapest\": %s%s%s}\n", cheapest ? "\"" : "",
                cheapest ? std::string(LayoutName(cheapest->layout)).c_str() : "null", cheapest ? "\"" : "");
    return 0;
  }
  std::printf("blockbloom params: %llu keys at a %.4g%% false-positive rate (exact model)\n",
              static_cast<unsigned long long>(n), fpr * 100);
  std::printf("%-14s %14s %13s %9s %3s %11s\n", "layout", "bits", "bytes", "bits/key", "k", "predicted");
  for (const ParamsRow& r : rows) {
    const std::string name(LayoutName(r.layout));
    if (!r.params) {
      std::printf("%-14s out of reach within the layout's limits\n", name.c_str());
      continue;
    }
    std::printf("%-14s %14llu %13llu %9.3f %3u %10.4g%%%s\n", name.c_str(), static_cast<unsigned long long>(r.params->bits),
                static_cast<unsigned long long>(BytesFor(r.layout, r.params->num_blocks)), bpk(*r.params), r.params->k,
                r.params->fpr * 100, &r == cheapest ? "  <- cheapest" : "");
  }
  std::printf("(the classic formula -n ln p / (ln 2)^2 says %.3f bits/key)\n", classic_bpk);
  return 0;
}

int Table(int argc, char** argv) {
  Args args(argc, argv, {"layout", "mn", "k", "n", "format"});
  args.ExpectPositionals(0, 0, "no positional arguments");
  const Layout layout = ParseLayoutOption(args.Require("layout"));
  // Rows: bits per key, integers; the rate at a given m/n depends on n only
  // through the binomial load distribution, so a large n gives the limit.
  constexpr double kMaxBitsPerKey = 1000;
  const auto [mn_lo, mn_hi] = args.Range("mn", {2, 16});
  if (!(mn_lo >= 1 && mn_hi <= kMaxBitsPerKey))
    throw UsageError("--mn = " + *args.Get("mn") + " is out of range: expected A:B with 1 <= A <= B <= 1000");
  const auto [k_lo, k_hi] = args.Range("k", {LayoutMinK(layout), LayoutMaxK(layout)});
  if (!(k_lo >= 1 && k_hi <= 32 && k_lo == static_cast<uint32_t>(k_lo) && k_hi == static_cast<uint32_t>(k_hi)))
    throw UsageError("--k = " + args.GetOr("k", "") + " is out of range: expected integers C:D with 1 <= C <= D <= 32");
  const uint64_t n = args.U64("n", 1'000'000, 1, kMaxKeys);
  const Format format = ParseFormat(args, false);

  std::vector<uint32_t> ks;
  for (auto k = static_cast<uint32_t>(k_lo); k <= static_cast<uint32_t>(k_hi); ++k) {
    if (LayoutAcceptsK(layout, k)) ks.push_back(k);
  }
  if (ks.empty())
    throw UsageError("--k = " + args.GetOr("k", "") + " holds no k that layout " + std::string(LayoutName(layout)) +
                     " accepts (" + std::string(Traits(layout).k_text) + ")");

  // The filter of m/n bits per key: whole blocks (classic: bits), at least one.
  auto rate = [&](double mn, uint32_t k) {
    const double blocks = mn * static_cast<double>(n) / LayoutBlockBits(layout);
    return PredictFpr(layout, std::max<uint64_t>(1, static_cast<uint64_t>(blocks + 0.5)), k, n);
  };
  if (format == Format::kCsv) {
    std::printf("m_over_n,k,fpr\n");
    for (double mn = mn_lo; mn <= mn_hi + 1e-9; mn += 1)
      for (uint32_t k : ks) std::printf("%g,%u,%.6g\n", mn, k, rate(mn, k));
    return 0;
  }
  std::printf("%s: false-positive rate by bits per key (rows) and k (columns), n = %llu\n",
              std::string(LayoutName(layout)).c_str(), static_cast<unsigned long long>(n));
  std::printf("%6s", "m/n");
  for (uint32_t k : ks) {
    char head[16];
    std::snprintf(head, sizeof head, "k=%u", k);
    std::printf(" %10s", head);
  }
  std::printf("\n");
  for (double mn = mn_lo; mn <= mn_hi + 1e-9; mn += 1) {
    std::printf("%6g", mn);
    for (uint32_t k : ks) std::printf(" %10.3g", rate(mn, k));
    std::printf("\n");
  }
  return 0;
}

}  // namespace blockbloom::cli
