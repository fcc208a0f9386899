// SPDX-License-Identifier: Apache-2.0
// Old path, kept for one release (0.1.x) and then removed: include <blockbloom/verify/stats.h> (blockbloom::verify).
#include "blockbloom/verify/stats.h"  // IWYU pragma: export
