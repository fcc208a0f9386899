// SPDX-License-Identifier: Apache-2.0
// Boost.Bloom (https://github.com/boostorg/bloom, header-only, Boost 1.89+) as
// the peer: compiled only when <boost/bloom.hpp> is found
// (-DBLOCKBLOOM_BOOST_BLOOM_INCLUDE, bench/CMakeLists.txt), and this file alone
// with -O3 -march=native, as a user would compile it for their own server.
// Nothing of Boost is committed.
#include <boost/bloom.hpp>

#include <string_view>

#include "bench/boost_peer.h"

namespace blockbloom::bench::boost_peer {
namespace {

// One key behind a call the compiler can neither inline nor see into (noipa:
// the caller reloads what the callee might have changed, as it does around a
// call into a library), reached through a function pointer as a dispatched
// library's is.
template <class Filter, class K>
[[gnu::noipa]] void InsertOneCalled(Filter& f, const K& key) {
  f.insert(key);
}
template <class Filter, class K>
[[gnu::noipa]] bool QueryOneCalled(const Filter& f, const K& key) {
  return f.may_contain(key);
}

template <class Key, class Filter>
class PeerOf final : public Peer {
 public:
  explicit PeerOf(uint64_t bits) : f_(static_cast<std::size_t>(bits)) {}

  void Insert(const uint64_t* keys, size_t n, Loop loop) override { InsertT(keys, n, loop); }
  uint64_t Query(const uint64_t* keys, size_t n, Loop loop) const override { return QueryT(keys, n, loop); }
  void Insert(const std::string_view* keys, size_t n, Loop loop) override { InsertT(keys, n, loop); }
  uint64_t Query(const std::string_view* keys, size_t n, Loop loop) const override { return QueryT(keys, n, loop); }
  uint64_t Bytes() const override { return f_.capacity() / 8; }
  uint64_t Touch() const override {
    uint64_t sum = 0;
    for (const unsigned char b : f_.array()) sum += b;
    return sum;
  }

 private:
  template <class K>
  void InsertT(const K* keys, size_t n, Loop loop) {
    if constexpr (std::is_same_v<K, Key>) {
      if (loop == Loop::kBulk) {
        f_.insert(keys, keys + n);
      } else if (loop == Loop::kCalled) {
        void (*const volatile one)(Filter&, const K&) = &InsertOneCalled<Filter, K>;
        void (*const call)(Filter&, const K&) = one;  // read once: an indirect call per key
        for (size_t i = 0; i < n; ++i) call(f_, keys[i]);
      } else {
        for (size_t i = 0; i < n; ++i) f_.insert(keys[i]);
      }
    }
  }
  template <class K>
  uint64_t QueryT(const K* keys, size_t n, Loop loop) const {
    uint64_t hits = 0;
    if constexpr (std::is_same_v<K, Key>) {
      if (loop == Loop::kBulk) {
        f_.may_contain(keys, keys + n, [&](const K&, bool r) { hits += r; });
      } else if (loop == Loop::kCalled) {
        bool (*const volatile one)(const Filter&, const K&) = &QueryOneCalled<Filter, K>;
        bool (*const call)(const Filter&, const K&) = one;
        for (size_t i = 0; i < n; ++i) hits += call(f_, keys[i]);
      } else {
        for (size_t i = 0; i < n; ++i) hits += f_.may_contain(keys[i]);
      }
    }
    return hits;
  }

  Filter f_;
};

template <class Key>
std::unique_ptr<Peer> MakeFor(Pair pair, uint64_t bits) {
  namespace bb = boost::bloom;
  switch (pair) {
    case Pair::kFastMultiblock32x8:
      return std::make_unique<PeerOf<Key, bb::filter<Key, 1, bb::fast_multiblock32<8>>>>(bits);
    case Pair::kFastMultiblock64x8:
      return std::make_unique<PeerOf<Key, bb::filter<Key, 1, bb::fast_multiblock64<8>>>>(bits);
    case Pair::kBlock64x6:
      return std::make_unique<PeerOf<Key, bb::filter<Key, 1, bb::block<uint64_t, 6>>>>(bits);
  }
  return nullptr;
}

}  // namespace

bool Available() { return true; }

std::unique_ptr<Peer> Make(Pair pair, uint64_t bits, bool string_keys) {
  return string_keys ? MakeFor<std::string_view>(pair, bits) : MakeFor<uint64_t>(pair, bits);
}

const char* PairName(Pair pair) {
  switch (pair) {
    case Pair::kFastMultiblock32x8: return "boost_fmb32x8";
    case Pair::kFastMultiblock64x8: return "boost_fmb64x8";
    case Pair::kBlock64x6: return "boost_block64x6";
  }
  return "boost";
}

}  // namespace blockbloom::bench::boost_peer
