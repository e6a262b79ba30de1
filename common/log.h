// Minimal leveled logging to stderr with timestamps. Thread-safe (one
// line per call). Never pass secrets: values are printed as given.
#ifndef CKPTBENCH_COMMON_LOG_H_
#define CKPTBENCH_COMMON_LOG_H_

#include <string>

#include "absl/strings/str_format.h"

namespace ckpt {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
void LogLine(LogLevel level, const std::string& message);

template <typename... Args>
void Logf(LogLevel level, const absl::FormatSpec<Args...>& format,
          const Args&... args) {
  if (level < GetLogLevel()) return;
  LogLine(level, absl::StrFormat(format, args...));
}

#define LOG_INFO(...) ::ckpt::Logf(::ckpt::LogLevel::kInfo, __VA_ARGS__)
#define LOG_WARN(...) ::ckpt::Logf(::ckpt::LogLevel::kWarning, __VA_ARGS__)
#define LOG_ERROR(...) ::ckpt::Logf(::ckpt::LogLevel::kError, __VA_ARGS__)
#define LOG_DEBUG(...) ::ckpt::Logf(::ckpt::LogLevel::kDebug, __VA_ARGS__)

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_LOG_H_
