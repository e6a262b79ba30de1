// Names ckptbench takes from what it reads (a .metadata's file names,
// listings of a bucket or directory, a results manifest) are hostile until
// checked: they must stay inside the directory they were read under.
// Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_NAMES_H_
#define CKPTBENCH_COMMON_NAMES_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace ckpt {

// "." or "..": a component that names no entry of its own.
bool IsDotName(std::string_view name);

// Whether `path` is `dir` or lies beneath it, whole component by whole
// component: "a/step-1/x" is under "a/step-1", "a/step-10/x" is not. An
// empty `dir` holds everything. A trailing '/' on `dir` is ignored.
bool PathIsUnder(std::string_view path, std::string_view dir);

// Checks a relative name read from data, to be joined under a directory:
// not empty, not absolute, no empty, "." or ".." component (on S3 ".." is
// a legal key, but an HTTP client collapses dot segments, so the key sent
// would differ), no NUL or other control character, at most 1024 bytes.
// `what` says where it came from ("file name in .../.metadata"). The error
// names the entry, escaped.
absl::Status CheckRelativeName(std::string_view name, const std::string& what);

// The same for one component (no '/' at all): an entry of a listing.
absl::Status CheckEntryName(std::string_view name, const std::string& what);

// A gRPC target "HOST" or "[V6]" with ":port" added; "HOST:PORT",
// "[V6]:PORT", a bare IPv6 literal and a scheme ("dns:///...") as they are.
std::string WithDefaultPort(std::string_view address, int port);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_NAMES_H_
