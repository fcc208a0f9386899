// SPDX-License-Identifier: Apache-2.0
// The Boost.Bloom peer, behind a plain interface: bench/boost_peer_bench.cc is
// the one file compiled with Boost's headers and -O3 -march=native (the peer as
// a user would build it for their own server); the rest of the benchmark
// binary, which times blockbloom, is compiled like the library (no -march).
// Nothing of Boost is in this header, so no inline code is compiled twice
// with different instruction sets.
#ifndef BLOCKBLOOM_BENCH_BOOST_PEER_H_
#define BLOCKBLOOM_BENCH_BOOST_PEER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace blockbloom::bench::boost_peer {

// The pairs of issue 9, each against the blockbloom layout with the same bits:
//   kFastMultiblock32x8: filter<K, 1, fast_multiblock32<8>>  vs split256 (8 x u32, one bit each)
//   kFastMultiblock64x8: filter<K, 1, fast_multiblock64<8>>  vs sectorized512 k = 8 and split512 (one bit per 64 bits of a line)
//   kBlock64x6:          filter<K, 1, block<uint64_t, 6>>    vs register64 k = 6
enum class Pair { kFastMultiblock32x8, kFastMultiblock64x8, kBlock64x6 };
inline constexpr Pair kPairs[] = {Pair::kFastMultiblock32x8, Pair::kFastMultiblock64x8, Pair::kBlock64x6};

// One Boost filter of `bits` bits (Boost's filter(m) constructor) over uint64
// keys or string keys (boost::hash, as a user gets by default).
class Peer {
 public:
  virtual ~Peer() = default;
  // How the keys are passed. Query returns the hits.
  enum class Loop {
    kBulk,    // Boost's insert(first, last) / may_contain(first, last, f)
    kInline,  // a loop of insert(x) / may_contain(x), inlined as a user's loop gets them
    kCalled,  // the same calls behind one out-of-line call per key, through a function
              // pointer (as a run-time dispatched library makes them; Mode::kPerCall)
  };
  virtual void Insert(const uint64_t* keys, size_t n, Loop loop) = 0;
  virtual uint64_t Query(const uint64_t* keys, size_t n, Loop loop) const = 0;
  virtual void Insert(const std::string_view* keys, size_t n, Loop loop) = 0;
  virtual uint64_t Query(const std::string_view* keys, size_t n, Loop loop) const = 0;
  virtual uint64_t Bytes() const = 0;  // Boost's capacity() / 8
  // Reads every byte of the filter's array (Boost's array()), returning their
  // sum: an untimed warm-up, so that a timed form finds the filter where a
  // filter of its size lives between uses (peer_ab.cc).
  virtual uint64_t Touch() const = 0;
};

// Whether Boost.Bloom was found at configure time (else Make returns null).
bool Available();
std::unique_ptr<Peer> Make(Pair pair, uint64_t bits, bool string_keys);
const char* PairName(Pair pair);  // the row's layout field: "boost_fmb32x8", ...

}  // namespace blockbloom::bench::boost_peer

#endif  // BLOCKBLOOM_BENCH_BOOST_PEER_H_
