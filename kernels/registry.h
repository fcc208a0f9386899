// SPDX-License-Identifier: Apache-2.0
// The compiled targets' ops tables, collected once from a Highway export table
// (HWY_DISPATCH_TABLE): the filter kernels (kernels.cc) and the blocked
// counting filter's (counting.cc) both list their targets through it. Plain
// C++: no Highway header is needed to use it.
#ifndef BLOCKBLOOM_KERNELS_REGISTRY_H_
#define BLOCKBLOOM_KERNELS_REGISTRY_H_

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace blockbloom::kernels {

inline std::string LowerAscii(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// OpsT has `int64_t target` (the Highway target bit) and `const char* name`
// (Highway's TargetName, "AVX2"); the registry keeps a lower-case copy.
template <class OpsT>
class TargetRegistry {
 public:
  // Entry 0 of an export table is Highway's lazy initializer; the rest are the
  // compiled targets, best first, with nullptr for targets not compiled.
  template <class Fn, size_t kSize>
  explicit TargetRegistry(Fn const (&table)[kSize]) {
    for (size_t i = kSize > 1 ? 1 : 0; i < kSize; ++i) {
      if (table[i] == nullptr) continue;
      const OpsT* o = table[i]();
      if (std::any_of(ops_.begin(), ops_.end(), [&](const OpsT& x) { return x.target == o->target; })) continue;
      ops_.push_back(*o);
      names_.push_back(LowerAscii(o->name));
    }
    for (size_t i = 0; i < ops_.size(); ++i) {
      ops_[i].name = names_[i].c_str();
      ptrs_.push_back(&ops_[i]);
    }
  }
  TargetRegistry(const TargetRegistry&) = delete;
  TargetRegistry& operator=(const TargetRegistry&) = delete;

  // Best first; the last is the fallback that runs everywhere.
  std::span<const OpsT* const> all() const { return ptrs_; }

 private:
  std::vector<std::string> names_;
  std::vector<OpsT> ops_;
  std::vector<const OpsT*> ptrs_;
};

}  // namespace blockbloom::kernels

#endif  // BLOCKBLOOM_KERNELS_REGISTRY_H_
