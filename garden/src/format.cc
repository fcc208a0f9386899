// SPDX-License-Identifier: Apache-2.0
// The garden file (garden/include/blockbloom/garden/format.h): writer, the
// validating reader, and each variant's parameters and payload.
#include "blockbloom/garden/format.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "blockbloom/model.h"
#include "engine/src/bytes.h"
#include "engine/src/filter_access.h"
#include "engine/src/path.h"
#include "kernels/common.h"

namespace blockbloom::garden {

static_assert(std::endian::native == std::endian::little,
              "garden files store 64-bit words little-endian as in memory");

namespace {

// Header field offsets (the table in blockbloom/garden/format.h).
constexpr size_t kOffMagic = 0;
constexpr size_t kOffVersion = 8;
constexpr size_t kOffType = 12;
constexpr size_t kOffHash = 13;
constexpr size_t kOffReserved16 = 14;
constexpr size_t kOffSeed = 16;
constexpr size_t kOffParamBytes = 24;
constexpr size_t kOffPayloadBytes = 32;
constexpr size_t kOffChecksum = 40;
constexpr size_t kOffReserved48 = 48;
static_assert(kOffReserved48 + 16 == kGardenHeaderBytes);

using detail::Hex;
using detail::LoadLE;
using detail::StoreLE;
std::string Real(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// XXH3-64 (seed 0) of the header's first 40 bytes, then everything after the
// header (the filter file's checksum, over this header's prefix).
uint64_t Checksum(const uint8_t* header, const uint8_t* body, uint64_t body_bytes) {
  return detail::HeaderBodyChecksum(header, kOffChecksum, body, body_bytes);
}

// ---- Writing -------------------------------------------------------------------------

class Writer {
 public:
  void Param(uint64_t v) { params_.push_back(v); }
  void ParamReal(double v) { params_.push_back(std::bit_cast<uint64_t>(v)); }
  void Words(std::span<const uint64_t> w) { payload_.insert(payload_.end(), w.begin(), w.end()); }
  void Bytes(const uint8_t* p, uint64_t n) {  // n a multiple of 8
    const size_t at = payload_.size();
    payload_.resize(at + n / 8);
    std::memcpy(payload_.data() + at, p, n);
  }

  std::vector<uint8_t> Finish(GardenType type, const KeyHasher& h) const {
    const uint64_t pbytes = params_.size() * 8, qbytes = payload_.size() * 8;
    std::vector<uint8_t> out(kGardenHeaderBytes + pbytes + qbytes, 0);
    uint8_t* p = out.data();
    std::memcpy(p + kOffMagic, kGardenMagic, sizeof kGardenMagic);
    StoreLE(p + kOffVersion, kGardenVersion, 4);
    p[kOffType] = static_cast<uint8_t>(type);
    p[kOffHash] = static_cast<uint8_t>(h.kind);
    StoreLE(p + kOffSeed, h.seed, 8);
    StoreLE(p + kOffParamBytes, pbytes, 8);
    StoreLE(p + kOffPayloadBytes, qbytes, 8);
    if (pbytes) std::memcpy(p + kGardenHeaderBytes, params_.data(), pbytes);
    if (qbytes) std::memcpy(p + kGardenHeaderBytes + pbytes, payload_.data(), qbytes);
    StoreLE(p + kOffChecksum, Checksum(p, p + kGardenHeaderBytes, pbytes + qbytes), 8);
    return out;
  }

 private:
  std::vector<uint64_t> params_;
  std::vector<uint64_t> payload_;
};

// ---- Reading -------------------------------------------------------------------------

struct Header {
  GardenType type;
  KeyHasher hasher;
  uint64_t param_bytes;
  uint64_t payload_bytes;
};

const GardenType kAllTypes[] = {GardenType::kCounting, GardenType::kSpectral, GardenType::kCountMin,
                                GardenType::kBitwise,  GardenType::kStable,   GardenType::kA2,
                                GardenType::kScalable, GardenType::kBlockedCounting};

// The checks of the header's fields up to the checksum, in file order, given
// the first min(size, 64) bytes of a file of `size` bytes: enough to refuse a
// file that is not a garden file, or whose sizes its length does not back,
// before anything past the header is read or allocated.
Header ValidateHeaderFields(const uint8_t* p, uint64_t size, const std::string& name) {
  auto fail = [&](uint64_t offset, const std::string& problem) { throw FormatError(name, offset, problem); };
  if (size < kGardenHeaderBytes)
    fail(size, "file is truncated: " + std::to_string(size) + " bytes: expected at least the " +
                   std::to_string(kGardenHeaderBytes) + "-byte header");
  if (std::memcmp(p + kOffMagic, kGardenMagic, sizeof kGardenMagic) != 0)
    fail(kOffMagic, "magic is " + Hex(LoadLE(p, 8)) + ": expected \"BBGARDN1\" (not a blockbloom garden file)");
  const uint64_t version = LoadLE(p + kOffVersion, 4);
  if (version != kGardenVersion)
    fail(kOffVersion, "format version " + std::to_string(version) + " is unknown: expected " +
                          std::to_string(kGardenVersion));
  const uint8_t type = p[kOffType];
  if (type < 1 || type > std::size(kAllTypes))
    fail(kOffType, "garden type " + std::to_string(type) + " is unknown: expected 1.." + std::to_string(std::size(kAllTypes)));
  const uint8_t hash = p[kOffHash];
  if (hash > static_cast<uint8_t>(kLastHashKind))
    fail(kOffHash, "hash " + std::to_string(hash) + " is unknown: expected 0 (xxh3), 1 (xxh64), 2 (mulx) or 3 (rocksdb)");
  if (LoadLE(p + kOffReserved16, 2) != 0) fail(kOffReserved16, "reserved bytes are not 0: expected 0");
  const uint64_t pbytes = LoadLE(p + kOffParamBytes, 8), qbytes = LoadLE(p + kOffPayloadBytes, 8);
  const uint64_t body = size - kGardenHeaderBytes;
  if (pbytes % 8 != 0 || pbytes > body)
    fail(kOffParamBytes, "parameter size " + std::to_string(pbytes) + " is impossible: expected a multiple of 8 "
                             "within the file's " + std::to_string(body) + " bytes after the header");
  if (qbytes % 8 != 0 || qbytes != body - pbytes)
    fail(kOffPayloadBytes, "payload size " + std::to_string(qbytes) + " disagrees with the file: expected " +
                               std::to_string(body - pbytes) + " (the bytes after header and parameters)");
  return {static_cast<GardenType>(type), KeyHasher{static_cast<HashKind>(hash), LoadLE(p + kOffSeed, 8)}, pbytes,
          qbytes};
}

// Every header check: the fields, then the checksum over the whole buffer, then
// the reserved tail. Nothing is allocated before the sizes have been held
// against the buffer's length.
Header ValidateHeader(std::span<const uint8_t> bytes, const std::string& name) {
  const uint8_t* p = bytes.data();
  const Header h = ValidateHeaderFields(p, bytes.size(), name);
  const uint64_t stored = LoadLE(p + kOffChecksum, 8);
  const uint64_t actual = Checksum(p, p + kGardenHeaderBytes, bytes.size() - kGardenHeaderBytes);
  if (stored != actual)
    throw FormatError(name, kOffChecksum, "checksum mismatch: the file says " + Hex(stored) + ", its bytes hash to " +
                                              Hex(actual) + ": expected them equal (the file is corrupt)");
  for (size_t i = kOffReserved48; i < kGardenHeaderBytes; ++i)
    if (p[i] != 0) throw FormatError(name, i, "reserved bytes are not 0: expected 0");
  return h;
}

// Reads parameters then payload in order, each read checked against what is
// left; errors name the byte offset of the field.
class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, const Header& h, std::string name)
      : bytes_(bytes), name_(std::move(name)), pos_(kGardenHeaderBytes),
        params_end_(kGardenHeaderBytes + h.param_bytes) {}

