// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the garden-file loader (blockbloom/garden/format.h) on arbitrary
// bytes, for every variant. Built only with -DBLOCKBLOOM_FUZZ=ON and clang,
// under ASan and UBSan: any crash, leak, out-of-bounds read or undefined
// behaviour fails the run, and so does a broken invariant below (abort()).
// Seed corpus: tests/golden/garden_*.bbg.
//
//   ./garden_load_fuzzer -max_total_time=60 corpus_dir ../tests/golden
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "blockbloom/garden.h"
#include "engine/src/hash_inline.h"

namespace {

using blockbloom::FormatError;
namespace g = blockbloom::garden;

void Check(bool ok) {
  if (!ok) std::abort();
}

// Queries every accepted variant answers (cheap: a few keys).
void Touch(const g::CountingFilter& f) { (void)f.Count(uint64_t{1}); }
void Touch(const g::SpectralFilter& f) { (void)f.Count(uint64_t{1}); }
void Touch(const g::CountMinSketch& f) { Check(f.Estimate(uint64_t{1}) <= f.total()); }
void Touch(const g::BitwiseFilter& f) { (void)f.Count(uint64_t{1}); }
void Touch(const g::StableFilter& f) { (void)f.MayContain(uint64_t{1}); }
void Touch(const g::A2Filter& f) { (void)f.MayContain(uint64_t{1}); }
void Touch(const g::ScalableFilter& f) { (void)f.MayContain(uint64_t{1}); }
void Touch(const g::BlockedCountingFilter& f) {
  uint64_t keys[16];
  uint8_t out[16];
  for (uint64_t i = 0; i < 16; ++i) keys[i] = i * 0x9E3779B97F4A7C15ULL;
  f.MayContainBatch(keys, out);
  for (size_t i = 0; i < 16; ++i) Check((out[i] != 0) == f.MayContain(keys[i]));
}

// An accepted buffer must load into a variant that saves back to exactly the same bytes.
template <typename T>
void Exercise(std::span<const uint8_t> bytes) {
  const T v = g::DeserializeGarden<T>(bytes, "fuzz");
  const std::vector<uint8_t> again = g::SerializeGarden(v);
  Check(again.size() == bytes.size() && std::memcmp(again.data(), bytes.data(), bytes.size()) == 0);
  Touch(v);
}

void Load(std::span<const uint8_t> bytes) {
  try {
    switch (g::PeekGardenType(bytes, "fuzz")) {
      case g::GardenType::kCounting: return Exercise<g::CountingFilter>(bytes);
      case g::GardenType::kSpectral: return Exercise<g::SpectralFilter>(bytes);
      case g::GardenType::kCountMin: return Exercise<g::CountMinSketch>(bytes);
      case g::GardenType::kBitwise: return Exercise<g::BitwiseFilter>(bytes);
      case g::GardenType::kStable: return Exercise<g::StableFilter>(bytes);
      case g::GardenType::kA2: return Exercise<g::A2Filter>(bytes);
      case g::GardenType::kScalable: return Exercise<g::ScalableFilter>(bytes);
      case g::GardenType::kBlockedCounting: return Exercise<g::BlockedCountingFilter>(bytes);
    }
  } catch (const FormatError& e) {
    Check(e.offset() <= bytes.size());
  }
}

// Fields past the checksum are reachable only with a matching checksum, which
// random mutation almost never finds: so each input is also tried resealed.
std::vector<uint8_t> Resealed(std::span<const uint8_t> bytes) {
  std::vector<uint8_t> b(bytes.begin(), bytes.end());
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  XXH3_64bits_update(&st, b.data(), 40);
  XXH3_64bits_update(&st, b.data() + g::kGardenHeaderBytes, b.size() - g::kGardenHeaderBytes);
  const uint64_t c = XXH3_64bits_digest(&st);
  for (int i = 0; i < 8; ++i) b[40 + i] = static_cast<uint8_t>(c >> (8 * i));
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Keep inputs small: a valid header may ask for large variants, which the
  // loader only allocates once the file's own length backs them.
  const std::span<const uint8_t> bytes(data, size);
  Load(bytes);
  if (size >= g::kGardenHeaderBytes) {
    const std::vector<uint8_t> sealed = Resealed(bytes);
    Load(sealed);
  }
  return 0;
}
