// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the blockbloom benchmark binary: the row plan, key
// generation, probe pools, the huge-page buffer and the one-slot caches that
// hold the filled filter of the rows being run.
//
// Honest-measurement rules every suite follows (issue 5):
//  * keys are generated outside the timed region (pools built before the loop;
//    the filter is filled in the untimed set-up of the first row that needs it);
//  * probe pools are as large as the filter's key count, up to a cap far past the
//    last-level cache (kPoolCapU64, kPoolCapUrl), walked in order and never a small
//    set reused: at DRAM sizes each pass touches millions of distinct lines;
//  * results go through benchmark::DoNotOptimize; every row reports
//    items_per_second (keys/s), and query_absent rows the measured false-positive
//    rate beside the exact model's (blockbloom::PredictFpr).
#ifndef BLOCKBLOOM_BENCH_BENCH_COMMON_H_
#define BLOCKBLOOM_BENCH_BENCH_COMMON_H_

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blockbloom/hash.h"
#include "blockbloom/filter.h"
#include "blockbloom/layout.h"

namespace blockbloom::bench {

// ---- Row plan -------------------------------------------------------------------

enum class KeyType { kU64, kUrl };
enum class Op {
  kInsert,
  kInsertAtomic,
  kQueryPresent,
  kQueryAbsent,
  kQueryMix,
  kFloorRead,
  kFloorRmw,
  kFloorLine,
  kHash,
  // floor_call (uint64 keys, Mode::kPerKey): one call per key through a
  // function pointer to a function that reads no memory (bench/floor_bench.cc);
  // what no run-time dispatched per-key call can beat.
  kFloorCall,
};
// kTyped: one key at a time through blockbloom/typed.h (bench/typed_rows.h).
// kTypedFold: the same loop with one folded multiply of the key as its hash
// (Boost.Bloom's mulx64 mixing of integer keys, the shortest hash chain there
// is): a reference for the per-key rows, not a filter (no hash kind is one
// fold: on sequential keys it leaves the model, tests/verify/fpr_test.cc).
// kPerCall (Boost.Bloom's rows only): its per-key insert / may_contain behind
// one out-of-line call per key, as a run-time dispatched library makes: a
// reference for kPerKey, what one call a key costs with Boost's own probe.
// kBatchPrefetch / kBatchNoPrefetch ("batchpf" / "batchnopf", --bb_preset=prefetch):
// batches with prefetch forced on / off (kernels::SetPrefetchPolicy) for the row's runs.
// kBuffered (inserts, ours): the per-key loop through a BufferedInserter
// (blockbloom/inserter.h), its keys (uint64 keys; strings hashed at Insert)
// written in batches of kCapacity on the row's target, as the batch rows.
enum class Mode { kBatch, kPerKey, kTyped, kTypedFold, kPerCall, kBatchPrefetch, kBatchNoPrefetch, kBuffered };

// A filter size: either a byte budget (the cache-level sizes of the issue: the
// key count is then bytes * 8 / bpk) or a key count (the speed targets' 1M, 10M,
// 100M keys: the filter then has keys * bpk bits).
struct SizeSpec {
  std::string label;  // "32KiB", "1GiB", "1Mkeys", ...
  uint64_t bytes = 0;  // 0 when given by keys
  uint64_t keys = 0;   // 0 when given by bytes
  uint64_t KeysAt(uint32_t bpk) const { return keys != 0 ? keys : bytes * 8 / bpk; }
  uint64_t BitsAt(uint32_t bpk) const { return keys != 0 ? keys * bpk : bytes * 8; }
};

// One benchmark row. Its name, parsed back by tools/scripts/report.py, is
//   op/layout/<bpk>bpk/<size>/<keys>/<mode>/<target>[/real_time][/threads:N]
// where layout is a filter layout, "libbloom", "floor" or "hash", and target is a
// Highway target name ("avx2", ...), "reference" (the scalar reference Ops table),
// "any" (per-key rows: the per-key API does not dispatch) or "c" (libbloom).
struct RowSpec {
  Op op;
  std::string layout;  // LayoutName, "libbloom", "floor", "hash"
  uint32_t bpk;
  SizeSpec size;
  KeyType keys;
  Mode mode;
  std::string target;
  int threads = 1;
  std::string Name() const;
};

std::string_view OpName(Op op);
std::string_view KeyTypeName(KeyType t);

// ---- Keys ------------------------------------------------------------------------

// Key domains: a key is a bijective mix of (index, domain), so present and absent
// keys can never coincide.
enum class Domain : uint64_t { kPresent = 0, kAbsent = 1 };

// SplitMix64's finalizer (Steele, Lea & Flood 2014): a bijection of 64-bit words
// whose output passes BigCrush for a counter input.
constexpr uint64_t Mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}
// The i-th uint64 key of a domain: Mix64 of the pair packed into one word (the
// two low bits hold the domain), distinct for every (i, domain) with i < 2^62.
constexpr uint64_t U64Key(Domain d, uint64_t i) { return Mix64((i << 2) | static_cast<uint64_t>(d)); }

