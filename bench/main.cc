// SPDX-License-Identifier: Apache-2.0
// blockbloom_bench: every suite in one binary, registered programmatically so
// each row's name carries its layout, size, key type, mode and target.
//
//   blockbloom_bench [--bb_preset=quick|default|full|boost] [--bb_hash=xxh3|xxh64|mulx|rocksdb|aes] [Google Benchmark flags]
// --bb_hash: blockbloom's key hash in the Boost.Bloom pairs (default xxh3), and in
// the prefetch preset's rows.
//
// Presets (tools/scripts/bench.sh picks one; docs/benchmarks.md lists their run times):
//   quick    the speed-target points only (1M, 10M, 100M keys at 10 bits/key), a few minutes
//   default  the matrix at 10 bits/key (32 KiB .. 1 GiB) plus 8 and 16 bits/key up to
//            256 MiB and URL keys up to 10M: about 10-15 minutes, peak memory ~2 GiB
//   full     every layout x size x bits/key x key type x op x mode x target x threads: hours
//   prefetch each layout's insert and queries at 10 bits/key (u64 keys), every row twice
//            side by side, with prefetch forced on ("batchpf") and off ("batchnopf"), over
//            --bb_sizes=LIST (filter sizes such as 256KiB,1.5MiB,4MiB; default 128 KiB to
//            4 MiB) on --bb_target=NAME (default the best supported): the sweep behind
//            kernels::PrefetchMinBytes (bench/results/prefetch_threshold_zen4.md), whose
//            table report.py prints. About 10 s a size and repetition.
// Custom context in the JSON (read by tools/scripts/report.py): CPU model, compiler,
// compiled and supported targets, transparent huge pages, and the model's
// false-positive curve per layout.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "blockbloom/targets.h"
#include "blockbloom/model.h"
#include "kernels/kernels.h"

namespace blockbloom::bench {
namespace {

// The prefetch preset's sizes and target (--bb_sizes, --bb_target).
std::vector<SizeSpec> g_sweep_sizes;
std::string g_sweep_target;

const SizeSpec kL1{"32KiB", uint64_t{32} << 10, 0};
const SizeSpec kL2{"1MiB", uint64_t{1} << 20, 0};
const SizeSpec kLlc{"16MiB", uint64_t{16} << 20, 0};
const SizeSpec kDram256{"256MiB", uint64_t{256} << 20, 0};
const SizeSpec kDram1G{"1GiB", uint64_t{1} << 30, 0};
const SizeSpec k1M{"1Mkeys", 0, 1'000'000};
const SizeSpec k10M{"10Mkeys", 0, 10'000'000};
const SizeSpec k100M{"100Mkeys", 0, 100'000'000};

// What one (key type, bits/key, size) group registers, per layout and beside it.
struct GroupRows {
  std::vector<Op> best{};       // batched, on the best supported target
  std::vector<Op> sweep{};      // batched, on every other supported target and the reference
  std::vector<Op> reference{};  // batched, on the scalar reference only (when no sweep)
  std::vector<Op> perkey{};     // the per-key API
  bool threads2 = false;      // 2-thread queries and atomic inserts (and their 1-thread twins)
  bool floor = true;          // floor_read and floor_rmw
  bool hash = true;           // hash-only
  std::vector<Op> peer{};       // libbloom
};

const std::vector<Op> kAllQueries = {Op::kInsert, Op::kQueryPresent, Op::kQueryAbsent, Op::kQueryMix};

struct Targets {
  std::string best;
  std::vector<std::string> others;  // other supported targets, then "reference"
};

Targets FindTargets() {
  Targets t;
  for (const TargetInfo& info : CompiledTargets()) {
    if (!info.supported) continue;
    if (t.best.empty()) {
      t.best = std::string(info.name);
    } else {
      t.others.emplace_back(info.name);
    }
  }
  t.others.emplace_back("reference");
  return t;
}

class Planner {
 public:
  explicit Planner(Targets t) : t_(std::move(t)) {}