  [[noreturn]] void Fail(uint64_t offset, const std::string& problem) const { throw FormatError(name_, offset, problem); }

  uint64_t Param(const char* what) {
    if (pos_ + 8 > params_end_)
      Fail(pos_, std::string("parameters end before ") + what + ": expected " + std::to_string(pos_ + 8 - kGardenHeaderBytes) +
                     " parameter bytes or more");
    last_ = pos_;
    const uint64_t v = LoadLE(bytes_.data() + pos_, 8);
    pos_ += 8;
    return v;
  }
  uint64_t Param(const char* what, uint64_t lo, uint64_t hi) {
    const uint64_t v = Param(what);
    if (v < lo || v > hi)
      Fail(last_, std::string(what) + " = " + std::to_string(v) + " is out of range: expected " + std::to_string(lo) +
                      ".." + std::to_string(hi));
    return v;
  }
  double Real(const char* what, double lo, double hi) {  // open interval
    const double v = std::bit_cast<double>(Param(what));
    if (!(v > lo && v < hi))
      Fail(last_, std::string(what) + " = " + garden::Real(v) + " is out of range: expected " + garden::Real(lo) + " < " +
                      what + " < " + garden::Real(hi));
    return v;
  }
  uint64_t last() const { return last_; }

  // End of parameters: the payload must be exactly `want` bytes.
  void EndParams(uint64_t want) {
    if (pos_ != params_end_)
      Fail(pos_, std::to_string(params_end_ - pos_) + " unexpected parameter bytes: expected the parameters to end at byte " +
                     std::to_string(pos_));
    const uint64_t have = bytes_.size() - params_end_;
    if (have != want)
      Fail(kOffPayloadBytes, "payload size " + std::to_string(have) + " disagrees with the parameters: expected " +
                                 std::to_string(want));
  }
  // The next n payload bytes (n a multiple of 8; EndParams checked the total).
  const uint8_t* Take(uint64_t n) {
    last_ = pos_;
    const uint8_t* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string name_;
  uint64_t pos_;
  uint64_t params_end_;
  uint64_t last_ = 0;
};

// Payload words of `cells` packed `width`-bit counters (PackedCounters).
uint64_t CounterBytes(uint64_t cells, uint32_t width) { return (cells * width + 63) / 64 * 8; }

// Copies packed counters from the payload, checking the bits past the last
// counter are 0 and every counter <= max.
void ReadCounters(Reader& r, PackedCounters& c, uint64_t max, const char* what) {
  const uint64_t bytes = CounterBytes(c.size(), c.width());
  const uint8_t* p = r.Take(bytes);
  const uint64_t at = r.last();
  std::span<uint64_t> words = c.mutable_words();
  std::memcpy(words.data(), p, bytes);
  const uint64_t used = c.size() * c.width();
  if (used % 64 != 0 && (words.back() >> (used % 64)) != 0)
    r.Fail(at + bytes - 8, std::string(what) + ": bits past the last counter are set: expected 0");
  if (max < c.max()) {
    for (uint64_t i = 0; i < c.size(); ++i)
      if (c.Get(i) > max)
        r.Fail(at + (i * c.width()) / 8, std::string(what) + ": counter " + std::to_string(i) + " = " +
                                             std::to_string(c.Get(i)) + ": expected at most " + std::to_string(max));
  }
}

// Engine filter payload (classic or blocked): bits past bit_count must be 0.
void ReadFilterBytes(Reader& r, Filter& f, const char* what) {
  const uint8_t* p = r.Take(f.byte_size());
  const uint64_t at = r.last();
  std::memcpy(detail::FilterAccess::MutableData(f), p, f.byte_size());
  const uint64_t bits = f.bit_count();
  const uint8_t* d = f.data();
  if (bits % 8 != 0 && (d[bits / 8] >> (bits % 8)) != 0)
    r.Fail(at + bits / 8, std::string(what) + ": bits past the filter's " + std::to_string(bits) + " bits are set: expected 0");
  for (uint64_t i = (bits + 7) / 8; i < f.byte_size(); ++i)
    if (d[i] != 0) r.Fail(at + i, std::string(what) + ": padding past the filter's bits is not 0: expected 0");
}

constexpr uint64_t kMaxCells = uint64_t{1} << 52;  // PackedCounters' cap
constexpr uint64_t kWidths[] = {1, 2, 4, 8, 16, 32};
uint32_t ReadWidth(Reader& r, const char* what) {
  const uint64_t w = r.Param(what);
  for (uint64_t ok : kWidths)
    if (w == ok) return static_cast<uint32_t>(w);
  r.Fail(r.last(), std::string(what) + " = " + std::to_string(w) + " is not supported: expected 1, 2, 4, 8, 16 or 32");
}

[[noreturn]] void Shrank(const std::string& path, uint64_t got, uint64_t size) {
  throw FormatError(path, got, "file is truncated: it shrank to " + std::to_string(got) +
                                   " bytes while being read: expected " + std::to_string(size));
}

template <typename T>
constexpr GardenType TypeOf() {
  if constexpr (std::is_same_v<T, CountingFilter>) return GardenType::kCounting;
  if constexpr (std::is_same_v<T, SpectralFilter>) return GardenType::kSpectral;
  if constexpr (std::is_same_v<T, CountMinSketch>) return GardenType::kCountMin;
  if constexpr (std::is_same_v<T, BitwiseFilter>) return GardenType::kBitwise;
  if constexpr (std::is_same_v<T, StableFilter>) return GardenType::kStable;
  if constexpr (std::is_same_v<T, A2Filter>) return GardenType::kA2;
  if constexpr (std::is_same_v<T, ScalableFilter>) return GardenType::kScalable;
  if constexpr (std::is_same_v<T, BlockedCountingFilter>) return GardenType::kBlockedCounting;
}

}  // namespace

// ---- Per type -----------------------------------------------------------------------------

struct GardenCodec {
  // -- counting
  static void Write(Writer& w, const CountingFilter& f) {
    w.Param(f.cells());
    w.Param(f.k());
    w.Param(f.width());
    w.Param(f.saturations());
    w.Words(f.counters_.words());
  }
  static CountingFilter ReadCounting(Reader& r, const KeyHasher& h) {
    const uint64_t cells = r.Param("cells", 1, kMaxCells);
    const uint32_t k = static_cast<uint32_t>(r.Param("k", 1, kMaxProbes));
    const uint32_t width = ReadWidth(r, "counter width");
    const uint64_t sat = r.Param("saturations");
    r.EndParams(CounterBytes(cells, width));
    CountingFilter f(cells, k, width, h.kind, h.seed);
    ReadCounters(r, f.counters_, f.counters_.max(), "counters");
    f.saturations_ = sat;
    return f;
  }