// URL-like string keys of 30..80 bytes: "https://" + one of a few short hosts +
// "/" + a domain letter and the index in hex (so keys are distinct) + "/" and
// random lower-case path bytes up to a length drawn uniformly from [30, 80].
struct UrlSet {
  std::string arena;
  std::vector<std::string_view> views;
  size_t size() const { return views.size(); }
};
// Appends the URL of key (d, i) to `arena`.
void AppendUrl(Domain d, uint64_t i, std::string& arena);
// The n URLs key(0..n), key(j) giving the (domain, index) of URL j.
UrlSet MakeUrls(size_t n, const std::function<std::pair<Domain, uint64_t>(size_t)>& key);

// ---- Probe pools ---------------------------------------------------------------
// Largest pool: 16M uint64 keys = 128 MiB, 4x this machine's 32 MiB L3; URL pools
// 4M keys (~220 MiB of bytes plus 64 MiB of views).
inline constexpr uint64_t kPoolCapU64 = uint64_t{16} << 20;
inline constexpr uint64_t kPoolCapUrl = uint64_t{4} << 20;
// Keys handed to one batch call per benchmark iteration: 64K keys (512 KiB of
// u64) keeps the kernel's 128-key prefetch ramp below 0.2% of the keys while one
// iteration stays well under a millisecond at L1 speed.
inline constexpr size_t kIterKeys = size_t{1} << 16;

// The key hash of blockbloom's side in the Boost.Bloom pairs (--bb_hash;
// default xxh3, the library's default).
HashKind PairHash();
void SetPairHash(HashKind h);
// The key hash of the other filter rows: xxh3, but --bb_hash in the prefetch
// preset, whose thresholds then follow the pairs' hash.
HashKind RowHash();
void SetRowHash(HashKind h);

// The three probe sets of a filter holding keys U64Key(kPresent, 0..n):
// present = inserted keys at random indices (with replacement); absent = fresh
// keys of the absent domain; mix = a 50/50 random interleave of the two.
struct Pools {
  KeyType type;
  uint64_t n;
  std::vector<uint64_t> present, absent, mix;  // kU64
  UrlSet present_s, absent_s, mix_s;           // kUrl
  size_t size() const { return type == KeyType::kU64 ? present.size() : present_s.size(); }
};
std::shared_ptr<const Pools> GetPools(KeyType type, uint64_t n);
// Keys in each of GetPools(type, n)'s pools: n, at least kIterKeys, at most the cap.
size_t PoolCount(KeyType type, uint64_t n);

// ---- Filters ------------------------------------------------------------------------

struct FilterCtx {
  std::unique_ptr<Filter> filter;
  uint64_t n = 0;           // keys inserted
  double model_fpr = 0;     // PredictFpr at n
};
// The filter of layout x bpk x n holding U64Key/URL(kPresent, 0..n), k the model's
// best for that size (SolveForSize), filled with the best target's batch insert.
std::shared_ptr<FilterCtx> GetFilter(Layout layout, uint32_t bpk, uint64_t n, KeyType type);

