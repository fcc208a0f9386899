// SPDX-License-Identifier: Apache-2.0
// Old path, kept for one release (0.1.x) and then removed: include <blockbloom/verify/exact_set.h> (blockbloom::verify).
#include "blockbloom/verify/exact_set.h"  // IWYU pragma: export