  // -- spectral
  static void Write(Writer& w, const SpectralFilter& f) {
    w.Param(static_cast<uint64_t>(f.policy_));
    w.Param(f.primary_.cells());
    w.Param(f.primary_.k());
    w.Param(f.primary_.width());
    w.Param(f.secondary_ ? f.secondary_->cells() : 0);
    w.Param(f.primary_.saturations());
    w.Param(f.secondary_ ? f.secondary_->saturations() : 0);
    w.Words(f.primary_.counters_.words());
    if (f.secondary_) w.Words(f.secondary_->counters_.words());
  }
  static SpectralFilter ReadSpectral(Reader& r, const KeyHasher& h) {
    const auto policy = static_cast<SpectralFilter::Policy>(r.Param("policy", 0, 2));
    const uint64_t cells = r.Param("cells", 1, kMaxCells);
    const uint32_t k = static_cast<uint32_t>(r.Param("k", 1, kMaxProbes));
    const uint32_t width = ReadWidth(r, "counter width");
    const bool rm = policy == SpectralFilter::Policy::kRecurringMinimum;
    const uint64_t cells2 = r.Param("secondary cells", rm ? 1 : 0, rm ? kMaxCells : 0);
    const uint64_t sat1 = r.Param("saturations"), sat2 = r.Param("secondary saturations");
    r.EndParams(CounterBytes(cells, width) + (rm ? CounterBytes(cells2, width) : 0));
    SpectralFilter::Options o;
    o.width = width;
    o.hash = h.kind;
    o.seed = h.seed;
    o.secondary_cells = cells2;
    SpectralFilter f(cells, k, policy, o);
    ReadCounters(r, f.primary_.counters_, f.primary_.counters_.max(), "primary counters");
    f.primary_.saturations_ = sat1;
    if (rm) {
      ReadCounters(r, f.secondary_->counters_, f.secondary_->counters_.max(), "secondary counters");
      f.secondary_->saturations_ = sat2;
    }
    return f;
  }