// ---- Huge-page buffers ---------------------------------------------------------------
// Allocated like engine/src/filter.cc allocates a filter: from 2 MiB on, an
// mmap aligned to 2 MiB with madvise(MADV_HUGEPAGE); smaller, aligned_alloc(64).
// Every page is written at construction (an untouched anonymous page reads as
// the shared zero page, which would make a read floor cache-resident).
class HugeBuffer {
 public:
  explicit HugeBuffer(uint64_t bytes);
  ~HugeBuffer();
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;
  uint8_t* data() const { return p_; }
  uint64_t bytes() const { return bytes_; }

 private:
  uint8_t* p_ = nullptr;
  uint64_t bytes_ = 0;
  bool mmapped_ = false;
};

// ---- One-slot cache --------------------------------------------------------------
// Rows are registered grouped by what they share, so keeping only the last value
// bounds memory (one filter of at most 1 GiB at a time) without rebuilding per row.
// Thread-safe: the threads of a multi-threaded row all get the same value.
template <typename T>
class OneSlot {
 public:
  std::shared_ptr<T> Get(const std::string& key, const std::function<std::shared_ptr<T>()>& make) {
    std::lock_guard<std::mutex> lock(mu_);
    if (key != key_ || value_ == nullptr) {
      value_.reset();  // free the old value before building the new one
      value_ = make();
      key_ = key;
    }
    return value_;
  }

 private:
  std::mutex mu_;
  std::string key_;
  std::shared_ptr<T> value_;
};

// ---- Helpers -------------------------------------------------------------------------

// Walks thread t's slice [size t/T, size (t+1)/T) of a pool in chunks of at most
// kIterKeys keys, wrapping around at the slice's end, and counts the keys handed out.
class PoolWalker {
 public:
  PoolWalker(size_t size, const benchmark::State& st)
      : begin_(size * static_cast<size_t>(st.thread_index()) / static_cast<size_t>(st.threads())),
        end_(size * static_cast<size_t>(st.thread_index() + 1) / static_cast<size_t>(st.threads())),
        cur_(begin_) {}
  struct Chunk {
    size_t begin, len;
  };
  Chunk Next() {
    const Chunk c{cur_, std::min(kIterKeys, end_ - cur_)};
    cur_ += c.len;
    if (cur_ == end_) cur_ = begin_;
    keys_ += c.len;
    return c;
  }
  uint64_t keys() const { return keys_; }

 private:
  size_t begin_, end_, cur_;
  uint64_t keys_ = 0;
};

// Sets the common counters: items processed, and for absent queries the measured
// false-positive rate (hits / probes) beside the model's.
void FinishRow(benchmark::State& st, uint64_t keys, uint64_t hits, const RowSpec& row, double model_fpr);

// Pins `target` (a Highway target name) for the row; a no-op for "any", "c",
// "reference" and "auto".
void PinFor(const std::string& target);

// Registers `row` with Google Benchmark (real time, row.threads threads), running
// u64(st, row) or url(st, row) by the row's key type.
using RowFn = void (*)(benchmark::State&, const RowSpec&);
void RegisterRow(const RowSpec& row, RowFn u64, RowFn url);

// Registration entry points, one per suite file.
void RegisterFilterRow(const RowSpec& row);
void RegisterFloorRow(const RowSpec& row);
void RegisterPeerRow(const RowSpec& row);  // bench/peer_bench.cc, built only with libbloom
// --bb_preset=boost: the Boost.Bloom pairs side by side (bench/pair_bench.cc);
// without Boost, blockbloom's rows only and a one-line notice.
void RegisterBoostPairs();

}  // namespace blockbloom::bench

#endif  // BLOCKBLOOM_BENCH_BENCH_COMMON_H_
