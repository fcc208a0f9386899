// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/targets.h"

#include <string>
#include <vector>

#include "engine/src/errors.h"
#include "kernels/kernels.h"

namespace blockbloom {

std::span<const TargetInfo> CompiledTargets() {
  static const std::vector<TargetInfo> list = [] {
    std::vector<TargetInfo> v;
    for (const kernels::Ops* o : kernels::CompiledTargets()) v.push_back({o->name, kernels::Supported(*o)});
    return v;
  }();
  return list;
}

std::string_view ActiveTarget() { return kernels::Active().name; }

void PinTarget(std::string_view name) {
  if (kernels::PinTarget(name)) return;
  std::string msg = "target '" + std::string(name) +
                    "' is not available: expected 'auto' or one of the compiled targets this CPU supports:";
  for (const TargetInfo& t : CompiledTargets()) {
    if (t.supported) msg.append(" ").append(t.name);
  }
  detail::Invalid(msg);
}

}  // namespace blockbloom
