// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <bit>
#include <cmath>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "blockbloom/garden/common.h"
#include "garden/src/internal.h"
#include "kernels/common.h"

namespace blockbloom::detail {

void CheckRange(const char* what, uint64_t value, uint64_t lo, uint64_t hi) {
  if (value >= lo && value <= hi) return;
  Invalid(std::string(what) + " = " + std::to_string(value) + " is out of range: expected " + std::to_string(lo) +
          ".." + std::to_string(hi));
}

void CheckOpen(const char* what, double value, double lo, double hi) {
  if (value > lo && value < hi) return;  // false for NaN too
  Invalid(std::string(what) + " = " + std::to_string(value) + " is out of range: expected " + std::to_string(lo) +
          " < " + what + " < " + std::to_string(hi));
}

void ThrowMovedFrom(const char* what) {
  throw std::logic_error(std::string("blockbloom: this ") + what + " was moved from: it is empty and cannot be "
                         "written; assign a " + what + " to it first");
}

}  // namespace blockbloom::detail

namespace blockbloom::garden {
namespace {
// SplitMix64 constants (Steele, Lea & Flood 2014; Vigna's splitmix64.c):
// the increment is floor(2^64 / phi), the two multipliers are Stafford's Mix13.
constexpr uint64_t kGolden64 = 0x9e3779b97f4a7c15ULL;
constexpr uint64_t kMix13A = 0xbf58476d1ce4e5b9ULL;
constexpr uint64_t kMix13B = 0x94d049bb133111ebULL;

uint64_t Mix13(uint64_t z) {
  z = (z ^ (z >> 30)) * kMix13A;
  z = (z ^ (z >> 27)) * kMix13B;
  return z ^ (z >> 31);
}
}  // namespace

Probes ProbeCells(uint64_t hash, uint32_t k, uint64_t cells) {
  // Same scheme as the classic layout (kernels/common.h): g_i = h1 + i h2 mod
  // 2^64 with h2 odd, so the g_i are distinct; cell = fastrange(g_i, cells).
  Probes p;
  const uint64_t step = kernels::ClassicStep(hash);
  uint64_t g = hash;
  for (uint32_t i = 0; i < k; ++i, g += step) {
    const uint64_t c = kernels::ClassicIndex(g, cells);
    if (std::find(p.cell.begin(), p.cell.begin() + p.count, c) == p.cell.begin() + p.count) p.cell[p.count++] = c;
  }
  return p;
}

uint64_t DeriveHash(uint64_t hash, uint32_t i) { return i == 0 ? hash : Mix13(hash + i * kGolden64); }

uint64_t FastRange64(uint64_t x, uint64_t n) { return kernels::ClassicIndex(x, n); }

uint64_t SplitMix64::Next() {
  state_ += kGolden64;
  return Mix13(state_);
}

PackedCounters::PackedCounters(uint64_t cells, uint32_t width, std::string_view what)
    : cells_(cells), width_(width), mask_(0) {
  // A cap that keeps cells * width within 64 bits with room: 2^58 bits = 32 PiB.
  constexpr uint64_t kMaxCells = uint64_t{1} << 52;
  detail::CheckRange(std::string(what).c_str(), cells, 1, kMaxCells);
  if (width == 0 || width > 32 || !std::has_single_bit(width))
    detail::Invalid("counter width = " + std::to_string(width) + " bits is not supported: expected 1, 2, 4, 8, 16 or 32");
  mask_ = (uint64_t{1} << width) - 1;
  const uint64_t words = (cells * width + 63) / 64;
  try {
    words_.assign(words, 0);
  } catch (const std::bad_alloc&) {
    throw std::runtime_error("blockbloom: out of memory: cannot allocate " + std::to_string(words * 8) + " bytes for " +
                             std::to_string(cells) + " " + std::to_string(width) + "-bit counters");
  }
}

PackedCounters::PackedCounters(PackedCounters&& o) noexcept
    : cells_(std::exchange(o.cells_, 0)), width_(o.width_), mask_(o.mask_), words_(std::move(o.words_)) {
  o.words_.clear();
}

PackedCounters& PackedCounters::operator=(PackedCounters&& o) noexcept {
  if (this != &o) {
    cells_ = std::exchange(o.cells_, 0);
    width_ = o.width_;
    mask_ = o.mask_;
    words_ = std::move(o.words_);
    o.words_.clear();
  }
  return *this;
}

uint64_t PackedCounters::CountEqual(uint64_t v) const {
  uint64_t n = 0;
  for (uint64_t i = 0; i < cells_; ++i) n += Get(i) == v;
  return n;
}

void PackedCounters::Clear() { std::fill(words_.begin(), words_.end(), 0); }

}  // namespace blockbloom::garden