  // -- count-min
  static void Write(Writer& w, const CountMinSketch& s) {
    w.Param(s.width_);
    w.Param(s.depth_);
    w.Param(s.conservative_ ? 1 : 0);
    w.Param(s.total_);
    w.Words(s.counts_);
  }
  static CountMinSketch ReadCountMin(Reader& r, const KeyHasher& h) {
    const uint64_t width = r.Param("width", 1, uint64_t{1} << 32);
    const uint32_t depth = static_cast<uint32_t>(r.Param("depth", 1, kMaxProbes));
    const bool cons = r.Param("conservative", 0, 1) != 0;
    const uint64_t total = r.Param("total N");
    r.EndParams(width * depth * 8);
    CountMinSketch s(width, depth, CountMinSketch::Options{h.kind, h.seed, cons});
    const uint8_t* p = r.Take(width * depth * 8);
    const uint64_t at = r.last();
    std::memcpy(s.counts_.data(), p, width * depth * 8);
    // Each row's counters sum to N (every add lands once per row), or, under
    // conservative update, each counter is at most N.
    for (uint32_t row = 0; row < depth; ++row) {
      uint64_t sum = 0;
      for (uint64_t c = 0; c < width; ++c) {
        const uint64_t v = s.counts_[row * width + c];
        const uint64_t off = at + (row * width + c) * 8;
        if (v > total)
          r.Fail(off, "counter (row " + std::to_string(row) + ", column " + std::to_string(c) + ") = " +
                          std::to_string(v) + " exceeds the total N = " + std::to_string(total) + ": expected at most N");
        if (!cons) {
          if (v > total - sum)
            r.Fail(off, "row " + std::to_string(row) + " sums past the total N = " + std::to_string(total) +
                            ": expected each row to sum to N");
          sum += v;
        }
      }
      if (!cons && sum != total)
        r.Fail(at + row * width * 8, "row " + std::to_string(row) + " sums to " + std::to_string(sum) +
                                         ": expected the total N = " + std::to_string(total));
    }
    s.total_ = total;
    return s;
  }

