// SPDX-License-Identifier: Apache-2.0
// blockbloom::ExactSet: the truth a Bloom filter approximates. It stores every
// distinct key's bytes and answers membership exactly, so false positives are
// counted against what was really inserted: duplicate keys count once (the
// model's n is size()), and a probe that happens to be present is a true
// positive, not a false one.
//
// Keys are byte strings; a uint64 key is its 8 little-endian bytes, as in the
// filter (HashU64(x) == HashBytes(8 LE bytes of x)), so Insert(uint64_t{x}) and
// Insert(string_view of those 8 bytes) are the same key.
//
// Layout: the bytes of every key in one arena ([u32 length][bytes]...), and an
// open-addressing table (linear probing, load <= 3/4) of {64-bit hash, arena
// offset}; a lookup compares the stored hash first and the bytes on a match.
// Memory: ~21-43 bytes per key plus the key bytes (10^7 8-byte keys: ~0.4 GB).
// Keys up to 2^32 - 1 bytes; the arena up to 2^64 bytes.
#ifndef BLOCKBLOOM_VERIFY_EXACT_SET_H_
#define BLOCKBLOOM_VERIFY_EXACT_SET_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace blockbloom {

class ExactSet {
 public:
  // Reserves room for `expected` keys (the table grows as needed anyway).
  explicit ExactSet(size_t expected = 0);

  // Adds the key; returns true if it was not there yet.
  bool Insert(std::string_view key);
  bool Insert(uint64_t key);
  bool Contains(std::string_view key) const;
  bool Contains(uint64_t key) const;

  size_t size() const { return size_; }  // distinct keys
  void Clear();

 private:
  struct Slot {
    uint64_t hash;
    uint64_t offset_plus_one;  // 0: empty
  };
  // The slot holding `key`, or the empty slot where it would go.
  size_t Find(std::string_view key, uint64_t hash) const;
  std::string_view KeyAt(uint64_t offset) const;
  void Grow();

  std::vector<Slot> slots_;  // a power of two in size
  std::vector<char> arena_;
  size_t size_ = 0;
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_VERIFY_EXACT_SET_H_
