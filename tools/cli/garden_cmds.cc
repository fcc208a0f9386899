// SPDX-License-Identifier: Apache-2.0
// The garden commands: garden-build, garden-query, garden-stats, garden-merge,
// for the counting filter (classic, `counting`), the blocked counting filter
// (`blocked-counting`) and the count-min sketch (`count-min`); garden-merge and
// garden-stats read every garden file type. Files are garden files
// (blockbloom/garden/format.h), written atomically; every failure prints one
// line on stderr, exits non-zero and leaves no partial output.
//
// The Summary Cache use (Fan et al.): each proxy builds a digest of its keys,
// ships it, and the receiver merges them; the merged digest answers exactly as
// one built from the union:
//   blockbloom garden-build --type blocked-counting --n 1e6 --fpr 0.01 --keys a.txt -o a.bbg
//   blockbloom garden-build --type blocked-counting --n 1e6 --fpr 0.01 --keys b.txt -o b.bbg
//   blockbloom garden-merge a.bbg b.bbg -o ab.bbg
//   blockbloom garden-query ab.bbg --keys probes.txt --output bits
//
// Keys are read as by `blockbloom build`: lines split on '\n' only and never
// trimmed, or --key-width W fixed-width records; hashed as their raw bytes.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blockbloom/garden.h"
#include "blockbloom/model.h"
#include "tools/cli/args.h"
#include "tools/cli/commands.h"
#include "tools/cli/json.h"
#include "tools/cli/keys.h"

namespace blockbloom::cli {
namespace {

namespace g = blockbloom::garden;

[[noreturn]] void Fail(const std::string& msg) { throw std::runtime_error("blockbloom: " + msg); }

// The keys of --keys (or stdin), read and split as by `blockbloom build`
// (keys.h), as views into the input.
struct KeyList {
  std::string data;
  std::vector<std::string_view> keys;

