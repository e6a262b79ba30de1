// Early-return helpers for absl::Status / absl::StatusOr (Debian's Abseil
// has no RETURN_IF_ERROR). Header-only; no state.
#ifndef CKPTBENCH_COMMON_STATUS_MACROS_H_
#define CKPTBENCH_COMMON_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define CKPT_CONCAT_INNER(a, b) a##b
#define CKPT_CONCAT(a, b) CKPT_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                    \
  do {                                           \
    ::absl::Status ckpt_status_ = (expr);        \
    if (!ckpt_status_.ok()) return ckpt_status_; \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(*tmp)

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(CKPT_CONCAT(ckpt_statusor_, __LINE__), lhs, expr)

#endif  // CKPTBENCH_COMMON_STATUS_MACROS_H_