  // -- bitwise
  static void Write(Writer& w, const BitwiseFilter& f) {
    w.Param(f.levels_.size());
    w.Param(f.saturations_);
    for (const CountingFilter& l : f.levels_) {
      w.Param(l.cells());
      w.Param(l.k());
      w.Param(l.width());
    }
    for (const CountingFilter& l : f.levels_) w.Words(l.counters_.words());
  }
  static BitwiseFilter ReadBitwise(Reader& r, const KeyHasher& h) {
    const uint64_t n = r.Param("levels", 1, kMaxProbes);
    const uint64_t sat = r.Param("saturations");
    std::vector<BitwiseFilter::Level> levels;
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < n; ++i) {
      BitwiseFilter::Level l;
      l.cells = r.Param("level cells", 1, kMaxCells);
      l.k = static_cast<uint32_t>(r.Param("level k", 1, kMaxProbes));
      l.width = ReadWidth(r, "level counter width");
      bytes += CounterBytes(l.cells, l.width);
      levels.push_back(l);
    }
    r.EndParams(bytes);
    BitwiseFilter f(std::span<const BitwiseFilter::Level>(levels), h.kind, h.seed);
    for (CountingFilter& l : f.levels_) ReadCounters(r, l.counters_, l.counters_.max(), "level counters");
    f.saturations_ = sat;
    return f;
  }

  // -- stable
  static void Write(Writer& w, const StableFilter& f) {
    w.Param(f.cells());
    w.Param(f.k_);
    w.Param(f.max_);
    w.Param(f.decrements_);
    w.Param(f.rng_seed_);
    w.Param(f.rng_.state());
    w.Param(f.inserted_);
    w.Words(f.cells_.words());
  }
  static StableFilter ReadStable(Reader& r, const KeyHasher& h) {
    const uint64_t cells = r.Param("cells", 1, kMaxCells);
    const uint32_t k = static_cast<uint32_t>(r.Param("k", 1, kMaxProbes));
    const uint32_t max = static_cast<uint32_t>(r.Param("max value Max", 1, StableFilter::kMaxMax));
    const uint64_t p = r.Param("decrements P", 0, cells);
    const uint64_t rng_seed = r.Param("rng seed"), rng_state = r.Param("rng state"), inserted = r.Param("inserted");
    uint32_t d = 1;
    while ((uint64_t{1} << d) - 1 < max) d *= 2;
    r.EndParams(CounterBytes(cells, d));
    StableFilter f(cells, k, max, p, rng_seed, h.kind, h.seed);
    ReadCounters(r, f.cells_, max, "cells");
    f.rng_ = SplitMix64(rng_state);
    f.inserted_ = inserted;
    return f;
  }

