// SPDX-License-Identifier: Apache-2.0
// BufferedInserter: one key at a time from the caller's loop, written to the
// filter in batches.
//
//   blockbloom::BufferedInserter ins(filter);
//   for (const Row& r : rows) ins.Insert(r.id);   // uint64: inline, a store and a count
//   for (const Row& r : rows) ins.Insert(r.url);  // std::string_view: hashed now, its hash stored
//   ins.Flush();                                   // or let the destructor do it
//
// Why: Filter::Insert(key) is one call into the dispatched kernel per key, and
// on the CPUs measured a call costs more than a whole batched insert (Zen 5, 1M
// keys, split256: an empty call through a function pointer 1.42 ns/key,
// Insert(key) 2.5, InsertBatch 0.7; bench/results/boost_buffered_zen5.md).
// Here Insert(key) only stores the key in the inserter's buffer of kCapacity
// keys; a full buffer goes to Filter::InsertBatch (the batch pipeline, its
// look-ahead and hashing included). A string key is hashed at Insert (the
// batch would hash it one key at a time too) and its hash goes to a second
// buffer, written with Filter::InsertHashBatch; so does InsertHash's. What the
// strings gain is the batch's look-ahead (Zen 5, URL keys, 10M keys: 10
// ns/key against 54-57 for Insert(key); bench/results/
// boost_full_r5_aes_zen5_37bbd3e.md). blockbloom/typed.h is the other way to
// fast single keys: it inlines the probe, but needs the layout at compile time
// and the caller's flags to name a SIMD target.
//
// Contract:
// - A key is in the filter (its bits set, filter.inserted() counting it) once
//   the buffer holding it is written: when kCapacity keys have been buffered,
//   at Flush(), or at destruction. Until then queries of the filter, its views,
//   Save and copies do not see it: call Flush() before reading the filter.
// - The same bits and count as Filter::InsertBatch of the same keys (uint64
//   keys, strings, or both: Flush writes the uint64 keys' batch, then the
//   hashes'), and InsertHash's hashes as Filter::InsertHashBatch's.
// - Strings are hashed with the hash kind and seed the filter had when the
//   first of the pending hashes arrived (the pending hashes belong to that
//   filter): if the filter is empty then, Insert(string) and InsertHash throw
//   std::logic_error; if it is assigned a filter of another hash kind or seed
//   while hashes are pending, Flush() throws std::logic_error naming both and
//   keeps them pending.
// - The inserter borrows the filter: the filter must outlive it, and nothing
//   else may write the filter while keys are pending. Not thread-safe (as
//   Filter::Insert); the concurrent writers' API is Filter::InsertAtomic*.
// - The filter must be writable: an empty filter (default-constructed or moved
//   from) makes the constructor throw std::logic_error. If the filter is moved
//   from while keys are pending, Flush() throws std::logic_error and keeps them
//   pending. The destructor flushes without catching, so the destruction of an
//   inserter whose Flush() would throw (this case, or hashes pending for
//   another seed, above) calls std::terminate: flush before moving or
//   reassigning the filter.
// - The uint64 keys' buffer (kCapacity keys, 32 KiB) is allocated by the
//   constructor, the hashes' (32 KiB) by the first string or hash inserted. Not
//   copyable or movable (a copy would insert its pending keys twice).
#ifndef BLOCKBLOOM_INSERTER_H_
#define BLOCKBLOOM_INSERTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "blockbloom/filter.h"

namespace blockbloom {

class BufferedInserter {
 public:
  // Keys per batch. A batch call pays a fixed cost (its look-ahead starts
  // cold), so short batches cost more per key (Zen 5, 1M keys, fresh keys,
  // split256: 1024 keys a call 1.25 ns/key, 4096 0.87, 65536 0.75; split512
  // 1.64, 1.09, 0.91; at 10M keys split256 2.44, 1.93, 1.83). 4096 keys
  // (32 KiB, on the heap) keep it within 1.2x of long batches.
  static constexpr size_t kCapacity = 4096;

  explicit BufferedInserter(Filter& filter) : filter_(filter), keys_(new uint64_t[kCapacity]) {
    if (filter.empty()) ThrowEmpty();
  }
  ~BufferedInserter() { Flush(); }
  BufferedInserter(const BufferedInserter&) = delete;
  BufferedInserter& operator=(const BufferedInserter&) = delete;

  void Insert(uint64_t key) {
    keys_[size_] = key;
    if (++size_ == kCapacity) Flush();
  }
  // A string key: hashed now (HashBytes with the filter's hash kind and seed,
  // as Filter::Insert(std::string_view) hashes it), its hash buffered.
  void Insert(std::string_view key) {
    if (hash_size_ == 0) BeginHashes();  // kind_ and seed_ are the filter's from here
    InsertHash(HashBytes(key, kind_, seed_));
  }
  // A precomputed hash (HashU64 / HashBytes with the filter's hash kind and
  // seed), as Filter::InsertHash takes it.
  void InsertHash(uint64_t hash) {
    if (hash_size_ == 0) BeginHashes();
    hashes_[hash_size_] = hash;
    if (++hash_size_ == kCapacity) FlushHashes();
  }
  // Writes the pending keys to the filter (Filter::InsertBatch, then
  // Filter::InsertHashBatch for the hashes); nothing if none. On an exception
  // the keys not yet written stay pending.
  void Flush() {
    if (size_ != 0) {
      filter_.InsertBatch(std::span<const uint64_t>(keys_.get(), size_));
      size_ = 0;
    }
    if (hash_size_ != 0) FlushHashes();
  }
  // Keys (and hashes) buffered and not yet in the filter.
  size_t pending() const { return size_ + hash_size_; }
  Filter& filter() const { return filter_; }

 private:
  [[noreturn]] static void ThrowEmpty() {
    throw std::logic_error("blockbloom: BufferedInserter: the filter is empty (default-constructed or moved "
                           "from) and cannot be written; assign a filter to it first");
  }
  // The first pending hash: the filter's hash kind and seed are the ones its
  // hashes are for (out of line of the per-key path).
  void BeginHashes() {
    if (filter_.empty()) ThrowEmpty();
    if (!hashes_) hashes_.reset(new uint64_t[kCapacity]);
    kind_ = filter_.hash_kind();
    seed_ = filter_.seed();
  }
  void FlushHashes() {
    if (!filter_.empty() && (filter_.hash_kind() != kind_ || filter_.seed() != seed_))
      throw std::logic_error("blockbloom: BufferedInserter::Flush: " + std::to_string(hash_size_) +
                             " pending hashes are for hash " + std::string(HashName(kind_)) + " seed " +
                             std::to_string(seed_) + ", and the filter now has hash " +
                             std::string(HashName(filter_.hash_kind())) + " seed " +
                             std::to_string(filter_.seed()) + "; they stay pending");
    filter_.InsertHashBatch(std::span<const uint64_t>(hashes_.get(), hash_size_));
    hash_size_ = 0;
  }

  Filter& filter_;
  size_t size_ = 0;
  std::unique_ptr<uint64_t[]> keys_;  // kCapacity uint64 keys
  size_t hash_size_ = 0;
  std::unique_ptr<uint64_t[]> hashes_;  // kCapacity hashes, from the first string or hash
  HashKind kind_ = HashKind::kXxh3;     // the pending hashes' hash kind and seed
  uint64_t seed_ = 0;
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_INSERTER_H_
