// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/hash.h"
#include "blockbloom/verify/exact_set.h"

#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "blockbloom/layout.h"
#include "engine/src/errors.h"

namespace blockbloom {
namespace {

// The table's own hash: XXH3 with a seed of its own, so that its slots are not
// correlated with any filter's blocks (filters default to seed 0). The value is
// the first 8 bytes of the SHA-256 of "blockbloom exact set", an arbitrary
// nothing-up-my-sleeve choice.
constexpr uint64_t kExactSetSeed = 0x180a16d596c82c8dULL;
// Grow when size > capacity * 3/4: linear probing's expected probe count for a
// miss, (1 + 1/(1 - a)^2)/2, is 8.5 at a = 3/4.
constexpr size_t kLoadNum = 3, kLoadDen = 4;
constexpr size_t kMinSlots = 16;

uint64_t TableHash(std::string_view key) { return HashBytes(key, HashKind::kXxh3, kExactSetSeed); }

std::string_view LittleEndianBytes(uint64_t key, char (&buf)[8]) {
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(key >> (8 * i));
  return {buf, 8};
}

}  // namespace

ExactSet::ExactSet(size_t expected) {
  size_t slots = kMinSlots;
  while (slots * kLoadNum / kLoadDen < expected) slots *= 2;
  slots_.assign(slots, Slot{0, 0});
}

std::string_view ExactSet::KeyAt(uint64_t offset) const {
  uint32_t len;
  std::memcpy(&len, arena_.data() + offset, sizeof len);
  return {arena_.data() + offset + sizeof len, len};
}

size_t ExactSet::Find(std::string_view key, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.offset_plus_one == 0) return i;
    if (s.hash == hash && KeyAt(s.offset_plus_one - 1) == key) return i;
  }
}

void ExactSet::Grow() {
  std::vector<Slot> old(slots_.size() * 2, Slot{0, 0});
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.offset_plus_one == 0) continue;
    size_t i = s.hash & mask;
    while (slots_[i].offset_plus_one != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

bool ExactSet::Insert(std::string_view key) {
  if (key.size() > UINT32_MAX)
    detail::Invalid("exact set key of " + std::to_string(key.size()) + " bytes is too long: expected at most 4294967295");
  const uint64_t hash = TableHash(key);
  size_t i = Find(key, hash);
  if (slots_[i].offset_plus_one != 0) return false;
  if ((size_ + 1) * kLoadDen > slots_.size() * kLoadNum) {
    Grow();
    i = Find(key, hash);
  }
  const uint64_t offset = arena_.size();
  const auto len = static_cast<uint32_t>(key.size());
  arena_.resize(arena_.size() + sizeof len + key.size());
  std::memcpy(arena_.data() + offset, &len, sizeof len);
  if (!key.empty()) std::memcpy(arena_.data() + offset + sizeof len, key.data(), key.size());
  slots_[i] = Slot{hash, offset + 1};
  ++size_;
  return true;
}

bool ExactSet::Contains(std::string_view key) const {
  return slots_[Find(key, TableHash(key))].offset_plus_one != 0;
}

bool ExactSet::Insert(uint64_t key) {
  char buf[8];
  return Insert(LittleEndianBytes(key, buf));
}

bool ExactSet::Contains(uint64_t key) const {
  char buf[8];
  return Contains(LittleEndianBytes(key, buf));
}

void ExactSet::Clear() {
  slots_.assign(kMinSlots, Slot{0, 0});
  arena_.clear();
  arena_.shrink_to_fit();
  size_ = 0;
}

}  // namespace blockbloom
