// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/version.h"

namespace blockbloom {

std::string_view Version() { return BLOCKBLOOM_VERSION_STRING; }

}  // namespace blockbloom
