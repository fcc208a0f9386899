// SPDX-License-Identifier: Apache-2.0
// The growing filter of the garden: ScalableFilter (Almeida, Baquero,
// Preguica & Hutchison 2007), a chain of blockbloom::Filter slices.
#ifndef BLOCKBLOOM_GARDEN_SCALABLE_H_
#define BLOCKBLOOM_GARDEN_SCALABLE_H_

#include <cstdint>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/garden/common.h"
#include "blockbloom/model.h"

namespace blockbloom::garden {

// Slice i (i = 0, 1, ...) is Filter::ForKeys(layout, n_i, P_i): the smallest
// engine filter whose exact model rate at n_i keys is <= P_i, with
//   n_i = n_0 s^i  (growth s, 2 or 4: the slices' sizes grow geometrically, so
//                   the number of slices is logarithmic in the keys),
//   P_i = P_0 r^i  (tightening ratio r, 0.8 to 0.9).
// Each slice probes with its own derived hash (DeriveHash(h, i)), so an absent
// key's false-positive events in different slices are independent and the
// compound rate with l slices is
//   F = 1 - prod_{i<l} (1 - P_i)
//     <= sum_i P_0 r^i        (union bound: 1 - prod(1 - x_i) <= sum x_i)
//     <  P_0 / (1 - r)        (geometric series), for any number of slices.
// The constructor takes the OVERALL bound P users expect (RedisBloom's
// error_rate) and sets P_0 = P (1 - r), so F < P however many slices: P = 1%,
// r = 0.85 -> P_0 = 0.15%.
//
// Limits: slice i asks for rate P_0 r^i; at r = 0.85 slice 100 asks for
// P_0 * 9e-8. A slice is refused with std::length_error naming the slice, its
// rate and capacity, when the layout cannot reach its rate (blocked layouts
// bottom out near n 2^-32 per block from the 32-bit probe word), when it would
// need more than kMaxSliceBitsPerKey bits per key (1024: the classic layout
// reaches 1e-100 with 480), or past kMaxSlices (64) slices. Growth 1 keeps
// every slice at n_0 keys while its rate tightens, so it reaches these limits
// soonest (blocked512, n_0 = 100, P = 1%: refused at slice 64, with 6,400 keys,
// instead of std::bad_alloc at slice 198 as before).
// Insert adds a key to the newest slice unless the filter already reports it
// (Almeida et al.: a duplicate must not use up capacity); when the newest slice
// holds n_i keys, the next new key opens slice i + 1.
//
// Merge (MergeFrom): slice-wise union of two filters with equal parameters
// (slice i of both uses the same size and derived hash); the merged filter has
// the longer chain. Refused (std::invalid_argument, naming why) for different
// parameters, or when a slice's summed key count exceeds its capacity n_i
// (its rate would exceed P_i and the bound P would no longer hold). The slices
// are sized so that their rates sum to exactly P, so there is no slack to
// spend: in practice two filters merge while their keys together fit the
// slices, e.g. two digests each holding at most n_0 / 2 keys; a filter that
// has opened slice 1 (slice 0 full) merges only with an empty one.
//
// Thread safety: const members may run concurrently with each other; any
// writer (Insert, Clear, MergeFrom, a load) needs exclusive access.
class ScalableFilter {
 public:
  static constexpr uint32_t kMaxSlices = 64;
  static constexpr uint64_t kMaxSliceBitsPerKey = 1024;

  struct Options {
    Layout layout = Layout::kBlocked512;
    uint32_t growth = 2;      // s
    double tightening = 0.85;  // r
    HashKind hash = HashKind::kXxh3;
    uint64_t seed = 0;
  };

  // initial_capacity n_0 >= 1, fpr = the overall bound P in (0, 1), growth in
  // [1, 16], tightening in (0, 1). Throws std::invalid_argument naming the
  // parameter otherwise, std::length_error if the first slice is impossible.
  ScalableFilter(uint64_t initial_capacity, double fpr);
  ScalableFilter(uint64_t initial_capacity, double fpr, const Options& options);

  // True if added, false if the filter already reported the key. Throws
  // std::length_error (changing nothing) if the key needs a slice beyond the
  // limits above.
  template <Key K> bool Insert(const K& key) { return InsertHash(hasher_(key)); }
  template <Key K> bool MayContain(const K& key) const { return MayContainHash(hasher_(key)); }
  bool InsertHash(uint64_t hash);
  bool MayContainHash(uint64_t hash) const;

  // True only for a moved-from object (garden.h, "Moved-from objects").
  bool empty() const { return slices_.empty(); }
  size_t slices() const { return slices_.size(); }
  const Filter& slice(size_t i) const { return slices_[i]; }
  uint64_t SliceCapacity(size_t i) const;  // n_0 s^i
  double SliceFpr(size_t i) const;         // P_0 r^i
  double fpr() const { return fpr_; }       // P, the overall bound
  double first_slice_fpr() const;          // P_0 = P (1 - r)
  uint64_t initial_capacity() const { return initial_capacity_; }
  const KeyHasher& hasher() const { return hasher_; }
  // Back to one empty first slice.
  void Clear();
  void MergeFrom(const ScalableFilter& other);
  uint64_t inserted() const;               // keys added over all slices
  uint64_t byte_size() const;
  // The exact model now: 1 - prod_i (1 - PredictFpr(slice i at its load)).
  double Fpr() const;
  const Options& options() const { return options_; }

 private:
  friend struct GardenCodec;
  void AddSlice();
  Filter MakeSlice(size_t i) const;
  // Slice i's size without allocating it; throws std::length_error as above.
  static FilterParams PlanSlice(uint64_t initial_capacity, double fpr, const Options& options, size_t i);
  static uint64_t CapacityOf(uint64_t initial_capacity, uint32_t growth, size_t i);

  uint64_t initial_capacity_;
  double fpr_;
  Options options_;
  KeyHasher hasher_;
  std::vector<Filter> slices_;
};

// 1 - prod_{i<slices} (1 - P_0 r^i): the compound target rate.
double ScalableCompoundFpr(double p0, double r, uint32_t slices);
// P_0 / (1 - r): its limit over any number of slices.
double ScalableFprLimit(double p0, double r);

}  // namespace blockbloom::garden

#endif  // BLOCKBLOOM_GARDEN_SCALABLE_H_
