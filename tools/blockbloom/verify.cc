// Placeholder until its issue lands; replaced wholesale.
#include <stdexcept>
#include "tools/blockbloom/commands.h"
namespace blockbloom::cli {
int Verify(int, char**) { throw std::runtime_error("not built yet"); }
}  // namespace blockbloom::cli
