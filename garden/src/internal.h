// SPDX-License-Identifier: Apache-2.0
// Private helpers of the garden sources (garden/src/*.cc), in the
// engine's private namespace beside detail::Invalid (engine/src/errors.h).
#ifndef BLOCKBLOOM_GARDEN_INTERNAL_H_
#define BLOCKBLOOM_GARDEN_INTERNAL_H_

#include <cstdint>
#include <string>

#include "engine/src/errors.h"

namespace blockbloom::detail {

// "<what> = <value> is out of range: expected <lo>..<hi>" unless lo <= value <= hi.
void CheckRange(const char* what, uint64_t value, uint64_t lo, uint64_t hi);
// The same for a real parameter that must lie strictly inside (lo, hi).
void CheckOpen(const char* what, double value, double lo, double hi);
// Throws std::logic_error("blockbloom: this <what> was moved from: it is empty
// and cannot be written; assign a <what> to it first"), for the writes of a
// moved-from variant (garden.h, "Moved-from objects").
[[noreturn]] void ThrowMovedFrom(const char* what);

}  // namespace blockbloom::detail

#endif  // BLOCKBLOOM_GARDEN_INTERNAL_H_
