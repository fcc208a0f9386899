// Placeholder until its issue lands; replaced wholesale.
#include <stdexcept>
#include "tools/blockbloom/commands.h"
namespace blockbloom::cli {
int Params(int, char**) { throw std::runtime_error("not built yet"); }
int Table(int, char**) { throw std::runtime_error("not built yet"); }
}  // namespace blockbloom::cli
