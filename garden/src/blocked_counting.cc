// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "blockbloom/garden/blocked_counting.h"
#include "blockbloom/garden/multiset.h"  // CounterTailExact
#include "garden/src/internal.h"
#include "engine/src/hash_inline.h"
#include "engine/src/memory.h"
#include "engine/src/model_internal.h"
#include "kernels/counting.h"
#include "kernels/kernels.h"

namespace blockbloom::garden {

using detail::CheckOpen;
using detail::CheckRange;
using detail::Invalid;
using detail::ThrowMovedFrom;
namespace kc = kernels::counting;

static_assert(BlockedCountingFilter::kCountersPerBlock == kc::kCounters);
static_assert(BlockedCountingFilter::kMaxK == kc::kMaxK);
static_assert(BlockedCountingFilter::kMaxBlocks == kc::kMaxBlocks);
static_assert(BlockedCountingFilter::kBlockBytes == kc::kLineBytes);

// ---- Model ------------------------------------------------------------------------

namespace {

constexpr double kB = BlockedCountingFilter::kCountersPerBlock;

// f_block(i) for k probes anywhere in B = 128 counters (see the header): the
// engine's "k bits anywhere" block (engine/src/model_internal.h, as blocked512
// with B = 128) plus the 32-bit probe word term.
class AnywhereBlock128 {
 public:
  explicit AnywhereBlock128(uint32_t k) : block_(k, BlockedCountingFilter::kCountersPerBlock) {}
  double operator()(uint64_t i) const { return detail::WithProbeWordCollisions(block_(i), i); }

