// SPDX-License-Identifier: Apache-2.0
// What the engine's own loaders (format, Parquet, fold) and the kernels' glue
// may reach inside a filter that its users may not: the writable payload and
// the inserted count, and a view over memory the engine has validated.
#ifndef BLOCKBLOOM_ENGINE_FILTER_ACCESS_H_
#define BLOCKBLOOM_ENGINE_FILTER_ACCESS_H_

#include <cstdint>

#include "blockbloom/filter.h"
#include "blockbloom/view.h"
#include "kernels/kernels.h"

namespace blockbloom::detail {

struct FilterAccess {
  static uint8_t* MutableData(Filter& f) { return f.one_.bits; }
  static void SetInserted(Filter& f, uint64_t n) { f.inserted_ = n; }
  // A view of `bits`, which must hold LayoutPayloadBytes(layout, num_blocks)
  // validated bytes, 64-byte aligned, and outlive the view.
  static FilterView View(Layout layout, uint32_t k, uint64_t num_blocks, HashKind hash, uint64_t seed,
                         uint64_t inserted, const uint8_t* bits) {
    return FilterView(layout, k, num_blocks, hash, seed, inserted, bits);
  }
  // The view's single-key probes (its constructors).
  static void SetProbes(FilterView& v, const kernels::OneKeyOps& one) {
    v.query_one_ = one.query;
    v.insert_one_ = one.insert;
    v.query_key_ = one.query_key;
    v.insert_key_ = one.insert_key;
    v.insert_atomic_ = one.insert_atomic;
  }
  static kernels::FilterRef Ref(const FilterView& v) {
    return {v.one_.bits, v.one_.num_blocks, v.one_.k, v.layout_};
  }
};

}  // namespace blockbloom::detail

#endif  // BLOCKBLOOM_ENGINE_FILTER_ACCESS_H_
