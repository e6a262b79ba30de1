// What a test may conclude from the clock in this build.
//
// Under ThreadSanitizer every memory access runs through the runtime (5 to
// 15 times slower, and unevenly: first touches of shadow memory cost more
// than later ones), so a rate or a duration measured there says nothing
// about the product's. The TSan build is for races: its tests still run
// every path, but assertions on rates are checked in the optimized and
// ASan builds only, and deadlines that only bound a test are stretched.
#ifndef CKPTBENCH_TESTS_TESTING_TIMING_H_
#define CKPTBENCH_TESTS_TESTING_TIMING_H_

namespace ckpt {

#ifdef CKPTBENCH_TSAN_BUILD
inline constexpr bool kRatesHold = false;
inline constexpr double kDeadlineScale = 3;
#else
inline constexpr bool kRatesHold = true;
inline constexpr double kDeadlineScale = 1;
#endif

// The reason a test gives when it stops before its rate assertions.
inline constexpr const char* kRatesSkipped =
    "rates are not the product's under ThreadSanitizer; the optimized and "
    "ASan builds assert them";

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_TIMING_H_
