// Descriptor exhaustion for tests: lowers this process's soft
// RLIMIT_NOFILE to a few above the descriptors open now and opens
// /dev/null until open() fails with EMFILE; all given back on destruction.
#ifndef CKPTBENCH_TESTS_TESTING_DESCRIPTORS_H_
#define CKPTBENCH_TESTS_TESTING_DESCRIPTORS_H_

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <vector>

namespace ckpt {

class DescriptorsExhausted {
 public:
  DescriptorsExhausted() {
    getrlimit(RLIMIT_NOFILE, &saved_);
    const int probe = open("/dev/null", O_RDONLY);
    close(probe);
    rlimit low = saved_;
    low.rlim_cur = static_cast<rlim_t>(probe + 16);
    setrlimit(RLIMIT_NOFILE, &low);
    for (int fd; (fd = open("/dev/null", O_RDONLY)) >= 0;) held_.push_back(fd);
  }
  ~DescriptorsExhausted() {
    for (int fd : held_) close(fd);
    setrlimit(RLIMIT_NOFILE, &saved_);
  }
  DescriptorsExhausted(const DescriptorsExhausted&) = delete;
  DescriptorsExhausted& operator=(const DescriptorsExhausted&) = delete;
  // Descriptors taken to exhaust the limit.
  int held() const { return static_cast<int>(held_.size()); }

 private:
  rlimit saved_{};
  std::vector<int> held_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_DESCRIPTORS_H_
