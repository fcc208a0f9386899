// The growing filter of the garden: ScalableFilter (Almeida, Baquero,
// Preguica & Hutchison 2007), a chain of blockbloom::Filter slices.
#ifndef BLOCKBLOOM_GARDEN_SCALABLE_H_
#define BLOCKBLOOM_GARDEN_SCALABLE_H_

#include <cstdint>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/garden/common.h"

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
// Example: P_0 = 0.001, r = 0.85 -> F < 0.00667 however large the filter grows.
// Insert adds a key to the newest slice unless the filter already reports it
// (Almeida et al.: a duplicate must not use up capacity); when the newest slice
// holds n_i keys, the next new key opens slice i + 1.
class ScalableFilter {
 public:
  struct Options {
    Layout layout = Layout::kBlocked512;
    uint32_t growth = 2;      // s
    double tightening = 0.85;  // r
    HashKind hash = HashKind::kXxh3;
    uint64_t seed = 0;
  };

  // initial_capacity n_0 >= 1, fpr P_0 in (0, 1), growth in [1, 16], tightening
  // in (0, 1). Throws std::invalid_argument naming the parameter otherwise.
  ScalableFilter(uint64_t initial_capacity, double fpr);
  ScalableFilter(uint64_t initial_capacity, double fpr, const Options& options);

  // True if added, false if the filter already reported the key.
  template <Key K> bool Insert(const K& key) { return InsertHash(hasher_(key)); }
  template <Key K> bool MayContain(const K& key) const { return MayContainHash(hasher_(key)); }
  bool InsertHash(uint64_t hash);
  bool MayContainHash(uint64_t hash) const;

  size_t slices() const { return slices_.size(); }
  const Filter& slice(size_t i) const { return slices_[i]; }
  uint64_t SliceCapacity(size_t i) const;  // n_0 s^i
  double SliceFpr(size_t i) const;         // P_0 r^i
  uint64_t inserted() const;               // keys added over all slices
  uint64_t byte_size() const;
  // The exact model now: 1 - prod_i (1 - PredictFpr(slice i at its load)).
  double Fpr() const;
  const Options& options() const { return options_; }

 private:
  void AddSlice();

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
