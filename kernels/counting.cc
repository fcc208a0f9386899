// SPDX-License-Identifier: Apache-2.0
// The blocked counting filter's dispatch module (Highway's skeleton shape, as
// kernels/kernels.cc): this file re-includes itself once per target through
// foreach_target.h; each pass defines that target's CountingOps table, and the
// HWY_ONCE part collects the tables and follows the engine's active target.
#include <span>

#include "kernels/counting.h"
#include "kernels/kernels.h"
#include "kernels/registry.h"

#include "kernels/hwy_targets.h"  // before foreach_target.h

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/counting.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "kernels/highway.h"
#include "kernels/counting-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels::counting {
namespace HWY_NAMESPACE {

uint64_t InsertHashes(const CountingRef& f, const uint64_t* h, size_t n) {
  return RunBatch<Op::kInsert>(f, h, n, nullptr);
}
size_t RemoveHashes(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* removed) {
  return static_cast<size_t>(RunBatch<Op::kRemove>(f, h, n, removed));
}
size_t QueryHashes(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* out) {
  return static_cast<size_t>(RunBatch<Op::kQuery>(f, h, n, out));
}
void CountHashes(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* out) {
  RunBatch<Op::kCount>(f, h, n, out);
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

const TargetRegistry<CountingOps>& GetRegistry() {
  static const TargetRegistry<CountingOps> r(HWY_DISPATCH_TABLE(GetCountingOps));
  return r;
}

}  // namespace

std::span<const CountingOps* const> CountingTargets() { return GetRegistry().all(); }

bool Supported(const CountingOps& ops) { return (hwy::SupportedTargets() & ops.target) != 0; }

const CountingOps& ActiveCounting() {
  // Follow the engine's choice (pinned or best) so one switch pins both.
  const int64_t want = kernels::Active().target;
  const std::span<const CountingOps* const> all = GetRegistry().all();
  for (const CountingOps* o : all) {
    if (o->target == want) return *o;
  }
  for (const CountingOps* o : all) {
    if (Supported(*o)) return *o;
  }
  return *all.back();
}

}  // namespace blockbloom::kernels::counting
#endif  // HWY_ONCE
