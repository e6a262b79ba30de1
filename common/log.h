// Minimal leveled logging to stderr with timestamps. Thread-safe (one
// line per call: control characters in the message are escaped, see
// EscapeForTerminal). Never pass secrets.
#ifndef CKPTBENCH_COMMON_LOG_H_
#define CKPTBENCH_COMMON_LOG_H_

#include <string>

#include "absl/strings/str_format.h"

namespace ckpt {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
void LogLine(LogLevel level, const std::string& message);
// Prints `prefix` + `message` to stderr as one line, the message escaped
// like a log line's (it may hold what a node, a server or a file said).
void PrintError(const std::string& message,
                const std::string& prefix = "ckptbench: ");

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
