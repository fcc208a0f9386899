// SPDX-License-Identifier: Apache-2.0
// SIMD targets: which kernels this binary carries, which one runs, and how to
// pin one. The best target the CPU supports is chosen at first use; the
// environment variable BLOCKBLOOM_TARGET (read once, at first use) or
// PinTarget() choose another. Every target writes the same bytes as the scalar
// reference, so pinning changes speed, never answers.
#ifndef BLOCKBLOOM_TARGETS_H_
#define BLOCKBLOOM_TARGETS_H_

#include <span>
#include <string_view>

namespace blockbloom {

struct TargetInfo {
  std::string_view name;  // "avx3", "avx2", "sse4", "ssse3", "emu128", "scalar", "neon", "sve", ...
  bool supported;         // whether this CPU can run it
};
// Every target compiled into this binary, best first.
std::span<const TargetInfo> CompiledTargets();
// The target the kernels use now.
std::string_view ActiveTarget();
// Pins a target by name, case-insensitive ("auto" unpins). Throws
// std::invalid_argument naming the compiled and supported targets if `name` is
// not one of them. Thread-safe; calls in flight finish on the target they began with.
// Batch calls use the target active at the call; a filter's (or view's)
// single-key calls keep the probe chosen when it was made.
void PinTarget(std::string_view name);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_TARGETS_H_
