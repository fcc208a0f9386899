// SPDX-License-Identifier: Apache-2.0
// The blocked counting filter's dispatch module (Highway's skeleton shape, as
// kernels/kernels.cc): this file re-includes itself once per target through
// foreach_target.h; each pass defines that target's CountingOps table, and the
// HWY_ONCE part collects the tables and follows the engine's active target.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "kernels/counting.h"
#include "kernels/kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/counting.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/counting-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels::counting {
namespace HWY_NAMESPACE {

uint64_t InsertHashes(const CountingRef& f, const uint64_t* h, size_t n) {
  return Dispatch<Op::kInsert>(f, h, n, nullptr);
}
size_t RemoveHashes(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* removed) {
  return static_cast<size_t>(Dispatch<Op::kRemove>(f, h, n, removed));
}
size_t QueryHashes(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* out) {
  return static_cast<size_t>(Dispatch<Op::kQuery>(f, h, n, out));
}
void CountHashes(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* out) {
  Dispatch<Op::kCount>(f, h, n, out);
}

const CountingOps* GetCountingOps() {
  static const CountingOps ops{HWY_TARGET, hwy::TargetName(HWY_TARGET), &InsertHashes, &RemoveHashes, &QueryHashes,
                               &CountHashes};
  return &ops;
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels::counting
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace blockbloom::kernels::counting {

HWY_EXPORT(GetCountingOps);

namespace {

// CountingOps::name is Highway's TargetName ("AVX2"); the registry keeps a
// lower-case copy, as kernels.cc does for the filter kernels.
struct Registry {
  std::vector<std::string> names;
  std::vector<CountingOps> ops;
  std::vector<const CountingOps*> ptrs;

  Registry() {
    // Entry 0 of the export table is Highway's lazy initializer; the rest are
    // the compiled targets, best first, with nullptr for targets not compiled.
    const size_t size = std::size(HWY_DISPATCH_TABLE(GetCountingOps));
    for (size_t i = size > 1 ? 1 : 0; i < size; ++i) {
      const auto fn = HWY_DISPATCH_TABLE(GetCountingOps)[i];
      if (fn == nullptr) continue;
      const CountingOps* o = fn();
      if (std::any_of(ops.begin(), ops.end(), [&](const CountingOps& x) { return x.target == o->target; }))
        continue;
      ops.push_back(*o);
      std::string lower(o->name);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      names.push_back(lower);
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      ops[i].name = names[i].c_str();
      ptrs.push_back(&ops[i]);
    }
  }
};

const Registry& GetRegistry() {
  static const Registry r;
  return r;
}

}  // namespace

std::span<const CountingOps* const> CountingTargets() { return GetRegistry().ptrs; }

bool Supported(const CountingOps& ops) { return (hwy::SupportedTargets() & ops.target) != 0; }

const CountingOps& ActiveCounting() {
  // Follow the engine's choice (pinned or best) so one switch pins both.
  const int64_t want = kernels::Active().target;
  const Registry& r = GetRegistry();
  for (const CountingOps* o : r.ptrs) {
    if (o->target == want) return *o;
  }
  for (const CountingOps* o : r.ptrs) {
    if (Supported(*o)) return *o;
  }
  return *r.ptrs.back();
}

}  // namespace blockbloom::kernels::counting
#endif  // HWY_ONCE
