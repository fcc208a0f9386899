// SPDX-License-Identifier: Apache-2.0
// The file commands: build, query, stats, merge, intersect, fold, import-parquet,
// export-parquet. Every output file is written atomically (format.h), so a
// failing command leaves no partial file behind.
//
// Keys: see keys.h. Filters are read with LoadFilter (a validated private
// copy, read with pread: a filter file truncated meanwhile gives a message,
// never SIGBUS), and only regular files are read (a FIFO is refused at once).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/fold.h"
#include "blockbloom/format.h"
#include "blockbloom/layout.h"
#include "blockbloom/model.h"
#include "blockbloom/parquet.h"
#include "tools/cli/args.h"
#include "tools/cli/commands.h"
#include "tools/cli/json.h"
#include "tools/cli/keys.h"

namespace blockbloom::cli {
namespace {

// The progress bar appears for inputs of at least this many keys (about a
// second of work or more) and only when stderr is a terminal.
constexpr size_t kProgressMinKeys = size_t{1} << 22;
// A header claiming more keys than this per bit describes a filter that
// cannot meaningfully hold them: every layout's rate is above 99.9% (classic
// k = 1: 1 - e^-8), so stats says so instead of evaluating the model there.
constexpr uint64_t kMaxKeysPerBit = 8;

[[noreturn]] void Fail(const std::string& msg) { throw std::runtime_error("blockbloom: " + msg); }

// The keys of --keys FILE or standard input.
class Keys {
 public:
  explicit Keys(const Args& args)
      : data_(ReadInput(args.Get("keys"))),
        split_(data_, static_cast<size_t>(args.U64("key-width", 0, 1, kMaxKeyWidth)),
               args.GetOr("keys", "-") == "-" ? "<stdin>" : *args.Get("keys")) {}
  size_t count() const { return split_.count(); }
  size_t width() const { return split_.width(); }
  template <typename Fn>
  void ForEachBatch(Fn&& fn) const {
    split_.ForEachBatch(std::forward<Fn>(fn));
  }

 private:
  std::string data_;
  KeySplitter split_;
};

class Progress {
 public:
  Progress(const char* what, size_t total) : what_(what), total_(total) {
    on_ = total >= kProgressMinKeys && ::isatty(2);
  }
  void Add(size_t n) {
    done_ += n;
    if (!on_) return;
    const int pct = static_cast<int>(100.0 * static_cast<double>(done_) / static_cast<double>(total_));
    constexpr int kWidth = 40;  // characters in the bar
    std::string bar(static_cast<size_t>(pct * kWidth / 100), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stderr, "\r%s [%s] %3d%% %zu/%zu keys", what_, bar.c_str(), pct, done_, total_);
    if (done_ >= total_) std::fputc('\n', stderr);
  }

