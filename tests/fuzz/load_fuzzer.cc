// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the filter-file loader and the Parquet header parser on
// arbitrary bytes. Built only with -DBLOCKBLOOM_FUZZ=ON and clang
// (tools/ci/fuzz.sh), under ASan and UBSan: any crash, leak, out-of-bounds read
// or undefined behaviour fails the run, and so does a broken invariant below
// (abort()).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/parquet.h"
#include "engine/src/hash_inline.h"

namespace {

using blockbloom::FormatError;

// Probes per accepted filter: enough to reach both the batch kernels and the
// scalar path, cheap enough to keep the run at thousands of inputs a second.
constexpr size_t kProbes = 64;

void Check(bool ok) {
  if (!ok) std::abort();
}

// An accepted file must load into a filter that answers the same through every
// path and serializes back to exactly the same bytes.
void ExerciseLoaded(std::span<const uint8_t> bytes) {
  blockbloom::Filter f = blockbloom::DeserializeFilter(bytes, "fuzz");
  const std::vector<uint8_t> again = blockbloom::SerializeFilter(f);
  Check(again.size() == bytes.size() && std::memcmp(again.data(), bytes.data(), bytes.size()) == 0);
  uint64_t keys[kProbes];
  for (size_t i = 0; i < kProbes; ++i) keys[i] = i * 0x9E3779B97F4A7C15ULL;
  uint8_t out[kProbes];
  f.MayContainBatch(keys, out);
  for (size_t i = 0; i < kProbes; ++i) Check((out[i] != 0) == f.MayContain(keys[i]));
  f.Insert(keys[0]);
  Check(f.MayContain(keys[0]));
}

// Header fields past the checksum are reachable only with a matching
// checksum, which random mutation almost never finds: so each input is also
// tried with its checksum recomputed.
std::vector<uint8_t> Resealed(std::span<const uint8_t> bytes) {
  std::vector<uint8_t> b(bytes.begin(), bytes.end());
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  XXH3_64bits_update(&st, b.data(), 56);
  XXH3_64bits_update(&st, b.data() + blockbloom::kFormatHeaderBytes, b.size() - blockbloom::kFormatHeaderBytes);
  const uint64_t c = XXH3_64bits_digest(&st);
  for (int i = 0; i < 8; ++i) b[56 + i] = static_cast<uint8_t>(c >> (8 * i));
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  try {
    ExerciseLoaded(bytes);
  } catch (const FormatError& e) {
    Check(e.offset() <= size);
  }
  if (size >= blockbloom::kFormatHeaderBytes) {
    const std::vector<uint8_t> sealed = Resealed(bytes);
    try {
      ExerciseLoaded(sealed);
    } catch (const FormatError& e) {
      Check(e.offset() <= size);
    }
  }
  try {
    const blockbloom::ParquetHeader h = blockbloom::ParseParquetHeader(bytes, "fuzz");
    Check(h.header_bytes <= size && h.num_bytes % blockbloom::kParquetBlockBytes == 0);
    const blockbloom::Filter f = blockbloom::ImportParquet(bytes, "fuzz");
    const auto bitset = blockbloom::ParquetBitset(f);
    Check(bitset.size() == h.num_bytes && std::memcmp(bitset.data(), data + h.header_bytes, h.num_bytes) == 0);
  } catch (const FormatError& e) {
    Check(e.offset() <= size);
  }
  return 0;
}
