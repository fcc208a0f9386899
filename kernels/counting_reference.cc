// SPDX-License-Identifier: Apache-2.0
// The scalar reference of the blocked counting filter: plain C++, one key at a
// time, one counter at a time. It DEFINES the bits (kernels/counting.h); the
// SIMD targets (kernels/counting-inl.h) are held to it byte for byte.
#include <cstring>

#include "kernels/counting.h"
#include "kernels/common.h"

namespace blockbloom::kernels::counting::reference {
namespace {

uint8_t* Line(const CountingRef& f, uint64_t hash) { return f.lines + BlockIndex(hash, f.num_blocks) * kLineBytes; }

// chosen[c] = whether counter c is one of the key's (duplicates collapse).
void Choose(const CountingRef& f, uint64_t hash, bool chosen[kCounters]) {
  for (uint32_t c = 0; c < kCounters; ++c) chosen[c] = false;
  const uint32_t lo = static_cast<uint32_t>(hash);
  for (uint32_t i = 0; i < f.k; ++i) chosen[(lo * kGoldenPow[i]) >> kProbeShift] = true;
}

uint32_t Get(const uint8_t* line, uint32_t c) { return (line[c / 2] >> (4 * (c % 2))) & 0xF; }
void Set(uint8_t* line, uint32_t c, uint32_t v) {
  const uint32_t shift = 4 * (c % 2);
  line[c / 2] = static_cast<uint8_t>((line[c / 2] & ~(0xFu << shift)) | (v << shift));
}

}  // namespace

uint64_t InsertHash(const CountingRef& f, uint64_t hash) {
  bool chosen[kCounters];
  Choose(f, hash, chosen);
  uint8_t* line = Line(f, hash);
  uint64_t lost = 0;
  for (uint32_t c = 0; c < kCounters; ++c) {
    if (!chosen[c]) continue;
    const uint32_t v = Get(line, c);
    if (v == kMaxCount) {
      ++lost;
    } else {
      Set(line, c, v + 1);
    }
  }
  return lost;
}

bool QueryHash(const CountingRef& f, uint64_t hash) {
  bool chosen[kCounters];
  Choose(f, hash, chosen);
  const uint8_t* line = Line(f, hash);
  for (uint32_t c = 0; c < kCounters; ++c) {
    if (chosen[c] && Get(line, c) == 0) return false;
  }
  return true;
}

bool RemoveHash(const CountingRef& f, uint64_t hash) {
  if (!QueryHash(f, hash)) return false;
  bool chosen[kCounters];
  Choose(f, hash, chosen);
  uint8_t* line = Line(f, hash);
  for (uint32_t c = 0; c < kCounters; ++c) {
    if (!chosen[c]) continue;
    const uint32_t v = Get(line, c);
    if (v != kMaxCount) Set(line, c, v - 1);
  }
  return true;
}

uint32_t CountHash(const CountingRef& f, uint64_t hash) {
  bool chosen[kCounters];
  Choose(f, hash, chosen);
  const uint8_t* line = Line(f, hash);
  uint32_t mn = kMaxCount;
  for (uint32_t c = 0; c < kCounters; ++c) {
    if (chosen[c] && Get(line, c) < mn) mn = Get(line, c);
  }
  return mn;
}

namespace {
uint64_t InsertBatch(const CountingRef& f, const uint64_t* h, size_t n) {
  uint64_t lost = 0;
  for (size_t i = 0; i < n; ++i) lost += InsertHash(f, h[i]);
  return lost;
}
size_t RemoveBatch(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* removed) {
  size_t done = 0;
  for (size_t i = 0; i < n; ++i) done += removed[i] = RemoveHash(f, h[i]);
  return done;
}
size_t QueryBatch(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* out) {
  size_t hits = 0;
  for (size_t i = 0; i < n; ++i) hits += out[i] = QueryHash(f, h[i]);
  return hits;
}
void CountBatch(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(CountHash(f, h[i]));
}
}  // namespace

const CountingOps& ReferenceCountingOps() {
  static const CountingOps ops{0, "reference", &InsertBatch, &RemoveBatch, &QueryBatch, &CountBatch};
  return ops;
}

}  // namespace blockbloom::kernels::counting::reference