 private:
  detail::AnywhereBlock block_;
};

void CheckShape(uint64_t num_blocks, uint32_t k) {
  CheckRange("num_blocks", num_blocks, 1, BlockedCountingFilter::kMaxBlocks);
  CheckRange("k", k, 1, BlockedCountingFilter::kMaxK);
}

}  // namespace

double BlockedCountingBlockFpr(uint32_t k, uint64_t i) {
  CheckShape(1, k);
  return AnywhereBlock128(k)(i);
}

double BlockedCountingFpr(uint64_t num_blocks, uint32_t k, uint64_t n) {
  CheckShape(num_blocks, k);
  if (n == 0) return 0.0;
  const AnywhereBlock128 block(k);
  if (num_blocks == 1) return block(n);
  // The engine's model: the block is picked from the hash's high 32 bits as the
  // filter's are (two classes of blocks, model.h "Block selection"), each
  // class's load mixture capped and totaled the same way (at most ~20k block
  // rates for any n up to 2^64 - 1, and 1 from 65536 keys a block on).
  return detail::SelectedBlocksMixture(block, num_blocks, n, detail::kBlockSelectBits);
}

double BlockedCountingCounterTail(uint64_t num_blocks, uint32_t k, uint64_t n, uint64_t j) {
  CheckShape(num_blocks, k);
  // One key hits a given counter with probability q / blocks, q = 1 - (1 - 1/128)^k:
  // Binomial(n, q / blocks), which CounterTailExact computes as Binomial(n * 1, 1 / m).
  const double q = -std::expm1(k * std::log1p(-1.0 / kB));
  return CounterTailExact(static_cast<double>(num_blocks) / q, static_cast<double>(n), 1.0, j);
}

double BlockedCountingSaturation(uint64_t num_blocks, uint32_t k, uint64_t n) {
  return BlockedCountingCounterTail(num_blocks, k, n, BlockedCountingFilter::kMaxCount);
}

BlockedCountingParams SolveBlockedCounting(uint64_t n, double fpr) {
  CheckRange("n", n, 1, UINT64_MAX);
  CheckOpen("fpr", fpr, 0.0, 1.0);
  BlockedCountingParams best{0, 0, 1.0};
  for (uint32_t k = 1; k <= BlockedCountingFilter::kMaxK; ++k) {
    // The rate falls as blocks are added: double, then bisect, for the fewest blocks.
    uint64_t hi = 1;
    while (hi < BlockedCountingFilter::kMaxBlocks && BlockedCountingFpr(hi, k, n) > fpr) hi *= 2;
    if (BlockedCountingFpr(hi, k, n) > fpr) continue;
    uint64_t lo = hi / 2 + 1;
    if (hi == 1) lo = 1;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (BlockedCountingFpr(mid, k, n) <= fpr) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const double rate = BlockedCountingFpr(hi, k, n);
    if (best.num_blocks == 0 || hi < best.num_blocks || (hi == best.num_blocks && rate < best.fpr)) best = {hi, k, rate};
  }
  if (best.num_blocks == 0)
    Invalid("fpr = " + std::to_string(fpr) + " at n = " + std::to_string(n) +
            " keys is beyond any blocked counting filter of at most 2^32 blocks: expected a larger fpr");
  return best;
}

// ---- The filter ----------------------------------------------------------------------

BlockedCountingFilter::BlockedCountingFilter(uint64_t num_blocks, uint32_t k, HashKind hash, uint64_t seed)
    : num_blocks_(num_blocks), k_(k), hasher_{hash, seed} {
  CheckShape(num_blocks, k);
  const detail::LineMemory m = detail::AllocateLines(byte_size());
  lines_ = m.data;
  mapped_ = m.mapped;
}

BlockedCountingFilter BlockedCountingFilter::ForKeys(uint64_t n, double fpr, HashKind hash, uint64_t seed) {
  const BlockedCountingParams p = SolveBlockedCounting(n, fpr);
  return BlockedCountingFilter(p.num_blocks, p.k, hash, seed);
}

// A copy of an empty (moved-from) filter is empty too.
BlockedCountingFilter::BlockedCountingFilter(const BlockedCountingFilter& o)
    : num_blocks_(o.num_blocks_), k_(o.k_), hasher_(o.hasher_), inserted_(o.inserted_), saturations_(o.saturations_) {
  if (o.empty()) return;
  const detail::LineMemory m = detail::AllocateLines(byte_size());
  lines_ = m.data;
  mapped_ = m.mapped;
  std::memcpy(lines_, o.lines_, byte_size());
}

BlockedCountingFilter& BlockedCountingFilter::operator=(const BlockedCountingFilter& o) {
  if (this != &o) {
    BlockedCountingFilter copy(o);
    *this = std::move(copy);
  }
  return *this;
}

BlockedCountingFilter::BlockedCountingFilter(BlockedCountingFilter&& o) noexcept
    : num_blocks_(std::exchange(o.num_blocks_, 0)), k_(o.k_), hasher_(o.hasher_), lines_(std::exchange(o.lines_, nullptr)),
      mapped_(std::exchange(o.mapped_, false)), inserted_(std::exchange(o.inserted_, 0)),
      saturations_(std::exchange(o.saturations_, 0)) {}

BlockedCountingFilter& BlockedCountingFilter::operator=(BlockedCountingFilter&& o) noexcept {
  if (this != &o) {
    if (lines_ != nullptr) detail::FreeLines({lines_, byte_size(), mapped_});
    num_blocks_ = std::exchange(o.num_blocks_, 0);
    k_ = o.k_;
    hasher_ = o.hasher_;
    lines_ = std::exchange(o.lines_, nullptr);
    mapped_ = std::exchange(o.mapped_, false);
    inserted_ = std::exchange(o.inserted_, 0);
    saturations_ = std::exchange(o.saturations_, 0);
  }
  return *this;
}

BlockedCountingFilter::~BlockedCountingFilter() {
  if (lines_ != nullptr) detail::FreeLines({lines_, byte_size(), mapped_});
}

namespace {
kc::CountingRef Ref(uint8_t* lines, uint64_t num_blocks, uint32_t k) { return {lines, num_blocks, k}; }

void CheckOutSize(size_t n, size_t out) {
  if (out < n)
    Invalid("output span holds " + std::to_string(out) + " entries: expected at least " + std::to_string(n) +
            " (one per key)");
}

// Keys are hashed in chunks of this many (8 KiB of hashes: stays in L1 while
// the kernels run over it).
constexpr size_t kHashChunk = 1024;
}  // namespace

// Single keys go through the active target's kernels as batches of one (the
// scalar reference is the tests' oracle, not a hot path).
// A moved-from filter (no lines) never reaches the kernels: its writes throw
// and its queries answer 0 here.
void BlockedCountingFilter::InsertHash(uint64_t hash) {
  if (empty()) ThrowMovedFrom("blocked counting filter");
  saturations_ += kc::ActiveCounting().insert(Ref(lines_, num_blocks_, k_), &hash, 1);
  ++inserted_;
}
bool BlockedCountingFilter::RemoveHash(uint64_t hash) {
  if (empty()) ThrowMovedFrom("blocked counting filter");
  uint8_t r = 0;
  kc::ActiveCounting().remove(Ref(lines_, num_blocks_, k_), &hash, 1, &r);
  inserted_ -= r && inserted_ > 0;
  return r != 0;
}
bool BlockedCountingFilter::MayContainHash(uint64_t hash) const {
  if (empty()) return false;
  uint8_t r = 0;
  kc::ActiveCounting().query(Ref(lines_, num_blocks_, k_), &hash, 1, &r);
  return r != 0;
}
uint32_t BlockedCountingFilter::CountHash(uint64_t hash) const {
  if (empty()) return 0;
  uint8_t r = 0;
  kc::ActiveCounting().count(Ref(lines_, num_blocks_, k_), &hash, 1, &r);
  return r;
}

void BlockedCountingFilter::InsertHashBatch(std::span<const uint64_t> hashes) {
  if (empty()) ThrowMovedFrom("blocked counting filter");
  saturations_ += kc::ActiveCounting().insert(Ref(lines_, num_blocks_, k_), hashes.data(), hashes.size());
  inserted_ += hashes.size();
}
size_t BlockedCountingFilter::RemoveHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> removed) {
  CheckOutSize(hashes.size(), removed.size());
  if (empty()) ThrowMovedFrom("blocked counting filter");
  const size_t r = kc::ActiveCounting().remove(Ref(lines_, num_blocks_, k_), hashes.data(), hashes.size(), removed.data());
  inserted_ -= std::min<uint64_t>(inserted_, r);
  return r;
}
size_t BlockedCountingFilter::MayContainHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> out) const {
  CheckOutSize(hashes.size(), out.size());
  if (empty()) {
    std::fill_n(out.begin(), hashes.size(), uint8_t{0});
    return 0;
  }
  return kc::ActiveCounting().query(Ref(lines_, num_blocks_, k_), hashes.data(), hashes.size(), out.data());
}
void BlockedCountingFilter::CountHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> out) const {
  CheckOutSize(hashes.size(), out.size());
  if (empty()) {
    std::fill_n(out.begin(), hashes.size(), uint8_t{0});
    return;
  }
  kc::ActiveCounting().count(Ref(lines_, num_blocks_, k_), hashes.data(), hashes.size(), out.data());
}