  // -- A2
  static void Write(Writer& w, const A2Filter& f) {
    w.Param(f.bits_);
    w.ParamReal(f.fpr_);
    w.Param(f.params_.k);
    w.Param(f.params_.capacity);
    w.Param(static_cast<uint64_t>(f.active_));
    w.Param(f.active_count_);
    w.Param(f.passive_count_);
    w.Param(f.swaps_);
    w.Bytes(f.vectors_[0].data(), f.vectors_[0].byte_size());
    w.Bytes(f.vectors_[1].data(), f.vectors_[1].byte_size());
  }
  static A2Filter ReadA2(Reader& r, const KeyHasher& h) {
    const uint64_t bits = r.Param("bits", 2, 2 * kMaxClassicBits);
    const double fpr = r.Real("target fpr", 0.0, 1.0);
    const uint64_t at_fpr = r.last();
    A2Filter::Params want;
    try {
      want = A2Filter::ParamsFor(bits, fpr);
    } catch (const std::invalid_argument& e) {
      r.Fail(at_fpr, std::string("target fpr: ") + (e.what() + 12));
    }
    const uint64_t k = r.Param("k_a");
    const uint64_t at_k = r.last();
    const uint64_t cap = r.Param("capacity");
    const uint64_t at_cap = r.last();
    if (k != want.k || cap != want.capacity) {
      // Written before 2026-11-28, sized by the textbook rate (aging.h): kept as written.
      std::optional<A2Filter::Params> old;
      try {
        old = A2Filter::TextbookParamsFor(bits, fpr);
      } catch (const std::invalid_argument&) {  // no textbook sizing there: only the current one is accepted
      }
      if (old && k == old->k && cap == old->capacity) {
        want = *old;
      } else if (k != want.k) {
        r.Fail(at_k, "k_a = " + std::to_string(k) + " disagrees with bits and fpr: expected " + std::to_string(want.k));
      } else {
        r.Fail(at_cap, "capacity = " + std::to_string(cap) + " disagrees with bits and fpr: expected " +
                           std::to_string(want.capacity));
      }
    }
    const uint64_t active = r.Param("active vector", 0, 1);
    const uint64_t ac = r.Param("active count", 0, cap), pc = r.Param("passive count", 0, cap), swaps = r.Param("swaps");
    const uint64_t vbytes = LayoutPayloadBytes(Layout::kClassic, bits / 2);
    r.EndParams(2 * vbytes);
    A2Filter f(bits, fpr, want, h.kind, h.seed);
    ReadFilterBytes(r, f.vectors_[0], "vector 0");
    ReadFilterBytes(r, f.vectors_[1], "vector 1");
    f.active_ = static_cast<int>(active);
    f.active_count_ = ac;
    f.passive_count_ = pc;
    f.swaps_ = swaps;
    detail::FilterAccess::SetInserted(f.vectors_[active], ac);
    detail::FilterAccess::SetInserted(f.vectors_[1 - active], pc);
    return f;
  }

