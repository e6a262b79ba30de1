// Calls that must not block on a FIFO, tested without hanging the test when
// they do: the call runs on another thread, and if it has not returned in
// time, the FIFO is opened for writing once (and closed), which lets a
// blocked open(2) return, so the test fails instead of hanging.
#ifndef CKPTBENCH_TESTS_TESTING_FIFO_H_
#define CKPTBENCH_TESTS_TESTING_FIFO_H_

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <string>

namespace ckpt {

// fn()'s result; *blocked says whether it needed the FIFO opened to return.
template <typename Fn>
auto CallBesideFifo(const std::string& fifo, double seconds, bool* blocked,
                    Fn fn) -> decltype(fn()) {
  auto call = std::async(std::launch::async, fn);
  *blocked = call.wait_for(std::chrono::duration<double>(seconds)) !=
             std::future_status::ready;
  if (*blocked) {
    const int w = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0) close(w);
  }
  return call.get();
}

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_FIFO_H_
