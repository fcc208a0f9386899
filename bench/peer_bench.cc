// SPDX-License-Identifier: Apache-2.0
// The peer measured in the same run: libbloom (Debian's libbloom-dev), the
// classic unblocked Bloom filter in C many projects ship. It has only a per-key
// API (bloom_add / bloom_check, MurmurHash2 double hashing over the whole array).
//
// Same bits per key: libbloom sizes a filter for (entries, error) with
// bpe = -ln(error) / (ln 2)^2 bits per entry and k = ceil(bpe ln 2) hashes, so
// error = exp(-bpk (ln 2)^2) gives exactly bpk bits per key (10 -> 0.82%, k = 7).
// Its sizes are C ints: bits = entries * bpe must stay below 2^31 (256 MiB), so
// rows past that are not registered.
#include <bloom.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "bench/bench_common.h"
#include "blockbloom/model.h"

namespace blockbloom::bench {
namespace {

struct Peer {
  bloom b{};
  uint64_t n = 0;
  double model_fpr = 0;
  Peer() = default;
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;
  ~Peer() { bloom_free(&b); }
};

OneSlot<Peer> g_peer;

std::shared_ptr<Peer> GetPeer(uint32_t bpk, uint64_t n, KeyType type) {
  const std::string key = std::to_string(bpk) + "/" + std::to_string(n) + "/" + std::string(KeyTypeName(type));
  return g_peer.Get(key, [&] {
    auto p = std::make_shared<Peer>();
    const double ln2 = std::numbers::ln2;
    if (bloom_init(&p->b, static_cast<int>(n), std::exp(-static_cast<double>(bpk) * ln2 * ln2)) != 0)
      throw std::runtime_error("blockbloom bench: libbloom bloom_init failed");
    p->n = n;
    p->model_fpr = ClassicFprExact(p->b.bits, static_cast<double>(n), p->b.hashes);
    constexpr uint64_t kChunk = uint64_t{1} << 20;
    for (uint64_t start = 0; start < n; start += kChunk) {
      const size_t len = static_cast<size_t>(std::min(kChunk, n - start));
      if (type == KeyType::kU64) {
        for (size_t j = 0; j < len; ++j) {
          const uint64_t k = U64Key(Domain::kPresent, start + j);
          bloom_add(&p->b, &k, sizeof k);
        }
      } else {
        const UrlSet urls = MakeUrls(len, [&](size_t j) { return std::pair{Domain::kPresent, start + j}; });
        for (std::string_view v : urls.views) bloom_add(&p->b, v.data(), static_cast<int>(v.size()));
      }
    }
    return p;
  });
}

template <typename Key>
void PeerRow(benchmark::State& st, const RowSpec& row) {
  const uint64_t n = row.size.KeysAt(row.bpk);
  const auto pools = GetPools(row.keys, n);
  const auto peer = GetPeer(row.bpk, n, row.keys);
  const std::vector<Key>* pool;
  if constexpr (std::is_same_v<Key, uint64_t>) {
    pool = row.op == Op::kQueryAbsent ? &pools->absent : row.op == Op::kQueryMix ? &pools->mix : &pools->present;
  } else {
    pool = row.op == Op::kQueryAbsent ? &pools->absent_s.views
           : row.op == Op::kQueryMix  ? &pools->mix_s.views
                                      : &pools->present_s.views;
  }
  PoolWalker walk(pool->size(), st);
  auto bytes = [](const Key& k) -> std::pair<const void*, int> {
    if constexpr (std::is_same_v<Key, uint64_t>) {
      return {&k, static_cast<int>(sizeof k)};
    } else {
      return {k.data(), static_cast<int>(k.size())};
    }
  };
  uint64_t hits = 0;
  for (auto _ : st) {
    const PoolWalker::Chunk c = walk.Next();
    for (size_t i = c.begin; i < c.begin + c.len; ++i) {
      const auto [p, l] = bytes((*pool)[i]);
      if (row.op == Op::kInsert) {
        bloom_add(&peer->b, p, l);  // re-inserts a present key: same work as a new one
      } else {
        hits += static_cast<uint64_t>(bloom_check(&peer->b, p, l));
      }
    }
    benchmark::DoNotOptimize(hits);
  }
  FinishRow(st, walk.keys(), hits, row, peer->model_fpr);
  st.counters["k"] = benchmark::Counter(peer->b.hashes, benchmark::Counter::kAvgThreads);
  st.counters["bytes"] = benchmark::Counter(peer->b.bytes, benchmark::Counter::kAvgThreads);
}

// libbloom's limits: C int bit counts, and bloom_init refuses fewer than 1000 entries.
bool PeerFits(uint32_t bpk, uint64_t n) { return n * bpk < (uint64_t{1} << 31) && n >= 1000; }

}  // namespace

void RegisterPeerRow(const RowSpec& row) {
  if (!PeerFits(row.bpk, row.size.KeysAt(row.bpk))) return;
  RegisterRow(row, &PeerRow<uint64_t>, &PeerRow<std::string_view>);
}

}  // namespace blockbloom::bench