  void Group(KeyType kt, uint32_t bpk, const SizeSpec& size, const GroupRows& g) {
    const bool u64 = kt == KeyType::kU64;  // reference and atomic rows take uint64 keys only
    for (Layout layout : kAllLayouts) {
      const std::string ln(LayoutName(layout));
      auto add = [&](Op op, Mode mode, const std::string& target, int threads) {
        rows_.push_back({op, ln, bpk, size, kt, mode, target, threads});
      };
      for (Op op : g.best) add(op, Mode::kBatch, t_.best, 1);
      for (Op op : g.sweep)
        for (const std::string& target : t_.others)
          if (u64 || target != "reference") add(op, Mode::kBatch, target, 1);
      if (u64)
        for (Op op : g.reference) add(op, Mode::kBatch, "reference", 1);
      for (Op op : g.perkey) add(op, Mode::kPerKey, "any", 1);
      if (g.threads2 && u64) {
        add(Op::kInsertAtomic, Mode::kBatch, t_.best, 1);
        add(Op::kInsertAtomic, Mode::kBatch, t_.best, 2);
        add(Op::kQueryPresent, Mode::kBatch, t_.best, 2);
        add(Op::kQueryAbsent, Mode::kBatch, t_.best, 2);
      }
    }
    auto side = [&](Op op, const std::string& layout, Mode mode, const std::string& target, int threads) {
      rows_.push_back({op, layout, bpk, size, kt, mode, target, threads});
    };
    if (g.floor) {
      for (Op op : {Op::kFloorRead, Op::kFloorRmw}) {
        side(op, "floor", Mode::kBatch, "auto", 1);
        if (g.threads2) side(op, "floor", Mode::kBatch, "auto", 2);
      }
    }
    if (g.hash) side(Op::kHash, "hash", Mode::kBatch, "auto", 1);
    for (Op op : g.peer) side(op, "libbloom", Mode::kPerKey, "c", 1);
  }

  const std::vector<RowSpec>& rows() const { return rows_; }

