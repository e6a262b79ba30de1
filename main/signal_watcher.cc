#include "main/signal_watcher.h"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "common/exit_code.h"
#include "common/log.h"

namespace ckpt {

namespace {

std::string SignalName(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "SIGTERM";
  }
}

}  // namespace

SignalWatcher::SignalWatcher() {
  // A closed pipe (ckptbench ... | head) must not end a run without its
  // results: writes to it fail instead.
  signal(SIGPIPE, SIG_IGN);
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGHUP);   // a closed terminal or ssh session: as TERM
  sigaddset(&set_, SIGUSR1);  // our own wake-up at the end
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  thread_ = std::thread([this] { Loop(); });
}

void SignalWatcher::Loop() {
  for (;;) {
    bool waiting;
    {
      std::lock_guard<std::mutex> lock(mu_);
      waiting = !waiting_.empty();
    }
    int sig = 0;
    if (waiting) {
      // A grace period runs: look at the clock ten times a second.
      timespec tick{0, 100 * 1000 * 1000};
      sig = sigtimedwait(&set_, nullptr, &tick);
      if (sig < 0) {
        if (errno != EAGAIN && errno != EINTR) return;
        std::lock_guard<std::mutex> lock(mu_);
        if (!waiting_.empty() &&
            std::chrono::steady_clock::now() - since_ >
                std::chrono::duration<double>(kGraceSeconds)) {
          ExpireLocked(waiting_, /*again=*/false);
        }
        continue;
      }
    } else if (sigwait(&set_, &sig) != 0) {
      return;
    }
    if (sig == SIGUSR1) return;
    std::lock_guard<std::mutex> lock(mu_);
    const std::string name = SignalName(sig);
    if (received_.empty()) received_ = name;
    if (!waiting_.empty()) ExpireLocked(name, /*again=*/true);
    waiting_ = name;
    since_ = std::chrono::steady_clock::now();
    delivered_ = static_cast<bool>(on_signal_);
    if (on_signal_) {
      on_signal_(name);
    } else {
      pending_ = name;
    }
  }
}

void SignalWatcher::ExpireLocked(const std::string& name, bool again) {
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - since_)
          .count();
  if (on_expire_) {
    on_expire_(name, waited, again);
  } else if (again) {
    PrintError(absl::StrCat(name, " again: exiting"));
  } else {
    PrintError(absl::StrCat(
        name,
        delivered_ ? ": the work it interrupted had not stopped within "
                   : ": nothing took it up within ",
        kGraceSeconds,
        delivered_ ? " s; exiting"
                   : " s (blocked before any round could start); exiting"));
  }
  std::fflush(nullptr);
  _exit(ToInt(ExitCode::kInterrupted));
}

SignalWatcher::~SignalWatcher() {
  Watch(nullptr);
  pthread_kill(thread_.native_handle(), SIGUSR1);
  thread_.join();
}

void SignalWatcher::Watch(OnSignal on_signal, OnExpire on_expire) {
  std::lock_guard<std::mutex> lock(mu_);
  // What took a delivered signal has stopped its work.
  if (delivered_) waiting_.clear();
  delivered_ = false;
  on_signal_ = std::move(on_signal);
  on_expire_ = std::move(on_expire);
  if (on_signal_ && !pending_.empty()) {
    on_signal_(pending_);
    pending_.clear();
    delivered_ = true;
  }
}

std::string SignalWatcher::Pending() {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_;
}

std::string SignalWatcher::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  std::string taken;
  taken.swap(pending_);
  waiting_.clear();
  delivered_ = false;
  return taken;
}

std::string SignalWatcher::Received() {
  std::lock_guard<std::mutex> lock(mu_);
  return received_;
}

}  // namespace ckpt