  // -- scalable
  static void Write(Writer& w, const ScalableFilter& f) {
    w.Param(f.initial_capacity_);
    w.ParamReal(f.fpr_);
    w.Param(static_cast<uint64_t>(f.options_.layout));
    w.Param(f.options_.growth);
    w.ParamReal(f.options_.tightening);
    w.Param(f.slices_.size());
    for (const Filter& s : f.slices_) {
      w.Param(s.num_blocks());
      w.Param(s.k());
      w.Param(s.inserted());
    }
    for (const Filter& s : f.slices_) w.Bytes(s.data(), s.byte_size());
  }
  static ScalableFilter ReadScalable(Reader& r, const KeyHasher& h) {
    ScalableFilter::Options o;
    const uint64_t n0 = r.Param("initial capacity", 1, UINT64_MAX);
    const double fpr = r.Real("fpr", 0.0, 1.0);
    o.layout = static_cast<Layout>(r.Param("layout", 0, std::size(kAllLayouts) - 1));
    o.growth = static_cast<uint32_t>(r.Param("growth", 1, 16));
    o.tightening = r.Real("tightening", 0.0, 1.0);
    o.hash = h.kind;
    o.seed = h.seed;
    const uint64_t n = r.Param("slices", 1, ScalableFilter::kMaxSlices);
    // Every slice must be what the parameters give (so the bound keeps holding
    // after the load); sizes are planned without allocating, and held against
    // the file's length before any slice exists.
    std::vector<FilterParams> plan;
    std::vector<uint64_t> counts;
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t blocks = r.Param("slice blocks");
      const uint64_t at = r.last();
      const uint64_t k = r.Param("slice k");
      const uint64_t cap = ScalableFilter::CapacityOf(n0, o.growth, i);
      // At most its capacity (a merged filter may hold slices below it).
      const uint64_t inserted = r.Param("slice inserted", 0, cap);
      FilterParams want;
      try {
        want = ScalableFilter::PlanSlice(n0, fpr, o, i);
      } catch (const std::exception& e) {
        r.Fail(at, std::string(e.what() + 12));
      }
      if (blocks != want.num_blocks || k != want.k)
        r.Fail(at, "slice " + std::to_string(i) + " has " + std::to_string(blocks) + " blocks and k = " + std::to_string(k) +
                       ": expected " + std::to_string(want.num_blocks) + " blocks and k = " + std::to_string(want.k) +
                       " (what the parameters give)");
      bytes += LayoutPayloadBytes(o.layout, want.num_blocks);
      plan.push_back(want);
      counts.push_back(inserted);
    }
    r.EndParams(bytes);
    ScalableFilter f(n0, fpr, o);
    std::vector<Filter> slices;
    for (uint64_t i = 0; i < n; ++i) {
      slices.push_back(Filter::WithBlocks(o.layout, plan[i].num_blocks, plan[i].k, o.hash, o.seed));
      ReadFilterBytes(r, slices[i], "slice");
      detail::FilterAccess::SetInserted(slices[i], counts[i]);
    }
    f.slices_ = std::move(slices);
    return f;
  }

  // -- blocked counting
  static void Write(Writer& w, const BlockedCountingFilter& f) {
    w.Param(f.num_blocks_);
    w.Param(f.k_);
    w.Param(f.inserted_);
    w.Param(f.saturations_);
    w.Bytes(f.lines_, f.byte_size());
  }
  static BlockedCountingFilter ReadBlockedCounting(Reader& r, const KeyHasher& h) {
    const uint64_t blocks = r.Param("blocks", 1, BlockedCountingFilter::kMaxBlocks);
    const uint32_t k = static_cast<uint32_t>(r.Param("k", 1, BlockedCountingFilter::kMaxK));
    const uint64_t inserted = r.Param("inserted"), sat = r.Param("saturations");
    r.EndParams(blocks * BlockedCountingFilter::kBlockBytes);
    BlockedCountingFilter f(blocks, k, h.kind, h.seed);
    std::memcpy(f.lines_, r.Take(f.byte_size()), f.byte_size());
    f.inserted_ = inserted;
    f.saturations_ = sat;
    return f;
  }

  template <typename T>
  static T Read(Reader& r, const KeyHasher& h) {
    if constexpr (std::is_same_v<T, CountingFilter>) return ReadCounting(r, h);
    if constexpr (std::is_same_v<T, SpectralFilter>) return ReadSpectral(r, h);
    if constexpr (std::is_same_v<T, CountMinSketch>) return ReadCountMin(r, h);
    if constexpr (std::is_same_v<T, BitwiseFilter>) return ReadBitwise(r, h);
    if constexpr (std::is_same_v<T, StableFilter>) return ReadStable(r, h);
    if constexpr (std::is_same_v<T, A2Filter>) return ReadA2(r, h);
    if constexpr (std::is_same_v<T, ScalableFilter>) return ReadScalable(r, h);
    if constexpr (std::is_same_v<T, BlockedCountingFilter>) return ReadBlockedCounting(r, h);
  }
};

std::string_view GardenTypeName(GardenType type) {
  switch (type) {
    case GardenType::kCounting: return "counting";
    case GardenType::kSpectral: return "spectral";
    case GardenType::kCountMin: return "count-min";
    case GardenType::kBitwise: return "bitwise";
    case GardenType::kStable: return "stable";
    case GardenType::kA2: return "a2";
    case GardenType::kScalable: return "scalable";
    case GardenType::kBlockedCounting: return "blocked-counting";
  }
  return "unknown";
}

GardenType PeekGardenType(std::span<const uint8_t> bytes, std::string_view name) {
  return ValidateHeader(bytes, std::string(name)).type;
}