 private:
  const char* what_;
  size_t total_;
  size_t done_ = 0;
  bool on_ = false;
};

Layout LayoutArg(const Args& args) { return LayoutOption(args.Require("layout")); }
HashKind HashArg(const Args& args) { return HashOption(args.GetOr("hash", "xxh3")); }

uint64_t MaxBits(Layout layout) { return LayoutBits(layout, Traits(layout).max_blocks); }

// Builds the filter, or says how many bytes it could not get.
Filter Allocate(Layout layout, uint64_t blocks, uint32_t k, HashKind hash, uint64_t seed) {
  try {
    return Filter::WithBlocks(layout, blocks, k, hash, seed);
  } catch (const std::bad_alloc&) {
    Fail("out of memory: cannot allocate " +
         std::to_string(LayoutPayloadBytes(layout, blocks)) + " bytes for a " +
         std::string(LayoutName(layout)) + " filter of " + std::to_string(blocks) +
         " " + std::string(LayoutUnitName(layout)));
  }
}

// What the filter was sized for: the keys and, with --fpr, the rate asked.
struct Sizing {
  uint64_t n = 0;
  std::optional<double> fpr;
};

Filter SizedFilter(const Args& args, uint64_t key_count, Sizing* sizing) {
  const Layout layout = LayoutArg(args);
  const HashKind hash = HashArg(args);
  const uint64_t seed = args.U64("seed", 0);
  const int modes = args.Has("fpr") + args.Has("bits-per-key") + args.Has("bytes");
  if (modes != 1) throw UsageError("give exactly one of --fpr (with --n), --bits-per-key or --bytes");
  const uint64_t n = args.Has("n") ? *args.OptU64("n", 1, kMaxKeys) : key_count;
  if (!args.Has("n") && n > kMaxKeys)
    throw UsageError("the input holds " + std::to_string(n) + " keys: expected at most " + std::to_string(kMaxKeys));
  sizing->n = n;
  const std::optional<uint64_t> k_arg = args.OptU64("k", 1, 64);
  if (k_arg) CheckKOption(layout, *k_arg);
  if (args.Has("fpr")) {
    const double fpr = *args.OptDouble("fpr");
    if (!(fpr > 0 && fpr < 1)) throw UsageError("--fpr = " + *args.Get("fpr") + " is out of range: expected (0, 1)");
    if (n == 0) throw UsageError("--n is required with --fpr when the input holds no keys");
    sizing->fpr = fpr;
    if (!k_arg) {
      const FilterParams p = SolveForKeys(layout, n, fpr);  // refuses what no filter reaches, naming why
      return Allocate(layout, p.num_blocks, p.k, hash, seed);
    }
    const auto k = static_cast<uint32_t>(*k_arg);
    const std::optional<uint64_t> blocks = BlocksForKeys(layout, k, n, fpr);  // the solver's own search
    if (!blocks)
      throw UsageError("--fpr = " + FormatReal(fpr) + " is out of reach with --k " + std::to_string(k) + " for " +
                       std::to_string(n) + " keys within the layout's size limit");
    return Allocate(layout, *blocks, k, hash, seed);
  }
  uint64_t bits = 0;
  if (args.Has("bits-per-key")) {
    const double bpk = *args.OptDouble("bits-per-key");
    if (n == 0) throw UsageError("--n is required with --bits-per-key when the input holds no keys");
    // Checked in floating point before any conversion: bpk x n beyond the
    // layout's limit (1e300, 2^64, ...) is an error, never a wrapped integer.
    const double want = std::ceil(bpk * static_cast<double>(n));
    const double max_bits = static_cast<double>(MaxBits(layout));
    if (!(bpk > 0) || !(want <= max_bits))
      throw UsageError("--bits-per-key = " + *args.Get("bits-per-key") + " is out of range for " + std::to_string(n) +
                       " keys and layout " + std::string(LayoutName(layout)) + ": expected more than 0 and at most " +
                       FormatReal(max_bits / static_cast<double>(n)) + " (" + std::to_string(MaxBits(layout)) +
                       " bits in all)");
    bits = static_cast<uint64_t>(want);
  } else {
    bits = *args.OptU64("bytes", 1, MaxBits(layout) / 8) * 8;
  }
  const uint64_t block = LayoutBlockBits(layout);
  const uint64_t blocks = (bits + block - 1) / block;
  uint32_t k = k_arg ? static_cast<uint32_t>(*k_arg) : 0;
  if (!k_arg) k = SolveForSize(layout, blocks, std::max<uint64_t>(n, 1)).k;  // the model's best k
  return Allocate(layout, blocks, k, hash, seed);
}

std::string Describe(const Filter& f) {
  return std::string(LayoutName(f.layout())) + ", " + std::to_string(f.num_blocks()) +
         " " + std::string(LayoutUnitName(f.layout())) + ", k = " + std::to_string(f.k()) + ", " +
         std::to_string(f.byte_size()) + " bytes, hash " + std::string(HashName(f.hash_kind())) + " seed " +
         std::to_string(f.seed()) + ", " + std::to_string(f.inserted()) + " keys";
}

void WriteOut(const std::string& s) {
  if (!s.empty() && std::fwrite(s.data(), 1, s.size(), stdout) != s.size())
    Fail(std::string("cannot write to standard output: ") + std::strerror(errno));
}

// The model's rate for `keys` keys in a filter shaped as `f`: 1 beyond
// kMaxKeysPerBit keys per bit, where the filter answers yes to nearly
// everything and the model (whose cost grows with keys per block) is not asked.
double ModelRate(const Filter& f, double keys) {
  if (!std::isfinite(keys) || keys > static_cast<double>(f.bit_count()) * kMaxKeysPerBit) return 1.0;
  return PredictFpr(f.layout(), f.num_blocks(), f.k(), static_cast<uint64_t>(std::llround(keys)));
}

// ImportParquet, and when the header does not parse but the file is the size
// of a bitset (whole 32-byte blocks), the error suggests --bytes.
Filter ImportWithHeader(std::span<const uint8_t> bytes, const std::string& path) {
  try {
    return blockbloom::ImportParquet(bytes, path);
  } catch (const FormatError& e) {
    const bool bitset_size = !bytes.empty() && bytes.size() % kParquetBlockBytes == 0 &&
                             bytes.size() / kParquetBlockBytes <= Traits(Layout::kSplit256).max_blocks;
    if (!bitset_size) throw;
    try {
      ParseParquetHeader(bytes, path);
    } catch (const FormatError&) {
      std::string msg = e.what();
      if (msg.starts_with("blockbloom: ")) msg.erase(0, 12);
      Fail(msg + "; if FILE is a bare bitset (no Thrift header), import it with --bytes " +
           std::to_string(bytes.size()));
    }
    throw;
  }
}

}  // namespace

int Build(int argc, char** argv) {
  const Args args(argc, argv, {"layout", "n", "fpr", "bits-per-key", "bytes", "k", "hash", "seed", "keys", "key-width", "o"});
  args.ExpectPositionals(0, 0, "no positional arguments");
  const std::string out = args.Require("o");
  LayoutArg(args);  // usage errors before reading a possibly large input
  HashArg(args);
  if (args.Has("n")) args.OptU64("n", 1, kMaxKeys);
  const Keys keys(args);
  Sizing sizing;
  Filter f = SizedFilter(args, keys.count(), &sizing);
  Progress progress("build", keys.count());
  keys.ForEachBatch([&](std::span<const std::string_view> batch) {
    f.InsertBatch(batch);
    progress.Add(batch.size());
  });
  SaveFilter(f, out);
  std::printf("%s: %s\n", out.c_str(), Describe(f).c_str());
  // More keys than sized for: say so when the rate asked for is now missed
  // by more than a factor of two (the filter is still written).
  if (sizing.fpr && f.inserted() > sizing.n) {
    const double now = PredictFpr(f.layout(), f.num_blocks(), f.k(), f.inserted());
    if (now > 2 * *sizing.fpr)
      std::fprintf(stderr,
                   "blockbloom build: warning: %llu keys went into a filter sized for --n %llu: its predicted "
                   "false-positive rate is now %s, more than twice the --fpr %s asked for\n",
                   static_cast<unsigned long long>(f.inserted()), static_cast<unsigned long long>(sizing.n),
                   FormatReal(now).c_str(), FormatReal(*sizing.fpr).c_str());
  }
  return 0;
}

int Query(int argc, char** argv) {
  const Args args(argc, argv, {"keys", "key-width", "output"});
  args.ExpectPositionals(1, 1, "FILTER");
  const std::string mode = args.GetOr("output", "bits");
  if (mode != "bits" && mode != "hits" && mode != "count")
    throw UsageError("--output = '" + mode + "' is unknown: expected bits, hits or count");
  const Filter view = LoadFilter(args.positionals()[0]);  // a validated copy: no SIGBUS if the file shrinks
  const Keys keys(args);
  std::vector<uint8_t> answers(kBatchKeys);
  uint64_t total = 0;
  std::string text;
  keys.ForEachBatch([&](std::span<const std::string_view> batch) {
    total += view.MayContainBatch(batch, answers);
    if (mode == "count") return;
    text.clear();
    for (size_t i = 0; i < batch.size(); ++i) {
      if (mode == "bits") {
        text += answers[i] ? "1\n" : "0\n";
      } else if (answers[i]) {
        text += batch[i];
        if (keys.width() == 0) text += '\n';  // fixed-width hits stay raw records
      }
    }
    WriteOut(text);
  });
  if (mode == "count") std::printf("%llu\n", static_cast<unsigned long long>(total));
  if (std::fflush(stdout) != 0) Fail(std::string("cannot write to standard output: ") + std::strerror(errno));
  return 0;
}

int Stats(int argc, char** argv) {
  const Args args(argc, argv, {"format"});
  args.ExpectPositionals(1, 1, "FILTER");
  const std::string format = args.GetOr("format", "text");
  if (format != "text" && format != "json") throw UsageError("--format = '" + format + "' is unknown: expected text or json");
  const std::string path = args.positionals()[0];
  const Filter v = LoadFilter(path);  // a validated copy: no SIGBUS if the file shrinks
  const uint64_t set = v.PopCount();
  const double fill = static_cast<double>(set) / static_cast<double>(v.bit_count());
  // See fold.h: n ~ ln(1 - X/m) / ln(1 - q), q the chance one key sets a given bit
  // (classic: Swamidass & Baldi, -(m/k) ln(1 - X/m)).
  const double est = EstimateDistinctKeys(v.layout(), v.num_blocks(), v.k(), set);
  const char* estimator = v.layout() == Layout::kClassic
                              ? "Swamidass & Baldi: -(m/k) ln(1 - X/m)"
                              : "inverted expected fill: ln(1 - X/m) / ln(1 - q), q = chance one key sets a given bit";
  // Beyond kMaxKeysPerBit keys per bit the filter answers yes to nearly
  // everything: 1 is the rate, and the model is not asked (its cost grows
  // with keys per block).
  const double max_keys = static_cast<double>(v.bit_count()) * kMaxKeysPerBit;
  auto rate = [&](double keys) { return ModelRate(v, keys); };
  const bool overloaded = static_cast<double>(v.inserted()) > max_keys;
  const double fpr = rate(est);  // the model's rate for the distinct keys the fill suggests
  const double fpr_inserted = rate(static_cast<double>(v.inserted()));
  const std::string overload_note =
      "the header claims " + std::to_string(v.inserted()) + " keys, more than " + std::to_string(kMaxKeysPerBit) +
      " per bit of this " + std::to_string(v.bit_count()) +
      "-bit filter: it cannot meaningfully hold them (the rate is 1 to within 0.1%; the model is not evaluated)";
  if (format == "json") {
    std::printf(
        "{\"file\": \"%s\", \"format_version\": %u, \"layout\": \"%s\", \"blocks\": %llu, \"bits\": %llu, "
        "\"bytes\": %llu, \"k\": %u, \"hash\": \"%s\", \"seed\": %llu, \"keys_inserted\": %llu, "
        "\"bits_set\": %llu, \"fill_ratio\": %s, \"estimated_distinct_keys\": %s, \"estimator\": \"%s\", "
        "\"predicted_fpr\": %s, \"predicted_fpr_at_inserted\": %s, \"overloaded\": %s%s%s%s}\n",
        JsonEscape(path).c_str(), kFormatVersion, std::string(LayoutName(v.layout())).c_str(),
        static_cast<unsigned long long>(v.num_blocks()), static_cast<unsigned long long>(v.bit_count()),
        static_cast<unsigned long long>(v.byte_size()), v.k(), std::string(HashName(v.hash_kind())).c_str(),
        static_cast<unsigned long long>(v.seed()), static_cast<unsigned long long>(v.inserted()),
        static_cast<unsigned long long>(set), JsonNumber(fill).c_str(), JsonNumber(est).c_str(), estimator,
        JsonNumber(fpr).c_str(), JsonNumber(fpr_inserted).c_str(), overloaded ? "true" : "false",
        overloaded ? ", \"note\": \"" : "", overloaded ? JsonEscape(overload_note).c_str() : "", overloaded ? "\"" : "");
    return 0;
  }
  std::printf("file            %s (format version %u)\n", path.c_str(), kFormatVersion);
  std::printf("layout          %s\n", std::string(LayoutName(v.layout())).c_str());
  std::printf("blocks          %llu\n", static_cast<unsigned long long>(v.num_blocks()));
  std::printf("bits            %llu\n", static_cast<unsigned long long>(v.bit_count()));
  std::printf("bytes           %llu\n", static_cast<unsigned long long>(v.byte_size()));
  std::printf("k               %u\n", v.k());
  std::printf("hash            %s, seed %llu\n", std::string(HashName(v.hash_kind())).c_str(),
              static_cast<unsigned long long>(v.seed()));
  std::printf("keys inserted   %llu\n", static_cast<unsigned long long>(v.inserted()));
  std::printf("bits set        %llu\n", static_cast<unsigned long long>(set));
  std::printf("fill ratio      %.6f\n", fill);
  std::printf("distinct keys   %.0f (estimated from the fill; %s)\n", est, estimator);
  std::printf("fpr now         %.6g (model at the estimated distinct keys; %.6g at keys inserted)\n", fpr, fpr_inserted);
  if (overloaded) std::printf("overloaded      %s\n", overload_note.c_str());
  return 0;
}

namespace {
// merge and intersect: two compatible filters combined by `op` into OUT (saved
// atomically, as every command saves), refused with the reason otherwise.
int Combine(int argc, char** argv, const char* verb, void (Filter::*op)(const FilterView&)) {
  const Args args(argc, argv, {"o"});
  args.ExpectPositionals(2, 2, "two filters A B");
  const std::string out = args.Require("o");
  const std::string& a_path = args.positionals()[0];
  const std::string& b_path = args.positionals()[1];
  Filter a = LoadFilter(a_path);
  const Filter b = LoadFilter(b_path);
  std::string why;
  if (!a.CompatibleWith(b, &why)) Fail(std::string("cannot ") + verb + " " + a_path + " and " + b_path + ": " + why);
  (a.*op)(b);
  SaveFilter(a, out);
  std::printf("%s: %s\n", out.c_str(), Describe(a).c_str());
  return 0;
}
}  // namespace

// Union: keys inserted add up, saturating (two files of 2^63 keys do not make 0).
int Merge(int argc, char** argv) { return Combine(argc, argv, "merge", &Filter::UnionWith); }

// Bitwise AND (filter.h IntersectWith: every key of both still found, the rate
// at most either input's; not the filter of the intersection set). The
// distinct-keys estimate from the fill is printed beside it by Describe / stats.
int Intersect(int argc, char** argv) { return Combine(argc, argv, "intersect", &Filter::IntersectWith); }

int Fold(int argc, char** argv) {
  const Args args(argc, argv, {"o"});
  args.ExpectPositionals(1, 1, "FILTER");
  const std::string out = args.Require("o");
  const Filter f = LoadFilter(args.positionals()[0]);
  if (!CanFold(f))
    Fail("cannot fold " + args.positionals()[0] + ": " + std::to_string(f.num_blocks()) +
         " " + std::string(LayoutUnitName(f.layout())) + " is odd: expected an even number");
  const Filter folded = [&] {
    try {
      return blockbloom::Fold(f);
    } catch (const std::bad_alloc&) {
      Fail("out of memory: cannot allocate " + std::to_string(f.byte_size() / 2) + " bytes for the folded filter");
    }
  }();
  SaveFilter(folded, out);
  std::printf("%s: %s\n", out.c_str(), Describe(folded).c_str());
  // The same keys in half the bits: the model's rate before and after.
  const double keys = static_cast<double>(f.inserted());
  const double before = ModelRate(f, keys), after = ModelRate(folded, keys);
  std::printf("predicted false-positive rate at %llu keys: %.4g%% before, %.4g%% after (exact model)\n",
              static_cast<unsigned long long>(f.inserted()), 100 * before, 100 * after);
  if (after > 2 * before)
    std::fprintf(stderr,
                 "blockbloom fold: warning: the predicted false-positive rate rises from %.4g%% to %.4g%%, more "
                 "than twice: %llu keys in half the bits\n",
                 100 * before, 100 * after, static_cast<unsigned long long>(f.inserted()));
  return 0;
}

int ImportParquet(int argc, char** argv) {
  const Args args(argc, argv, {"bytes", "o"});
  args.ExpectPositionals(1, 1, "a Parquet Bloom filter FILE");
  const std::string out = args.Require("o");
  const std::string path = args.positionals()[0];
  const std::string data = ReadInput(path);
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  Filter f = [&] {
    try {
      if (!args.Has("bytes")) return ImportWithHeader(bytes, path);
      const uint64_t n = *args.OptU64("bytes", 1);
      if (n != bytes.size())
        Fail(path + ": " + std::to_string(bytes.size()) + " bytes: expected the bare bitset of --bytes " +
             std::to_string(n));
      return ImportParquetBitset(bytes, path);
    } catch (const std::bad_alloc&) {
      Fail("out of memory: cannot allocate " + std::to_string(bytes.size()) + " bytes for the imported filter");
    }
  }();
  SaveFilter(f, out);
  std::printf("%s: %s\n", out.c_str(), Describe(f).c_str());
  return 0;
}

int ExportParquet(int argc, char** argv) {
  const Args args(argc, argv, {"o"}, {"with-header"});
  args.ExpectPositionals(1, 1, "FILTER");
  const std::string out = args.Require("o");
  const std::string path = args.positionals()[0];
  const Filter f = LoadFilter(path);
  std::string why;
  if (!IsParquetCompatible(f, &why)) Fail("cannot export " + path + " as a Parquet split-block Bloom filter: " + why);
  const std::span<const uint8_t> bitset = ParquetBitset(f);
  std::vector<uint8_t> header;
  if (args.Has("with-header")) header = ParquetHeaderBytes(static_cast<uint32_t>(bitset.size()));
  const std::span<const uint8_t> parts[] = {header, bitset};
  WriteFileAtomic(out, parts);
  std::printf("%s: %zu-byte bitset%s\n", out.c_str(), bitset.size(),
              args.Has("with-header") ? " after a Thrift-compact BloomFilterHeader" : "");
  return 0;
}

}  // namespace blockbloom::cli