  explicit KeyList(const Args& args) : data(ReadInput(args.Get("keys"))) {
    const std::string label = args.GetOr("keys", "-") == "-" ? "<stdin>" : *args.Get("keys");
    const KeySplitter split(data, args.U64("key-width", 0, 1, kMaxKeyWidth), label);
    keys.reserve(split.count());
    split.ForEachBatch([&](std::span<const std::string_view> b) { keys.insert(keys.end(), b.begin(), b.end()); });
  }
};

template <typename Fn>
void Batches(std::span<const std::string_view> keys, Fn&& fn) {
  for (size_t at = 0; at < keys.size(); at += kBatchKeys) fn(keys.subspan(at, std::min(kBatchKeys, keys.size() - at)));
}

HashKind ParseHash(const Args& args) { return HashOption(args.GetOr("hash", "xxh3")); }

std::vector<uint64_t> Hashes(std::span<const std::string_view> keys, const g::KeyHasher& h) {
  std::vector<uint64_t> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) out[i] = h(keys[i]);
  return out;
}

// ---- The three buildable types --------------------------------------------------------

// --n: keys to size for, 1..2^40, the limit every command keeps (args.h).
uint64_t KeysOption(const Args& a) { return a.U64("n", 0, 1, kMaxKeys); }
double FprOption(const Args& a) {
  const double fpr = a.Double("fpr", 0);
  if (!(fpr > 0 && fpr < 1)) throw UsageError("--fpr = " + FormatReal(fpr) + " is out of range: expected 0 < fpr < 1");
  return fpr;
}

g::CountingFilter NewCounting(const Args& a, HashKind hash, uint64_t seed) {
  const uint32_t width = static_cast<uint32_t>(a.U64("width", 4, 1, 32));
  if (a.Has("cells")) {
    if (a.Has("n") || a.Has("fpr")) throw UsageError("give either --cells and --k, or --n and --fpr");
    return g::CountingFilter(a.U64("cells", 0, 1), static_cast<uint32_t>(a.U64("k", 0, 1, 32)), width, hash, seed);
  }
  if (!a.Has("n") || !a.Has("fpr")) throw UsageError("counting needs --n and --fpr, or --cells and --k");
  const uint64_t n = KeysOption(a);
  // The classic optimum (g::SolveCounting checks every real before the cast).
  const g::CountingParams p = g::SolveCounting(n, FprOption(a));
  return g::CountingFilter(p.cells, a.Has("k") ? static_cast<uint32_t>(a.U64("k", 0, 1, 32)) : p.k, width, hash, seed);
}

g::BlockedCountingFilter NewBlocked(const Args& a, HashKind hash, uint64_t seed) {
  if (a.Has("blocks")) {
    if (a.Has("n") || a.Has("fpr")) throw UsageError("give either --blocks and --k, or --n and --fpr");
    return g::BlockedCountingFilter(a.U64("blocks", 0, 1), static_cast<uint32_t>(a.U64("k", 0, 1, 16)), hash, seed);
  }
  if (!a.Has("n") || !a.Has("fpr")) throw UsageError("blocked-counting needs --n and --fpr, or --blocks and --k");
  return g::BlockedCountingFilter::ForKeys(KeysOption(a), FprOption(a), hash, seed);
}

g::CountMinSketch NewCountMin(const Args& a, HashKind hash, uint64_t seed) {
  const g::CountMinSketch::Options o{hash, seed, a.Has("conservative")};
  if (a.Has("columns")) {
    if (a.Has("eps") || a.Has("delta")) throw UsageError("give either --columns and --depth, or --eps and --delta");
    return g::CountMinSketch(a.U64("columns", 0, 1), static_cast<uint32_t>(a.U64("depth", 4, 1, 32)), o);
  }
  if (!a.Has("eps")) throw UsageError("count-min needs --eps [--delta], or --columns [--depth]");
  return g::CountMinSketch::ForError(a.Double("eps", 0), a.Double("delta", 0.01), o);
}

// garden-build's one-line summary on success, as `build` prints one:
// "OUT: counting, 959 cells, k = 7, 4-bit counters, 480 bytes, hash xxh3 seed 0, 100 keys".
std::string HashText(const g::KeyHasher& h) {
  return "hash " + std::string(HashName(h.kind)) + " seed " + std::to_string(h.seed);
}
std::string Describe(const g::CountingFilter& f, uint64_t keys) {
  return "counting, " + std::to_string(f.cells()) + " cells, k = " + std::to_string(f.k()) + ", " +
         std::to_string(f.width()) + "-bit counters, " + std::to_string(f.byte_size()) + " bytes, " +
         HashText(f.hasher()) + ", " + std::to_string(keys) + " keys";
}
std::string Describe(const g::BlockedCountingFilter& f, uint64_t) {
  return "blocked-counting, " + std::to_string(f.num_blocks()) + " blocks, k = " + std::to_string(f.k()) + ", " +
         std::to_string(f.byte_size()) + " bytes, " + HashText(f.hasher()) + ", " + std::to_string(f.inserted()) +
         " keys";
}
std::string Describe(const g::CountMinSketch& s, uint64_t) {
  return "count-min, " + std::to_string(s.width()) + " columns x " + std::to_string(s.depth()) + " rows" +
         (s.conservative() ? " (conservative)" : "") + ", " + std::to_string(s.width() * s.depth() * 8) + " bytes, " +
         HashText(s.hasher()) + ", total N = " + std::to_string(s.total());
}

// ---- Reading any garden file, by its type --------------------------------------------------

// Calls fn(variant) with the file's variant, whatever its type.
template <typename Fn>
decltype(auto) WithGarden(const std::string& path, Fn&& fn) {
  const std::vector<uint8_t> bytes = g::ReadGardenFile(path);
  switch (g::PeekGardenType(bytes, path)) {
    case g::GardenType::kCounting: return fn(g::DeserializeGarden<g::CountingFilter>(bytes, path));
    case g::GardenType::kSpectral: return fn(g::DeserializeGarden<g::SpectralFilter>(bytes, path));
    case g::GardenType::kCountMin: return fn(g::DeserializeGarden<g::CountMinSketch>(bytes, path));
    case g::GardenType::kBitwise: return fn(g::DeserializeGarden<g::BitwiseFilter>(bytes, path));
    case g::GardenType::kStable: return fn(g::DeserializeGarden<g::StableFilter>(bytes, path));
    case g::GardenType::kA2: return fn(g::DeserializeGarden<g::A2Filter>(bytes, path));
    case g::GardenType::kScalable: return fn(g::DeserializeGarden<g::ScalableFilter>(bytes, path));
    case g::GardenType::kBlockedCounting: return fn(g::DeserializeGarden<g::BlockedCountingFilter>(bytes, path));
  }
  Fail(path + ": unknown garden type");
}

// Per-key answers: membership (0/1) and count estimate.
void Answer(const g::CountingFilter& f, std::span<const std::string_view> keys, uint8_t* bits, uint64_t* counts) {
  const std::vector<uint64_t> h = Hashes(keys, f.hasher());
  f.MayContainHashBatch(h, std::span<uint8_t>(bits, keys.size()));
  f.CountHashBatch(h, std::span<uint64_t>(counts, keys.size()));
}
void Answer(const g::BlockedCountingFilter& f, std::span<const std::string_view> keys, uint8_t* bits, uint64_t* counts) {
  f.MayContainBatch(keys, std::span<uint8_t>(bits, keys.size()));
  std::vector<uint8_t> c(keys.size());
  f.CountBatch(keys, c);
  for (size_t i = 0; i < keys.size(); ++i) counts[i] = c[i];
}
void Answer(const g::CountMinSketch& f, std::span<const std::string_view> keys, uint8_t* bits, uint64_t* counts) {
  const std::vector<uint64_t> h = Hashes(keys, f.hasher());
  f.EstimateHashBatch(h, std::span<uint64_t>(counts, keys.size()));
  for (size_t i = 0; i < keys.size(); ++i) bits[i] = counts[i] > 0;
}
template <typename T>
void Answer(const T& f, std::span<const std::string_view> keys, uint8_t* bits, uint64_t* counts) {
  for (size_t i = 0; i < keys.size(); ++i) {
    if constexpr (requires { f.Count(keys[i]); }) {
      counts[i] = f.Count(keys[i]);
      bits[i] = counts[i] > 0;
    } else {
      bits[i] = f.MayContain(keys[i]);
      counts[i] = bits[i];
    }
  }
}

void Write(FILE* out, const std::string& s) {
  if (std::fwrite(s.data(), 1, s.size(), out) != s.size()) Fail("cannot write the output");
}

std::string Str(std::string_view s) {
  std::string out;  // built with appends: g++ 12's -Wrestrict misfires on "x" + string + "x"
  out.reserve(s.size() + 2);
  out.push_back('"');
  out.append(s);
  out.push_back('"');
  return out;
}

std::string Json(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string s = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    s += i ? ", " : "";
    s += Str(fields[i].first);
    s += ": ";
    s += fields[i].second;
  }
  return s + "}\n";
}
// Counts print exactly (uint64_t, never through a double: 5423680, not
// 5.42368e+06); rates and other reals with 6 significant digits, null when not
// finite (JSON has no inf or nan).
std::string Int(uint64_t v) { return std::to_string(v); }
std::string Num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}
using Fields = std::vector<std::pair<std::string, std::string>>;

