// SPDX-License-Identifier: Apache-2.0
// Old path, kept for one release (0.1.x) and then removed: include <blockbloom/verify/measure.h> (blockbloom::verify).
#include "blockbloom/verify/measure.h"  // IWYU pragma: export
