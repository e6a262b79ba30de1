// A temporary directory removed (recursively) when the object dies.
#ifndef CKPTBENCH_TESTS_TESTING_TEMP_DIR_H_
#define CKPTBENCH_TESTS_TESTING_TEMP_DIR_H_

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ckpt {

class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "ckptbench-test-XXXXXX")
            .string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Regular files under `dir`, recursively (0 when it is not there; what
// cannot be read, such as a directory removed meanwhile, ends the count).
inline size_t CountFiles(const std::string& dir) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) ++n;
  }
  return n;
}

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_TEMP_DIR_H_