// Distinct keys estimated from the fill of a counter array (Swamidass & Baldi):
// n ~ -(m / k) ln(1 - X / m), X the non-zero counters; and the rate now, (X/m)^k.
void FillFields(Fields& f, uint64_t cells, double k, uint64_t nonzero) {
  const double m = static_cast<double>(cells), x = static_cast<double>(nonzero);
  f.push_back({"nonzero_counters", Int(nonzero)});
  f.push_back({"fill", Num(x / m)});
  f.push_back({"estimated_keys", nonzero >= cells ? "null" : Num(-m / k * std::log1p(-x / m))});
  f.push_back({"fpr_now", Num(std::pow(x / m, k))});
}

Fields StatsOf(const g::CountingFilter& f) {
  uint64_t nonzero = 0;
  for (uint64_t i = 0; i < f.cells(); ++i) nonzero += f.CounterAt(i) != 0;
  Fields out = {{"type", Str("counting")}, {"cells", Int(f.cells())}, {"k", Int(f.k())},
                {"counter_bits", Int(f.width())}, {"bytes", Int(f.byte_size())},
                {"saturated_counters", Int(f.SaturatedCells())},
                {"lost_increments", Int(f.saturations())}};
  FillFields(out, f.cells(), f.k(), nonzero);
  return out;
}
Fields StatsOf(const g::BlockedCountingFilter& f) {
  Fields out = {{"type", Str("blocked-counting")}, {"blocks", Int(f.num_blocks())}, {"k", Int(f.k())},
                {"bytes", Int(f.byte_size())},
                {"inserted", Int(f.inserted())},
                {"saturated_counters", Int(f.SaturatedCells())},
                {"lost_increments", Int(f.saturations())},
                {"model_fpr_at_inserted", Num(f.Fpr(f.inserted()))}};
  // The rate now from each block's own fill: a fresh key lands in a uniform
  // block and is positive when its k probes find non-zero counters there,
  // about (X_b / 128)^k (probes drawn with repetition: a close upper estimate).
  double rate = 0.0;
  for (uint64_t b = 0; b < f.num_blocks(); ++b) {
    uint32_t nz = 0;
    for (uint32_t c = 0; c < 128; ++c) nz += f.CounterAt(b * 128 + c) != 0;
    rate += std::pow(nz / 128.0, f.k());
  }
  out.push_back({"nonzero_counters", Int(f.NonZeroCells())});
  out.push_back({"fill", Num(static_cast<double>(f.NonZeroCells()) / (128.0 * static_cast<double>(f.num_blocks())))});
  out.push_back({"fpr_now", Num(rate / static_cast<double>(f.num_blocks()))});
  return out;
}
Fields StatsOf(const g::CountMinSketch& s) {
  return {{"type", Str("count-min")},
          {"columns", Int(s.width())},
          {"depth", Int(s.depth())},
          {"conservative", s.conservative() ? "true" : "false"},
          {"total", Int(s.total())},
          {"epsilon", Num(s.epsilon())},
          {"delta", Num(s.delta())},
          {"error_bound", Num(s.epsilon() * static_cast<double>(s.total()))}};
}
template <typename T>
Fields StatsOf(const T& v) {
  return {{"type", Str(g::GardenTypeName(g::PeekGardenType(g::SerializeGarden(v))))}};
}

