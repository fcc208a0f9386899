// Placeholder until its issue lands; replaced wholesale.
#include <stdexcept>
#include "tools/blockbloom/commands.h"
namespace blockbloom::cli {
int Build(int, char**) { throw std::runtime_error("not built yet"); }
int Query(int, char**) { throw std::runtime_error("not built yet"); }
int Stats(int, char**) { throw std::runtime_error("not built yet"); }
int Merge(int, char**) { throw std::runtime_error("not built yet"); }
int Fold(int, char**) { throw std::runtime_error("not built yet"); }
int ImportParquet(int, char**) { throw std::runtime_error("not built yet"); }
int ExportParquet(int, char**) { throw std::runtime_error("not built yet"); }
}  // namespace blockbloom::cli
