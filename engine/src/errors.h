// SPDX-License-Identifier: Apache-2.0
// The engine's one way to reject a bad argument: std::invalid_argument with
// the "blockbloom: " prefix every message carries, e.g.
//   Invalid("k = 3 is out of range for layout sectorized512: expected 1, 2, 4, 8 or 16").
#ifndef BLOCKBLOOM_ENGINE_ERRORS_H_
#define BLOCKBLOOM_ENGINE_ERRORS_H_

#include <stdexcept>
#include <string>

namespace blockbloom::detail {

[[noreturn]] inline void Invalid(const std::string& msg) { throw std::invalid_argument("blockbloom: " + msg); }

}  // namespace blockbloom::detail

#endif  // BLOCKBLOOM_ENGINE_ERRORS_H_