 private:
  Targets t_;
  std::vector<RowSpec> rows_;
};

std::vector<RowSpec> Plan(const std::string& preset) {
  Planner p(FindTargets());
  const KeyType u64 = KeyType::kU64, url = KeyType::kUrl;
  const Op ins = Op::kInsert, qp = Op::kQueryPresent, qa = Op::kQueryAbsent;
  if (preset == "quick") {
    p.Group(u64, 10, kL1, {.best = kAllQueries, .reference = {ins, qa}, .perkey = {qa}});
    p.Group(u64, 10, k1M, {.best = kAllQueries, .sweep = {ins, qa}, .perkey = {ins, qa}, .peer = {ins, qa}});
    p.Group(u64, 10, k10M, {.best = kAllQueries, .reference = {ins, qa}, .perkey = {qa}, .peer = {ins, qp, qa}});
    p.Group(u64, 10, k100M, {.best = kAllQueries, .reference = {ins, qa}, .threads2 = true});
    for (uint32_t bpk : {8u, 16u}) p.Group(u64, bpk, k1M, {.best = {ins, qa}, .floor = false, .hash = false});
    p.Group(url, 10, k10M, {.best = {ins, qa}, .perkey = {qa}, .peer = {qa}});
  } else if (preset == "default") {
    for (const SizeSpec& s : {kL1, kL2, k1M, k10M, kLlc, k100M, kDram256, kDram1G}) {
      const bool sweep = s.label == "1Mkeys" || s.label == "100Mkeys";
      GroupRows g{.best = kAllQueries, .perkey = {ins, qp, qa}, .peer = {ins, qp, qa}};
      (sweep ? g.sweep : g.reference) = kAllQueries;
      g.threads2 = s.label == "10Mkeys" || s.label == "100Mkeys" || s.label == "1GiB";
      p.Group(u64, 10, s, g);
    }
    for (uint32_t bpk : {8u, 16u})
      for (const SizeSpec& s : {kL1, kL2, kLlc, kDram256})
        p.Group(u64, bpk, s, {.best = {ins, qp, qa}, .hash = false, .peer = {qa}});
    for (const SizeSpec& s : {kL1, k1M, k10M})
      p.Group(url, 10, s, {.best = kAllQueries, .perkey = {qa}, .peer = {ins, qa}});
    for (uint32_t bpk : {8u, 16u}) p.Group(url, bpk, k1M, {.best = {qa}, .floor = false, .hash = false});
  } else if (preset == "full") {
    const std::vector<Op> every = {ins, Op::kInsertAtomic, qp, qa, Op::kQueryMix};
    for (uint32_t bpk : {8u, 10u, 16u}) {
      for (const SizeSpec& s : {kL1, kL2, k1M, k10M, kLlc, k100M, kDram256, kDram1G}) {
        p.Group(u64, bpk, s, {.best = kAllQueries, .sweep = kAllQueries, .perkey = every, .threads2 = true,
                              .peer = kAllQueries});
        if (s.label != "1GiB")  // 858M+ URLs would take ~90 s to generate per layout
          p.Group(url, bpk, s, {.best = kAllQueries, .perkey = kAllQueries, .peer = kAllQueries});
      }
    }
  } else if (preset == "prefetch") {
    const std::string target = g_sweep_target.empty() ? FindTargets().best : g_sweep_target;
    std::vector<RowSpec> rows;
    for (const SizeSpec& s : g_sweep_sizes)
      for (Layout layout : kAllLayouts)
        for (Op op : {ins, qp, qa})
          for (Mode mode : {Mode::kBatchPrefetch, Mode::kBatchNoPrefetch})
            rows.push_back({op, std::string(LayoutName(layout)), 10, s, u64, mode, target, 1});
    return rows;
  } else {
    throw std::invalid_argument("blockbloom: --bb_preset = '" + preset +
                                "' is unknown: expected quick, default, full, boost or prefetch");
  }
  return p.rows();
}

// --bb_target: a compiled SIMD target this CPU supports (the sweep times the
// kernels' pipeline, which the scalar reference does not run), by its canonical name.
void CheckSweepTarget() {
  if (g_sweep_target.empty()) return;
  try {
    PinTarget(g_sweep_target);
  } catch (const std::invalid_argument& e) {  // it names the targets this CPU supports
    std::string why = e.what();
    if (why.rfind("blockbloom: ", 0) == 0) why.erase(0, 12);
    throw std::invalid_argument("blockbloom: --bb_target: " + why);
  }
  g_sweep_target = std::string(ActiveTarget());
  PinTarget("auto");
}

// --bb_sizes: "256KiB,1.5MiB,..." (a positive number, then KiB, MiB or GiB).
std::vector<SizeSpec> ParseSizes(const std::string& list) {
  std::vector<SizeSpec> sizes;
  size_t begin = 0;
  while (begin <= list.size()) {
    const size_t end = std::min(list.find(',', begin), list.size());
    const std::string item = list.substr(begin, end - begin);
    char* unit = nullptr;
    const double value = std::strtod(item.c_str(), &unit);
    const std::string u = unit != nullptr ? unit : "";
    const double scale = u == "KiB" ? 1024.0 : u == "MiB" ? 1024.0 * 1024 : u == "GiB" ? 1024.0 * 1024 * 1024 : 0;
    const double bytes = value * scale;
    if (scale == 0 || unit == item.c_str() || !(bytes >= 1024) || bytes > 64.0 * 1024 * 1024 * 1024)
      throw std::invalid_argument("blockbloom: --bb_sizes item '" + item +
                                  "': expected a size from 1KiB to 64GiB, a number then KiB, MiB or GiB "
                                  "(e.g. 256KiB,1.5MiB)");
    sizes.push_back({item, static_cast<uint64_t>(bytes), 0});
    begin = end + 1;
  }
  return sizes;
}

std::string ReadFirst(const char* path, const std::string& prefix) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (prefix.empty()) return line;
    if (line.rfind(prefix, 0) == 0) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown";
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out.push_back(' ');
    out.append(p);
  }
  return out;
}