// Calls f(hashes, offset) for each chunk of hashed keys.
template <typename F>
void BlockedCountingFilter::EachChunk(std::span<const uint64_t> keys, F&& f) const {
  alignas(64) uint64_t buf[kHashChunk];
  for (size_t start = 0; start < keys.size(); start += kHashChunk) {
    const size_t len = std::min(kHashChunk, keys.size() - start);
    kernels::Active().hash_u64(keys.data() + start, len, hasher_.seed, hasher_.kind, buf);  // SIMD XXH3, AES-NI
    f(std::span<const uint64_t>(buf, len), start);
  }
}

template <typename F>
void BlockedCountingFilter::EachChunk(std::span<const std::string_view> keys, F&& f) const {
  alignas(64) uint64_t buf[kHashChunk];
  for (size_t start = 0; start < keys.size(); start += kHashChunk) {
    const size_t len = std::min(kHashChunk, keys.size() - start);
    for (size_t i = 0; i < len; ++i) {
      const std::string_view k = keys[start + i];
      buf[i] = detail::HashBytesInline(k.data(), k.size(), hasher_.kind, hasher_.seed);
    }
    f(std::span<const uint64_t>(buf, len), start);
  }
}

void BlockedCountingFilter::InsertBatch(std::span<const uint64_t> keys) {
  EachChunk(keys, [&](std::span<const uint64_t> h, size_t) { InsertHashBatch(h); });
}
void BlockedCountingFilter::InsertBatch(std::span<const std::string_view> keys) {
  EachChunk(keys, [&](std::span<const uint64_t> h, size_t) { InsertHashBatch(h); });
}
size_t BlockedCountingFilter::RemoveBatch(std::span<const uint64_t> keys, std::span<uint8_t> removed) {
  CheckOutSize(keys.size(), removed.size());
  size_t n = 0;
  EachChunk(keys, [&](std::span<const uint64_t> h, size_t at) { n += RemoveHashBatch(h, removed.subspan(at, h.size())); });
  return n;
}
size_t BlockedCountingFilter::MayContainBatch(std::span<const uint64_t> keys, std::span<uint8_t> out) const {
  CheckOutSize(keys.size(), out.size());
  size_t n = 0;
  EachChunk(keys, [&](std::span<const uint64_t> h, size_t at) { n += MayContainHashBatch(h, out.subspan(at, h.size())); });
  return n;
}
size_t BlockedCountingFilter::MayContainBatch(std::span<const std::string_view> keys, std::span<uint8_t> out) const {
  CheckOutSize(keys.size(), out.size());
  size_t n = 0;
  EachChunk(keys, [&](std::span<const uint64_t> h, size_t at) { n += MayContainHashBatch(h, out.subspan(at, h.size())); });
  return n;
}
void BlockedCountingFilter::CountBatch(std::span<const uint64_t> keys, std::span<uint8_t> out) const {
  CheckOutSize(keys.size(), out.size());
  EachChunk(keys, [&](std::span<const uint64_t> h, size_t at) { CountHashBatch(h, out.subspan(at, h.size())); });
}
void BlockedCountingFilter::CountBatch(std::span<const std::string_view> keys, std::span<uint8_t> out) const {
  CheckOutSize(keys.size(), out.size());
  EachChunk(keys, [&](std::span<const uint64_t> h, size_t at) { CountHashBatch(h, out.subspan(at, h.size())); });
}

