// SPDX-License-Identifier: Apache-2.0
// BufferedInserter: one uint64 key at a time from the caller's loop, written to
// the filter in batches.
//
//   blockbloom::BufferedInserter ins(filter);
//   for (const Row& r : rows) ins.Insert(r.id);   // inline: a store and a count
//   ins.Flush();                                   // or let the destructor do it
//
// Why: Filter::Insert(key) is one call into the dispatched kernel per key, and
// on the CPUs measured a call costs more than a whole batched insert (Zen 5, 1M
// keys, split256: an empty call through a function pointer 1.42 ns/key,
// Insert(key) 2.5, InsertBatch 0.7; bench/results/boost_buffered_zen5.md).
// Here Insert(key) only stores the key in the inserter's buffer of kCapacity
// keys; a full buffer goes to Filter::InsertBatch (the batch pipeline, its
// look-ahead and hashing included). blockbloom/typed.h is the other way to
// fast single keys: it inlines the probe, but needs the layout at compile time
// and the caller's flags to name a SIMD target.
//
// Contract:
// - A key is in the filter (its bits set, filter.inserted() counting it) once
//   the buffer holding it is written: when kCapacity keys have been buffered,
//   at Flush(), or at destruction. Until then queries of the filter, its views,
//   Save and copies do not see it: call Flush() before reading the filter.
// - The same bits and count as Filter::InsertBatch of the same keys in the same
//   order (the buffer is one such batch).
// - The inserter borrows the filter: the filter must outlive it, and nothing
//   else may write the filter while keys are pending. Not thread-safe (as
//   Filter::Insert); the concurrent writers' API is Filter::InsertAtomic*.
// - The filter must be writable: an empty filter (default-constructed or moved
//   from) makes the constructor throw std::logic_error. If the filter is moved
//   from while keys are pending, Flush() throws std::logic_error and keeps them
//   pending; the destructor flushes without catching, so such an inserter's
//   destruction calls std::terminate. Flush before moving the filter.
// - The buffer (kCapacity keys, 32 KiB) is allocated by the constructor. Not
//   copyable or movable (a copy would insert its pending keys twice).
#ifndef BLOCKBLOOM_INSERTER_H_
#define BLOCKBLOOM_INSERTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>

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
    if (filter.empty())
      throw std::logic_error("blockbloom: BufferedInserter: the filter is empty (default-constructed or moved "
                             "from) and cannot be written; assign a filter to it first");
  }
  ~BufferedInserter() { Flush(); }
  BufferedInserter(const BufferedInserter&) = delete;
  BufferedInserter& operator=(const BufferedInserter&) = delete;

  void Insert(uint64_t key) {
    keys_[size_] = key;
    if (++size_ == kCapacity) Flush();
  }
  // Writes the pending keys to the filter (Filter::InsertBatch); nothing if
  // none. On an exception the keys stay pending.
  void Flush() {
    if (size_ == 0) return;
    filter_.InsertBatch(std::span<const uint64_t>(keys_.get(), size_));
    size_ = 0;
  }
  // Keys buffered and not yet in the filter.
  size_t pending() const { return size_; }
  Filter& filter() const { return filter_; }

 private:
  Filter& filter_;
  size_t size_ = 0;
  std::unique_ptr<uint64_t[]> keys_;  // kCapacity keys
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_INSERTER_H_
