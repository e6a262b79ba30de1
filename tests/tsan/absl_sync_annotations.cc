// Linked into every executable of the ThreadSanitizer build only
// (CKPTBENCH_TSAN). Debian's gRPC hands work between its threads and ours
// under absl::Mutex and absl::CondVar from Debian's Abseil, which is not
// built with TSan: TSan saw none of that synchronization (with
// tests/tsan.supp but without these, the multinode test binary still had 7
// reports, on Abseil's time-zone cache; docs/reliability.md has the
// counts). These definitions
// interpose the Abseil entry points gRPC calls through the dynamic linker
// (an executable's definitions come first), forward each call to Abseil's
// own (dlsym RTLD_NEXT) and tell TSan the acquire or release it is. They add
// happens-before edges that exist; they suppress no report.
//
// The symbols are Abseil 20220623's as Debian builds it (inline namespace
// debian3). Should they change, gRPC's calls no longer reach these and the
// TSan suite fails with the reports this file exists to prevent; a symbol
// missing from Abseil aborts the process at its first call.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

// absl::Duration and absl::Time: trivially copyable {int64, uint32}, passed
// in two integer registers as these stand-ins are.
struct Duration {
  int64_t hi;
  uint32_t lo;
};
struct Time {
  Duration rep;
};

// CKPTBENCH_TSAN_ABSL_ANNOTATIONS=0 forwards without annotating: to
// measure what TSan reports without them (docs/reliability.md).
bool Enabled() {
  static const bool on = [] {
    const char* v = std::getenv("CKPTBENCH_TSAN_ABSL_ANNOTATIONS");
    return v == nullptr || v[0] != '0';
  }();
  return on;
}

void Acquire(void* addr) {
  if (Enabled()) __tsan_acquire(addr);
}

void Release(void* addr) {
  if (Enabled()) __tsan_release(addr);
}

template <typename Fn>
Fn Next(const char* symbol) {
  void* f = dlsym(RTLD_NEXT, symbol);
  if (f == nullptr) {
    std::fprintf(stderr, "tsan absl annotations: %s not found: %s\n", symbol,
                 dlerror());
    std::abort();
  }
  return reinterpret_cast<Fn>(f);
}

}  // namespace

#define MUTEX_LOCK "_ZN4absl7debian35Mutex4LockEv"
#define MUTEX_UNLOCK "_ZN4absl7debian35Mutex6UnlockEv"
#define MUTEX_TRYLOCK "_ZN4absl7debian35Mutex7TryLockEv"
#define RELEASABLE_RELEASE "_ZN4absl7debian319ReleasableMutexLock7ReleaseEv"
#define CONDVAR_WAIT "_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE"
#define CONDVAR_WAIT_TIMEOUT \
  "_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE"
#define CONDVAR_WAIT_DEADLINE \
  "_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE"
#define STATUS_UNREF "_ZN4absl7debian36Status15UnrefNonInlinedEm"

extern "C" {

void AbslMutexLock(void* mu) __asm__(MUTEX_LOCK);
void AbslMutexUnlock(void* mu) __asm__(MUTEX_UNLOCK);
bool AbslMutexTryLock(void* mu) __asm__(MUTEX_TRYLOCK);
void AbslReleasableRelease(void* lock) __asm__(RELEASABLE_RELEASE);
void AbslCondVarWait(void* cv, void* mu) __asm__(CONDVAR_WAIT);
bool AbslCondVarWaitWithTimeout(void* cv, void* mu,
                                Duration d) __asm__(CONDVAR_WAIT_TIMEOUT);
bool AbslCondVarWaitWithDeadline(void* cv, void* mu,
                                 Time t) __asm__(CONDVAR_WAIT_DEADLINE);
void AbslStatusUnrefNonInlined(uintptr_t rep) __asm__(STATUS_UNREF);

void AbslMutexLock(void* mu) {
  static auto next = Next<void (*)(void*)>(MUTEX_LOCK);
  next(mu);
  Acquire(mu);
}

void AbslMutexUnlock(void* mu) {
  static auto next = Next<void (*)(void*)>(MUTEX_UNLOCK);
  Release(mu);
  next(mu);
}

bool AbslMutexTryLock(void* mu) {
  static auto next = Next<bool (*)(void*)>(MUTEX_TRYLOCK);
  const bool locked = next(mu);
  if (locked) Acquire(mu);
  return locked;
}

// ReleasableMutexLock holds one member, the Mutex*; Release() unlocks it
// inside Abseil, where this file cannot see the call.
void AbslReleasableRelease(void* lock) {
  static auto next = Next<void (*)(void*)>(RELEASABLE_RELEASE);
  void* mu = *static_cast<void**>(lock);
  if (mu != nullptr) Release(mu);
  next(lock);
}

// A wait unlocks the mutex and locks it again before it returns.
void AbslCondVarWait(void* cv, void* mu) {
  static auto next = Next<void (*)(void*, void*)>(CONDVAR_WAIT);
  Release(mu);
  next(cv, mu);
  Acquire(mu);
}

bool AbslCondVarWaitWithTimeout(void* cv, void* mu, Duration d) {
  static auto next =
      Next<bool (*)(void*, void*, Duration)>(CONDVAR_WAIT_TIMEOUT);
  Release(mu);
  const bool timed_out = next(cv, mu, d);
  Acquire(mu);
  return timed_out;
}

bool AbslCondVarWaitWithDeadline(void* cv, void* mu, Time t) {
  static auto next = Next<bool (*)(void*, void*, Time)>(CONDVAR_WAIT_DEADLINE);
  Release(mu);
  const bool timed_out = next(cv, mu, t);
  Acquire(mu);
  return timed_out;
}

// An absl::Status that is not OK points (rep - 1) at a StatusRep shared by
// its copies and counted by an atomic. Every copy's release ends here, in
// Abseil, which drops the count with memory_order_acq_rel and deletes the
// StatusRep at zero (status.cc). A copy released on a gRPC thread after the
// round's thread read the message of another copy and released it (the
// round reads a node's error; the reply's copy goes after the callback
// returns) was a delete TSan saw unordered with that read. Each release is a
// release and an acquire on the StatusRep, as the acq_rel decrement is. The
// spin lock, relaxed so that TSan sees no ordering in it, keeps each pair of
// annotations with its own decrement: without it a release could slip
// between another thread's acquire and its final decrement.
void AbslStatusUnrefNonInlined(uintptr_t rep) {
  static auto next = Next<void (*)(uintptr_t)>(STATUS_UNREF);
  if (!Enabled()) return next(rep);
  static std::atomic<bool> busy{false};
  void* shared = reinterpret_cast<void*>(rep - 1);
  while (busy.exchange(true, std::memory_order_relaxed)) {
  }
  Release(shared);
  Acquire(shared);
  next(rep);
  busy.store(false, std::memory_order_relaxed);
}

}  // extern "C"
