// The file commands: build, query, stats, merge, fold, import-parquet,
// export-parquet. Every output file is written atomically (format.h), so a
// failing command leaves no partial file behind.
//
// Keys: from --keys FILE (or stdin when absent or "-"), either lines split on
// '\n' only and never trimmed (a trailing '\r' or space is part of the key; a
// final '\n' ends the last key, it does not start an empty one), or with
// --key-width W fixed-width binary records of W bytes. Keys are hashed as their
// raw bytes, so an 8-byte record equals Filter::Insert(uint64_t) of its
// little-endian value.
#include <fcntl.h>
#include <unistd.h>

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
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/fold.h"
#include "blockbloom/format.h"
#include "blockbloom/layout.h"
#include "blockbloom/model.h"
#include "blockbloom/parquet.h"
#include "tools/blockbloom/args.h"
#include "tools/blockbloom/commands.h"

namespace blockbloom::cli {
namespace {

// Keys per batch handed to the kernels: 64K string_views (1 MiB) plus their
// answers stay in L2 while the pipeline works through them.
constexpr size_t kBatchKeys = 1 << 16;
// The progress bar appears for inputs of at least this many keys (about a
// second of work or more) and only when stderr is a terminal.
constexpr size_t kProgressMinKeys = size_t{1} << 22;
// Read size for inputs.
constexpr size_t kReadChunk = size_t{1} << 20;

[[noreturn]] void Fail(const std::string& msg) { throw std::runtime_error("blockbloom: " + msg); }

std::string ReadInput(const std::optional<std::string>& path) {
  const bool use_stdin = !path || *path == "-";
  const std::string label = use_stdin ? "<stdin>" : *path;
  const int fd = use_stdin ? 0 : ::open(path->c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail(label + ": cannot open: " + std::strerror(errno));
  std::string data;
  std::vector<char> buf(kReadChunk);
  for (;;) {
    const ssize_t r = ::read(fd, buf.data(), buf.size());
    if (r < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      if (!use_stdin) ::close(fd);
      Fail(label + ": cannot read: " + std::strerror(e));
    }
    if (r == 0) break;
    data.append(buf.data(), static_cast<size_t>(r));
  }
  if (!use_stdin) ::close(fd);
  return data;
}

// The keys of an input, as views into its bytes.
class Keys {
 public:
  Keys(const Args& args) : data_(ReadInput(args.Get("keys"))) {
    label_ = args.GetOr("keys", "-") == "-" ? "<stdin>" : *args.Get("keys");
    width_ = args.U64("key-width", 0, 1, uint64_t{1} << 20);
    if (width_ > 0) {
      if (data_.size() % width_ != 0)
        Fail(label_ + ": byte " + std::to_string(data_.size() - data_.size() % width_) + ": last record has " +
             std::to_string(data_.size() % width_) + " bytes: expected whole records of --key-width " +
             std::to_string(width_) + " bytes");
      count_ = data_.size() / width_;
    } else {
      count_ = 0;
      for (char c : data_) count_ += c == '\n';
      if (!data_.empty() && data_.back() != '\n') ++count_;
    }
  }
  size_t count() const { return count_; }
  size_t width() const { return width_; }

  // Calls fn(batch) with spans of at most kBatchKeys keys, in order.
  template <typename Fn>
  void ForEachBatch(Fn&& fn) const {
    std::vector<std::string_view> batch;
    batch.reserve(kBatchKeys);
    const std::string_view all(data_);
    size_t pos = 0;
    while (pos < all.size()) {
      size_t len = width_;
      size_t next = pos + width_;
      if (width_ == 0) {
        const size_t nl = all.find('\n', pos);
        len = (nl == std::string_view::npos ? all.size() : nl) - pos;
        next = pos + len + 1;
      }
      batch.push_back(all.substr(pos, len));
      pos = next;
      if (batch.size() == kBatchKeys) {
        fn(std::span<const std::string_view>(batch));
        batch.clear();
      }
    }
    if (!batch.empty()) fn(std::span<const std::string_view>(batch));
  }

 private:
  std::string data_;
  std::string label_;
  size_t width_ = 0;
  size_t count_ = 0;
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

Layout LayoutArg(const Args& args) {
  const std::string name = args.Require("layout");
  if (auto l = ParseLayout(name)) return *l;
  std::string known;
  for (Layout l : kAllLayouts) known += (known.empty() ? "" : ", ") + std::string(LayoutName(l));
  throw UsageError("--layout = '" + name + "' is unknown: expected one of " + known);
}

HashKind HashArg(const Args& args) {
  const std::string name = args.GetOr("hash", "xxh3");
  if (auto h = ParseHash(name)) return *h;
  throw UsageError("--hash = '" + name + "' is unknown: expected xxh3 or xxh64");
}

// The fewest blocks whose model rate for n keys at this k is at most fpr: the
// rate falls as blocks grow, so double up to a bracket, then bisect.
uint64_t BlocksForFpr(Layout layout, uint32_t k, uint64_t n, double fpr) {
  const uint64_t max_blocks = layout == Layout::kClassic ? uint64_t{1} << 40 : uint64_t{1} << 32;
  uint64_t hi = 1;
  while (PredictFpr(layout, hi, k, n) > fpr) {
    if (hi >= max_blocks)
      throw UsageError("--fpr = " + std::to_string(fpr) + " is out of reach with --k " + std::to_string(k) +
                       " for " + std::to_string(n) + " keys within the layout's size limit");
    hi = std::min(hi * 2, max_blocks);
  }
  uint64_t lo = hi / 2;  // rate(lo) > fpr unless lo == 0
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (PredictFpr(layout, mid, k, n) <= fpr ? hi : lo) = mid;
  }
  return hi;
}

Filter SizedFilter(const Args& args, uint64_t key_count) {
  const Layout layout = LayoutArg(args);
  const HashKind hash = HashArg(args);
  const uint64_t seed = args.U64("seed", 0);
  const int modes = args.Has("fpr") + args.Has("bits-per-key") + args.Has("bytes");
  if (modes != 1) throw UsageError("give exactly one of --fpr (with --n), --bits-per-key or --bytes");
  const uint64_t n = args.Has("n") ? *args.OptU64("n", 1) : key_count;
  const std::optional<uint64_t> k_arg = args.OptU64("k", 1, 64);
  if (k_arg && !LayoutAcceptsK(layout, static_cast<uint32_t>(*k_arg)))
    throw UsageError("--k = " + std::to_string(*k_arg) + " is out of range for layout " +
                     std::string(LayoutName(layout)) + ": expected " + std::to_string(LayoutMinK(layout)) + ".." +
                     std::to_string(LayoutMaxK(layout)) +
                     (layout == Layout::kSectorized512 ? " and a power of two" : ""));
  if (args.Has("fpr")) {
    const double fpr = *args.OptDouble("fpr");
    if (!(fpr > 0 && fpr < 1)) throw UsageError("--fpr = " + *args.Get("fpr") + " is out of range: expected (0, 1)");
    if (n == 0) throw UsageError("--n is required with --fpr when the input holds no keys");
    if (!k_arg) return Filter::ForKeys(layout, n, fpr, hash, seed);
    const auto k = static_cast<uint32_t>(*k_arg);
    return Filter::WithBlocks(layout, BlocksForFpr(layout, k, n, fpr), k, hash, seed);
  }
  uint64_t bits = 0;
  if (args.Has("bits-per-key")) {
    const double bpk = *args.OptDouble("bits-per-key");
    if (!(bpk > 0)) throw UsageError("--bits-per-key = " + *args.Get("bits-per-key") + " is out of range: expected > 0");
    if (n == 0) throw UsageError("--n is required with --bits-per-key when the input holds no keys");
    bits = static_cast<uint64_t>(std::ceil(bpk * static_cast<double>(n)));
  } else {
    bits = *args.OptU64("bytes", 1, uint64_t{1} << 40) * 8;
  }
  uint32_t k = k_arg ? static_cast<uint32_t>(*k_arg) : 0;
  if (!k_arg) {
    // The best k for the size and the expected keys (the model's optimum).
    const uint64_t block = LayoutBlockBits(layout);
    k = SolveForSize(layout, (bits + block - 1) / block, std::max<uint64_t>(n, 1)).k;
  }
  return Filter::WithBits(layout, bits, k, hash, seed);
}

std::string Describe(const Filter& f) {
  return std::string(LayoutName(f.layout())) + ", " + std::to_string(f.num_blocks()) +
         (f.layout() == Layout::kClassic ? " bits" : " blocks") + ", k = " + std::to_string(f.k()) + ", " +
         std::to_string(f.byte_size()) + " bytes, hash " + std::string(HashName(f.hash_kind())) + " seed " +
         std::to_string(f.seed()) + ", " + std::to_string(f.inserted()) + " keys";
}

void WriteOut(const std::string& s) {
  if (!s.empty() && std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) Fail("cannot write to stdout");
}

// A JSON string literal's body: quotes, backslashes and control bytes escaped.
std::string JsonEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string JsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

}  // namespace

int Build(int argc, char** argv) {
  const Args args(argc, argv, {"layout", "n", "fpr", "bits-per-key", "bytes", "k", "hash", "seed", "keys", "key-width", "o"});
  args.ExpectPositionals(0, 0, "no positional arguments");
  const std::string out = args.Require("o");
  LayoutArg(args);  // usage errors before reading a possibly large input
  HashArg(args);
  const Keys keys(args);
  Filter f = SizedFilter(args, keys.count());
  Progress progress("build", keys.count());
  keys.ForEachBatch([&](std::span<const std::string_view> batch) {
    f.InsertBatch(batch);
    progress.Add(batch.size());
  });
  SaveFilter(f, out);
  std::printf("%s: %s\n", out.c_str(), Describe(f).c_str());
  return 0;
}

int Query(int argc, char** argv) {
  const Args args(argc, argv, {"keys", "key-width", "output"});
  args.ExpectPositionals(1, 1, "FILTER");
  const std::string mode = args.GetOr("output", "bits");
  if (mode != "bits" && mode != "hits" && mode != "count")
    throw UsageError("--output = '" + mode + "' is unknown: expected bits, hits or count");
  const MappedFilter view = MappedFilter::Open(args.positionals()[0]);
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
  if (std::fflush(stdout) != 0) Fail("cannot write to stdout");
  return 0;
}

int Stats(int argc, char** argv) {
  const Args args(argc, argv, {"format"});
  args.ExpectPositionals(1, 1, "FILTER");
  const std::string format = args.GetOr("format", "text");
  if (format != "text" && format != "json") throw UsageError("--format = '" + format + "' is unknown: expected text or json");
  const std::string path = args.positionals()[0];
  const MappedFilter v = MappedFilter::Open(path);
  const uint64_t set = v.PopCount();
  const double fill = static_cast<double>(set) / static_cast<double>(v.bit_count());
  // See fold.h: n ~ ln(1 - X/m) / ln(1 - q), q the chance one key sets a given bit
  // (classic: Swamidass & Baldi, -(m/k) ln(1 - X/m)).
  const double est = EstimateDistinctKeys(v.layout(), v.num_blocks(), v.k(), set);
  const char* estimator = v.layout() == Layout::kClassic
                              ? "Swamidass & Baldi: -(m/k) ln(1 - X/m)"
                              : "inverted expected fill: ln(1 - X/m) / ln(1 - q), q = chance one key sets a given bit";
  // The model's rate for the distinct keys the fill suggests (a full filter: 1).
  const double fpr = std::isfinite(est) ? PredictFpr(v.layout(), v.num_blocks(), v.k(), std::llround(est)) : 1.0;
  const double fpr_inserted = PredictFpr(v.layout(), v.num_blocks(), v.k(), v.inserted());
  if (format == "json") {
    std::printf(
        "{\"file\": \"%s\", \"format_version\": %u, \"layout\": \"%s\", \"blocks\": %llu, \"bits\": %llu, "
        "\"bytes\": %llu, \"k\": %u, \"hash\": \"%s\", \"seed\": %llu, \"keys_inserted\": %llu, "
        "\"bits_set\": %llu, \"fill_ratio\": %s, \"estimated_distinct_keys\": %s, \"estimator\": \"%s\", "
        "\"predicted_fpr\": %s, \"predicted_fpr_at_inserted\": %s}\n",
        JsonEscape(path).c_str(), kFormatVersion, std::string(LayoutName(v.layout())).c_str(),
        static_cast<unsigned long long>(v.num_blocks()), static_cast<unsigned long long>(v.bit_count()),
        static_cast<unsigned long long>(v.byte_size()), v.k(), std::string(HashName(v.hash_kind())).c_str(),
        static_cast<unsigned long long>(v.seed()), static_cast<unsigned long long>(v.inserted()),
        static_cast<unsigned long long>(set), JsonNumber(fill).c_str(), JsonNumber(est).c_str(), estimator,
        JsonNumber(fpr).c_str(), JsonNumber(fpr_inserted).c_str());
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
  return 0;
}

int Merge(int argc, char** argv) {
  const Args args(argc, argv, {"o"});
  args.ExpectPositionals(2, 2, "two filters A B");
  const std::string out = args.Require("o");
  const std::string& a_path = args.positionals()[0];
  const std::string& b_path = args.positionals()[1];
  Filter a = LoadFilter(a_path);
  const Filter b = LoadFilter(b_path);
  std::string why;
  if (!a.CompatibleWith(b, &why)) Fail("cannot merge " + a_path + " and " + b_path + ": " + why);
  a.UnionWith(b);
  SaveFilter(a, out);
  std::printf("%s: %s\n", out.c_str(), Describe(a).c_str());
  return 0;
}

int Fold(int argc, char** argv) {
  const Args args(argc, argv, {"o"});
  args.ExpectPositionals(1, 1, "FILTER");
  const std::string out = args.Require("o");
  const Filter f = LoadFilter(args.positionals()[0]);
  if (!CanFold(f))
    Fail("cannot fold " + args.positionals()[0] + ": " + std::to_string(f.num_blocks()) +
         (f.layout() == Layout::kClassic ? " bits" : " blocks") + " is odd: expected an even number");
  const Filter folded = blockbloom::Fold(f);
  SaveFilter(folded, out);
  std::printf("%s: %s\n", out.c_str(), Describe(folded).c_str());
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
    if (!args.Has("bytes")) return blockbloom::ImportParquet(bytes, path);
    const uint64_t n = *args.OptU64("bytes", 1);
    if (n != bytes.size())
      Fail(path + ": " + std::to_string(bytes.size()) + " bytes: expected the bare bitset of --bytes " +
           std::to_string(n));
    return ImportParquetBitset(bytes, path);
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