template <GardenVariant T>
std::vector<uint8_t> SerializeGarden(const T& v) {
  if (v.empty()) {
    const std::string type(GardenTypeName(TypeOf<T>()));
    throw std::logic_error("blockbloom: cannot save this " + type + " variant: it was moved from and is empty (a "
                           "garden file holds at least one counter or bit); assign a " + type + " variant to it first");
  }
  Writer w;
  GardenCodec::Write(w, v);
  return w.Finish(TypeOf<T>(), v.hasher());
}

template <GardenVariant T>
T DeserializeGarden(std::span<const uint8_t> bytes, std::string_view name) {
  const std::string nm(name);
  const Header h = ValidateHeader(bytes, nm);
  if (h.type != TypeOf<T>())
    throw FormatError(nm, kOffType, "the file holds a " + std::string(GardenTypeName(h.type)) + " variant: expected " +
                                        std::string(GardenTypeName(TypeOf<T>())));
  Reader r(bytes, h, nm);
  return GardenCodec::Read<T>(r, h.hasher);
}

// Header first, through the engine's regular-file open (path.h: never blocks,
// refuses FIFOs, devices, directories and sockets at once): a file that is not
// a garden file, or whose header's sizes disagree with its length, is refused
// from its first 64 bytes, whatever its size; only then is the rest read.
std::vector<uint8_t> ReadGardenFile(const std::string& path) {
  uint64_t size = 0;
  const int fd = detail::OpenRegularFile(path, &size);
  const detail::ScopedFd closer(fd);
  uint8_t head[kGardenHeaderBytes] = {};
  const uint64_t want_head = std::min<uint64_t>(size, kGardenHeaderBytes);
  const uint64_t got_head = detail::ReadFull(fd, head, want_head, 0, path);
  if (got_head < want_head) Shrank(path, got_head, size);
  ValidateHeaderFields(head, size, path);
  std::vector<uint8_t> out;
  try {
    out.resize(static_cast<size_t>(size));
  } catch (const std::bad_alloc&) {
    throw std::runtime_error("blockbloom: " + path + ": out of memory: cannot allocate " + std::to_string(size) +
                             " bytes for the garden file");
  }
  std::memcpy(out.data(), head, kGardenHeaderBytes);
  const uint64_t body = size - kGardenHeaderBytes;
  const uint64_t got = detail::ReadFull(fd, out.data() + kGardenHeaderBytes, body, kGardenHeaderBytes, path);
  if (got < body) Shrank(path, kGardenHeaderBytes + got, size);
  return out;  // DeserializeGarden checks the whole of it
}

template <GardenVariant T>
void SaveGarden(const T& v, const std::string& path) {
  const std::vector<uint8_t> bytes = SerializeGarden(v);
  const std::span<const uint8_t> parts[] = {{bytes.data(), bytes.size()}};
  WriteFileAtomic(path, parts);
}

template <GardenVariant T>
T LoadGarden(const std::string& path) {
  const std::vector<uint8_t> bytes = ReadGardenFile(path);
  return DeserializeGarden<T>(bytes, path);
}

template <GardenVariant T>
void LoadGarden(const std::string& path, T* into) {
  T loaded = LoadGarden<T>(path);
  *into = std::move(loaded);
}

#define BLOCKBLOOM_GARDEN_INSTANTIATE(T)                                                     \
  template std::vector<uint8_t> SerializeGarden<T>(const T&);                                \
  template T DeserializeGarden<T>(std::span<const uint8_t>, std::string_view);               \
  template void SaveGarden<T>(const T&, const std::string&);                                 \
  template T LoadGarden<T>(const std::string&);                                              \
  template void LoadGarden<T>(const std::string&, T*);
BLOCKBLOOM_GARDEN_INSTANTIATE(CountingFilter)
BLOCKBLOOM_GARDEN_INSTANTIATE(SpectralFilter)
BLOCKBLOOM_GARDEN_INSTANTIATE(CountMinSketch)
BLOCKBLOOM_GARDEN_INSTANTIATE(BitwiseFilter)
BLOCKBLOOM_GARDEN_INSTANTIATE(StableFilter)
BLOCKBLOOM_GARDEN_INSTANTIATE(A2Filter)
BLOCKBLOOM_GARDEN_INSTANTIATE(ScalableFilter)
BLOCKBLOOM_GARDEN_INSTANTIATE(BlockedCountingFilter)
#undef BLOCKBLOOM_GARDEN_INSTANTIATE

}  // namespace blockbloom::garden