void AddContext(const std::string& preset) {
  benchmark::AddCustomContext("bb_preset", preset);
  benchmark::AddCustomContext("bb_hash", std::string(HashName(PairHash())));
  benchmark::AddCustomContext("cpu_model", ReadFirst("/proc/cpuinfo", "model name"));
  std::string flags = " ";
  flags.append(ReadFirst("/proc/cpuinfo", "flags")).append(" ");
  std::vector<std::string> simd;
  for (std::string f : {"sse4_2", "avx2", "avx512f", "avx512vl", "avx512bw"})
    if (flags.find(" " + f + " ") != std::string::npos) simd.push_back(f);
  benchmark::AddCustomContext("cpu_flags_simd", Join(simd));
#if defined(__clang__)
  benchmark::AddCustomContext("compiler", std::string("clang ") + __clang_version__);
#elif defined(__GNUC__)
  benchmark::AddCustomContext("compiler", std::string("g++ ") + __VERSION__);
#endif
  benchmark::AddCustomContext("loadavg_at_start", ReadFirst("/proc/loadavg", ""));
  benchmark::AddCustomContext("thp", ReadFirst("/sys/kernel/mm/transparent_hugepage/enabled", ""));
  std::vector<std::string> compiled, supported;
  for (const TargetInfo& t : CompiledTargets()) {
    compiled.emplace_back(t.name);
    if (t.supported) supported.emplace_back(t.name);
  }
  benchmark::AddCustomContext("targets_compiled", Join(compiled));
  benchmark::AddCustomContext("targets_supported", Join(supported));
  // The batches' look-ahead of each target this CPU runs, "avx2:128 sse4:128"
  // (kernels/pipeline-inl.h kPrefetchDistance); the floor rows take the same.
  std::vector<std::string> ahead;
  for (const kernels::Ops* ops : kernels::CompiledTargets())
    if (kernels::Supported(*ops)) ahead.push_back(std::string(ops->name) + ":" + std::to_string(ops->look_ahead));
  benchmark::AddCustomContext("look_ahead", Join(ahead));
  // The model's rate against bits/key, n = 1M keys, each layout at its best k
  // for the size (what GetFilter builds): "bpk:fpr:k,..." for the report's plot.
  constexpr uint64_t kCurveKeys = 1'000'000;
  for (Layout layout : kAllLayouts) {
    std::ostringstream curve;
    for (uint32_t bpk = 4; bpk <= 24; ++bpk) {
      const uint64_t block = LayoutBlockBits(layout);
      const uint64_t blocks = (kCurveKeys * bpk + block - 1) / block;
      const FilterParams best = SolveForSize(layout, blocks, kCurveKeys);
      curve << (bpk > 4 ? "," : "") << bpk << ":" << PredictFpr(layout, blocks, best.k, kCurveKeys) << ":" << best.k;
    }
    benchmark::AddCustomContext("model_fpr/" + std::string(LayoutName(layout)), curve.str());
  }
}

}  // namespace
}  // namespace blockbloom::bench

int main(int argc, char** argv) {
  namespace bb = blockbloom::bench;
  std::string preset = "default";
  bool sizes_given = false;
  std::string sizes = "128KiB,256KiB,384KiB,512KiB,768KiB,1MiB,1.5MiB,2MiB,2.5MiB,3MiB,4MiB";
  // Our flags first, then the defaults we choose, then the user's Google Benchmark
  // flags (a later flag wins, so the user can override the defaults).
  std::vector<char*> args = {argv[0]};
  std::vector<std::string> owned;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--bb_preset=", 12) == 0) {
      preset = argv[i] + 12;
    } else if (std::strncmp(argv[i], "--bb_sizes=", 11) == 0) {
      sizes = argv[i] + 11;
      sizes_given = true;
    } else if (std::strncmp(argv[i], "--bb_target=", 12) == 0) {
      bb::g_sweep_target = argv[i] + 12;
    } else if (std::strncmp(argv[i], "--bb_hash=", 10) == 0) {
      try {
        bb::SetPairHash(blockbloom::HashFromName(argv[i] + 10, "--bb_hash"));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "blockbloom: %s\n", e.what());
        return 2;
      }
    } else {
      owned.emplace_back(argv[i]);
    }
  }
  const char* min_time = preset == "quick" || preset == "boost" || preset == "prefetch" ? "--benchmark_min_time=0.05"
                         : preset == "full" ? "--benchmark_min_time=0.2"
                                            : "--benchmark_min_time=0.1";
  owned.insert(owned.begin(), min_time);
  for (std::string& s : owned) args.push_back(s.data());
  int n = static_cast<int>(args.size());
  try {
    if (preset == "prefetch") {
      bb::g_sweep_sizes = bb::ParseSizes(sizes);
      bb::SetRowHash(bb::PairHash());
      bb::CheckSweepTarget();
    } else if (sizes_given || !bb::g_sweep_target.empty()) {
      throw std::invalid_argument("blockbloom: --bb_sizes and --bb_target apply to --bb_preset=prefetch only");
    }
    if (preset == "boost") bb::RegisterBoostPairs();
    for (const bb::RowSpec& row : preset == "boost" ? std::vector<bb::RowSpec>{} : bb::Plan(preset)) {
      if (row.layout == "floor" || row.layout == "hash") {
        bb::RegisterFloorRow(row);
      } else if (row.layout == "libbloom") {
#ifdef BLOCKBLOOM_HAVE_LIBBLOOM
        bb::RegisterPeerRow(row);
#endif
      } else {
        bb::RegisterFilterRow(row);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
  bb::AddContext(preset);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
