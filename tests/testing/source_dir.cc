#include "tests/testing/source_dir.h"

namespace ckpt {

std::string SourceDir() { return CKPTBENCH_SOURCE_DIR; }

}  // namespace ckpt
