#include "common/error_kind.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace ckpt {
namespace {

// Where a node's failure keeps its kind (a Status payload: the kind's
// name; "" for unspecified).
constexpr char kKindPayload[] = "type.ckptbench/ckptbench.ErrorKind";

}  // namespace

ErrorKind ErrorKindOf(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kAborted:
      return ErrorKind::kRetryable;
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
      return ErrorKind::kAuth;
    case absl::StatusCode::kNotFound:
      return ErrorKind::kNotFound;
    case absl::StatusCode::kResourceExhausted:
      return ErrorKind::kNoSpace;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kUnimplemented:
      return ErrorKind::kBadInput;
    case absl::StatusCode::kDataLoss:
      return ErrorKind::kDataLoss;
    default:
      return ErrorKind::kInternal;
  }
}

absl::Status StatusOfKind(ErrorKind kind, const std::string& message) {
  switch (kind) {
    case ErrorKind::kRetryable:
      return absl::UnavailableError(message);
    case ErrorKind::kAuth:
      return absl::PermissionDeniedError(message);
    case ErrorKind::kNotFound:
      return absl::NotFoundError(message);
    case ErrorKind::kNoSpace:
      return absl::ResourceExhaustedError(message);
    case ErrorKind::kBadInput:
      return absl::FailedPreconditionError(message);
    case ErrorKind::kDataLoss:
      return absl::DataLossError(message);
    case ErrorKind::kInternal:
      return absl::InternalError(message);
    case ErrorKind::kUnspecified:
      break;
  }
  return absl::UnknownError(message);
}

absl::Status NodeErrorStatus(ErrorKind kind, std::string_view message) {
  absl::Status s = StatusOfKind(kind, std::string(message));
  const std::string_view name = Name(kind);
  s.SetPayload(kKindPayload,
               absl::Cord(absl::string_view(name.data(), name.size())));
  return s;
}

ErrorKind NodeErrorKindOf(const absl::Status& status) {
  const auto p = status.GetPayload(kKindPayload);
  if (!p.has_value()) return ErrorKind::kUnspecified;
  return ParseKind<ErrorKind>(std::string(*p))
      .value_or(ErrorKind::kUnspecified);
}

bool IsNodeError(const absl::Status& status) {
  return status.GetPayload(kKindPayload).has_value();
}

absl::Status WithPrefix(const absl::Status& status, std::string_view prefix) {
  if (status.ok()) return status;
  absl::Status s(status.code(),
                 absl::StrCat(std::string(prefix), status.message()));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
    s.SetPayload(url, payload);
  });
  return s;
}

}  // namespace ckpt
