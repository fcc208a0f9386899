// SPDX-License-Identifier: Apache-2.0
// probe_service: the shape of a service that uses blockbloom.
//
//   probe_service KEYS PROBES FILTER
//
// Offline step: read KEYS (one key per line), size a blocked512 filter for them
// at a 1% false-positive rate, insert them in one batch and save the filter to
// FILTER (atomically: a temporary file, fsync, rename).
// Serving step: map FILTER read-only (MappedFilter, a FilterView: validated, checksummed, no
// copy), check that every key is found, then answer PROBES (one per line) in
// batches, as a service answers the requests it has queued.
//
// It prints a summary a test can check and exits 1 if a key was not found
// (a Bloom filter has no false negatives) or on any error.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <blockbloom/filter.h>
#include <blockbloom/format.h>
#include <blockbloom/layout.h>
#include <blockbloom/targets.h>
#include <blockbloom/model.h>
#include <blockbloom/version.h>

namespace {

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Answers `keys` against the mapped filter in batches of kBatch; returns the hits.
uint64_t AnswerBatched(const blockbloom::FilterView& view, const std::vector<std::string>& keys) {
  constexpr size_t kBatch = 4096;  // requests answered per call
  std::vector<std::string_view> batch;
  std::vector<uint8_t> hit(kBatch);
  uint64_t hits = 0;
  for (size_t start = 0; start < keys.size(); start += kBatch) {
    const size_t n = std::min(kBatch, keys.size() - start);
    batch.assign(keys.begin() + static_cast<std::ptrdiff_t>(start),
                 keys.begin() + static_cast<std::ptrdiff_t>(start + n));
    hits += view.MayContainBatch(std::span<const std::string_view>(batch), std::span<uint8_t>(hit.data(), n));
  }
  return hits;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: probe_service KEYS PROBES FILTER\n");
    return 2;
  }
  try {
    const std::vector<std::string> keys = ReadLines(argv[1]);
    const std::vector<std::string> probes = ReadLines(argv[2]);
    const std::string filter_path = argv[3];
    if (keys.empty()) throw std::runtime_error(std::string(argv[1]) + " holds no keys");

    std::printf("blockbloom %s (headers %s), file format %u, SIMD target %s\n",
                std::string(blockbloom::Version()).c_str(), BLOCKBLOOM_VERSION_STRING,
                static_cast<unsigned>(blockbloom::kFormatVersion), std::string(blockbloom::ActiveTarget()).c_str());

    // Offline: build and save.
    constexpr double kTargetFpr = 0.01;
    blockbloom::Filter filter = blockbloom::Filter::ForKeys(blockbloom::Layout::kBlocked512, keys.size(), kTargetFpr);
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    filter.InsertBatch(std::span<const std::string_view>(views));
    const double predicted = blockbloom::PredictFpr(filter.layout(), filter.num_blocks(), filter.k(), keys.size());
    std::printf("indexed %zu keys: %s, k = %u, %llu bytes (%.2f bits/key), predicted false-positive rate %.2f%%\n",
                keys.size(), std::string(blockbloom::LayoutName(filter.layout())).c_str(), filter.k(),
                static_cast<unsigned long long>(filter.byte_size()),
                static_cast<double>(filter.bit_count()) / static_cast<double>(keys.size()), predicted * 100);
    blockbloom::SaveFilter(filter, filter_path);

    // Serving: map the file and answer from it.
    const blockbloom::MappedFilter view = blockbloom::MappedFilter::Open(filter_path);
    std::printf("mapped %s: %llu keys, %llu bytes\n", filter_path.c_str(),
                static_cast<unsigned long long>(view.inserted()), static_cast<unsigned long long>(view.byte_size()));
    const uint64_t found = AnswerBatched(view, keys);
    std::printf("keys found: %llu of %zu\n", static_cast<unsigned long long>(found), keys.size());
    const uint64_t hits = AnswerBatched(view, probes);
    std::printf("probes: %zu, hits: %llu\n", probes.size(), static_cast<unsigned long long>(hits));
    return found == keys.size() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "probe_service: %s\n", e.what());
    return 1;
  }
}