void PrintFields(const Fields& f, bool json) {
  if (json) {
    Write(stdout, Json(f));
    return;
  }
  for (const auto& [k, v] : f) {
    std::string val = v;
    if (val.size() >= 2 && val.front() == '"') val = val.substr(1, val.size() - 2);
    Write(stdout, k + ": " + val + "\n");
  }
}

}  // namespace

int GardenBuild(int argc, char** argv) {
  const Args a(argc, argv,
               {"type", "n", "fpr", "cells", "k", "width", "blocks", "eps", "delta", "columns", "depth", "hash", "seed",
                "keys", "key-width", "o"},
               {"conservative"});
  a.ExpectPositionals(0, 0, "no positional arguments");
  const std::string out = a.Require("o");
  const std::string type = a.Require("type");
  const HashKind hash = ParseHash(a);
  const uint64_t seed = a.U64("seed", 0);
  if (type == "counting") {
    g::CountingFilter f = NewCounting(a, hash, seed);
    const KeyList keys(a);
    Batches(keys.keys, [&](std::span<const std::string_view> b) { f.InsertHashBatch(Hashes(b, f.hasher())); });
    g::SaveGarden(f, out);
    Write(stdout, out + ": " + Describe(f, keys.keys.size()) + "\n");
  } else if (type == "blocked-counting") {
    g::BlockedCountingFilter f = NewBlocked(a, hash, seed);
    const KeyList keys(a);
    Batches(keys.keys, [&](std::span<const std::string_view> b) { f.InsertBatch(b); });
    g::SaveGarden(f, out);
    Write(stdout, out + ": " + Describe(f, keys.keys.size()) + "\n");
  } else if (type == "count-min") {
    g::CountMinSketch s = NewCountMin(a, hash, seed);
    const KeyList keys(a);
    Batches(keys.keys, [&](std::span<const std::string_view> b) { s.AddHashBatch(Hashes(b, s.hasher())); });
    g::SaveGarden(s, out);
    Write(stdout, out + ": " + Describe(s, keys.keys.size()) + "\n");
  } else {
    throw UsageError("--type = '" + type + "' is unknown: expected counting, blocked-counting or count-min");
  }
  return 0;
}