void BlockedCountingFilter::MergeFrom(const BlockedCountingFilter& o) {
  if (empty()) ThrowMovedFrom("blocked counting filter");
  auto differ = [&](const char* field, uint64_t x, uint64_t y) {
    Invalid(std::string("cannot merge blocked counting filters: ") + field + " differs (" + std::to_string(x) +
            " vs " + std::to_string(y) + "): expected equal parameters");
  };
  if (num_blocks_ != o.num_blocks_) differ("num_blocks", num_blocks_, o.num_blocks_);
  if (k_ != o.k_) differ("k", k_, o.k_);
  if (hasher_.kind != o.hasher_.kind)
    differ("hash", static_cast<uint64_t>(hasher_.kind), static_cast<uint64_t>(o.hasher_.kind));
  if (hasher_.seed != o.hasher_.seed) differ("seed", hasher_.seed, o.hasher_.seed);
  // Nibble-wise saturating add, one byte (two counters) at a time.
  for (uint64_t i = 0; i < byte_size(); ++i) {
    const uint32_t a = lines_[i], b = o.lines_[i];
    const uint32_t lo = std::min<uint32_t>((a & 0xF) + (b & 0xF), kMaxCount);
    const uint32_t hi = std::min<uint32_t>((a >> 4) + (b >> 4), kMaxCount);
    lines_[i] = static_cast<uint8_t>(lo | (hi << 4));
  }
  inserted_ += o.inserted_;
  saturations_ += o.saturations_;
}

void BlockedCountingFilter::Clear() {
  if (!empty()) std::memset(lines_, 0, byte_size());
  inserted_ = saturations_ = 0;
}

bool BlockedCountingFilter::operator==(const BlockedCountingFilter& o) const {
  return num_blocks_ == o.num_blocks_ && k_ == o.k_ && hasher_.kind == o.hasher_.kind && hasher_.seed == o.hasher_.seed &&
         empty() == o.empty() && (empty() || std::memcmp(lines_, o.lines_, byte_size()) == 0);
}

uint64_t BlockedCountingFilter::SaturatedCells() const {
  uint64_t n = 0;
  for (uint64_t i = 0; i < byte_size(); ++i) n += ((lines_[i] & 0xF) == 0xF) + ((lines_[i] >> 4) == 0xF);
  return n;
}
uint64_t BlockedCountingFilter::NonZeroCells() const {
  uint64_t n = 0;
  for (uint64_t i = 0; i < byte_size(); ++i) n += ((lines_[i] & 0xF) != 0) + ((lines_[i] >> 4) != 0);
  return n;
}
uint32_t BlockedCountingFilter::CounterAt(uint64_t i) const { return (lines_[i / 2] >> (4 * (i % 2))) & 0xF; }

double BlockedCountingFilter::Fpr(uint64_t n) const { return empty() ? 0.0 : BlockedCountingFpr(num_blocks_, k_, n); }

}  // namespace blockbloom::garden
