// The checkout's root, where tests find the scripts, configurations and
// servers they run. The path is compiled into source_dir.cc alone: on any
// other test source's compile command it would differ between checkouts,
// and the compiler cache (ccache) could not serve one checkout's objects to
// another (CI's clone and a developer's tree).
#ifndef CKPTBENCH_TESTS_TESTING_SOURCE_DIR_H_
#define CKPTBENCH_TESTS_TESTING_SOURCE_DIR_H_

#include <string>

namespace ckpt {

std::string SourceDir();

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_SOURCE_DIR_H_