int GardenQuery(int argc, char** argv) {
  const Args a(argc, argv, {"keys", "key-width", "output"});
  a.ExpectPositionals(1, 1, "one garden file");
  const std::string output = a.GetOr("output", "bits");
  if (output != "bits" && output != "hits" && output != "count" && output != "counts")
    throw UsageError("--output = '" + output + "' is unknown: expected bits, hits, count or counts");
  return WithGarden(a.positionals()[0], [&](const auto& f) {
    const KeyList keys(a);
    std::string text;
    uint64_t hits = 0;
    Batches(keys.keys, [&](std::span<const std::string_view> b) {
      std::vector<uint8_t> bits(b.size());
      std::vector<uint64_t> counts(b.size());
      Answer(f, b, bits.data(), counts.data());
      for (size_t i = 0; i < b.size(); ++i) {
        hits += bits[i];
        if (output == "bits") {
          text += bits[i] ? "1\n" : "0\n";
        } else if (output == "counts") {
          text += std::to_string(counts[i]) + "\n";
        } else if (output == "hits" && bits[i]) {
          text.append(b[i]).push_back('\n');
        }
      }
      Write(stdout, text);
      text.clear();
    });
    if (output == "count") Write(stdout, std::to_string(hits) + "\n");
    return 0;
  });
}

int GardenStats(int argc, char** argv) {
  const Args a(argc, argv, {"format", "keys", "key-width", "top"});
  a.ExpectPositionals(1, 1, "one garden file");
  const std::string format = a.GetOr("format", "text");
  if (format != "text" && format != "json") throw UsageError("--format = '" + format + "' is unknown: expected text or json");
  return WithGarden(a.positionals()[0], [&](const auto& f) {
    Fields fields = StatsOf(f);
    if (a.Has("top")) {
      // Top counts: the --top N distinct keys of --keys with the largest estimates.
      if (!a.Has("keys")) throw UsageError("--top needs --keys (the candidate keys to rank)");
      const uint64_t top = a.U64("top", 10, 1);
      const KeyList keys(a);
      std::vector<std::pair<uint64_t, std::string_view>> ranked;
      Batches(keys.keys, [&](std::span<const std::string_view> b) {
        std::vector<uint8_t> bits(b.size());
        std::vector<uint64_t> counts(b.size());
        Answer(f, b, bits.data(), counts.data());
        for (size_t i = 0; i < b.size(); ++i) ranked.push_back({counts[i], b[i]});
      });
      std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
        return x.first != y.first ? x.first > y.first : x.second < y.second;
      });
      ranked.erase(std::unique(ranked.begin(), ranked.end()), ranked.end());
      std::string list = "[";
      for (size_t i = 0; i < ranked.size() && i < top; ++i) {
        list += i ? ", [" : "[";
        list += Str(JsonEscape(ranked[i].second));  // as `stats --format json` escapes (json.h)
        list += ", ";
        list += std::to_string(ranked[i].first);
        list += "]";
      }
      fields.push_back({"top", list + "]"});
    }
    PrintFields(fields, format == "json");
    return 0;
  });
}

int GardenMerge(int argc, char** argv) {
  const Args a(argc, argv, {"o", "weight"});
  a.ExpectPositionals(2, 64, "two or more garden files of one type");
  const std::string out = a.Require("o");
  const auto& in = a.positionals();
  return WithGarden(in[0], [&](auto first) {
    using T = std::decay_t<decltype(first)>;
    const uint64_t weight = a.U64("weight", 1, 0);
    if constexpr (!std::is_same_v<T, g::CountMinSketch>) {
      if (a.Has("weight")) throw UsageError("--weight applies to count-min sketches only");
    }
    for (size_t i = 1; i < in.size(); ++i) {
      const T next = g::LoadGarden<T>(in[i]);
      try {
        if constexpr (std::is_same_v<T, g::CountMinSketch>) {
          first.MergeFrom(next, weight);
        } else {
          first.MergeFrom(next);
        }
      } catch (const std::exception& e) {
        Fail(in[i] + ": " + std::string(e.what()).substr(12));
      }
    }
    g::SaveGarden(first, out);
    return 0;
  });
}

}  // namespace blockbloom::cli
