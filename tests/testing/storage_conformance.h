// One conformance suite every Storage backend passes: the cases, for the
// binaries that instantiate them with their backends (posix, file:// and
// memory in node_tests; S3 on Swift in s3_tests; GCS on the project's test
// server in gcs_tests). Each case gets a fresh root of its own.
#ifndef CKPTBENCH_TESTS_TESTING_STORAGE_CONFORMANCE_H_
#define CKPTBENCH_TESTS_TESTING_STORAGE_CONFORMANCE_H_

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "node/storage/storage_factory.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {

struct ConformanceBackend {
  std::string name;
  // A fresh, empty root (a directory under `tmp`, or a new prefix).
  std::function<absl::StatusOr<StorageLocation>(TempDir& tmp)> open;
  // No empty directories; no page cache to evict.
  bool object_store = false;
};

class StorageConformance : public ::testing::TestWithParam<ConformanceBackend> {
 protected:
  void SetUp() override {
    auto loc = GetParam().open(tmp_);
    ASSERT_TRUE(loc.ok()) << loc.status();
    storage_ = std::move(loc->storage);
    root_ = loc->path;
  }
  TempDir tmp_;
  std::string root_;
  std::shared_ptr<Storage> storage_;
};

// gtest prints a case's parameter (test listings, failures) as its name.
inline void PrintTo(const ConformanceBackend& b, std::ostream* os) {
  *os << b.name;
}

// For INSTANTIATE_TEST_SUITE_P: the backend's name names the cases.
inline std::string ConformanceName(
    const ::testing::TestParamInfo<ConformanceBackend>& info) {
  return info.param.name;
}

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_STORAGE_CONFORMANCE_H_
