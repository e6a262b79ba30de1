#include "wire/error_kind.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace ckpt {
namespace {

// Where a node's failure keeps its kind (a Status payload).
constexpr char kKindPayload[] = "type.ckptbench/ckptbench.v1.ErrorKind";

}  // namespace

absl::Status NodeErrorStatus(v1::ErrorKind kind, std::string_view message) {
  absl::Status s = StatusOfKind(kind, std::string(message));
  s.SetPayload(kKindPayload, absl::Cord(v1::ErrorKind_Name(kind)));
  return s;
}

v1::ErrorKind NodeErrorKindOf(const absl::Status& status) {
  const auto p = status.GetPayload(kKindPayload);
  v1::ErrorKind kind = v1::ERROR_KIND_UNSPECIFIED;
  if (!p.has_value() || !v1::ErrorKind_Parse(std::string(*p), &kind)) {
    return v1::ERROR_KIND_UNSPECIFIED;
  }
  return kind;
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

v1::ErrorKind ErrorKindOf(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kAborted:
      return v1::ERROR_KIND_RETRYABLE;
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
      return v1::ERROR_KIND_AUTH;
    case absl::StatusCode::kNotFound:
      return v1::ERROR_KIND_NOT_FOUND;
    case absl::StatusCode::kResourceExhausted:
      return v1::ERROR_KIND_NO_SPACE;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kUnimplemented:
      return v1::ERROR_KIND_BAD_INPUT;
    case absl::StatusCode::kDataLoss:
      return v1::ERROR_KIND_DATA_LOSS;
    default:
      return v1::ERROR_KIND_INTERNAL;
  }
}

absl::Status StatusOfKind(v1::ErrorKind kind, const std::string& message) {
  switch (kind) {
    case v1::ERROR_KIND_RETRYABLE:
      return absl::UnavailableError(message);
    case v1::ERROR_KIND_AUTH:
      return absl::PermissionDeniedError(message);
    case v1::ERROR_KIND_NOT_FOUND:
      return absl::NotFoundError(message);
    case v1::ERROR_KIND_NO_SPACE:
      return absl::ResourceExhaustedError(message);
    case v1::ERROR_KIND_BAD_INPUT:
      return absl::FailedPreconditionError(message);
    case v1::ERROR_KIND_DATA_LOSS:
      return absl::DataLossError(message);
    case v1::ERROR_KIND_INTERNAL:
      return absl::InternalError(message);
    default:
      return absl::UnknownError(message);
  }
}

std::string ErrorKindName(v1::ErrorKind kind) {
  switch (kind) {
    case v1::ERROR_KIND_RETRYABLE:
      return "retryable";
    case v1::ERROR_KIND_AUTH:
      return "auth";
    case v1::ERROR_KIND_NOT_FOUND:
      return "not_found";
    case v1::ERROR_KIND_NO_SPACE:
      return "no_space";
    case v1::ERROR_KIND_BAD_INPUT:
      return "bad_input";
    case v1::ERROR_KIND_DATA_LOSS:
      return "data_loss";
    case v1::ERROR_KIND_INTERNAL:
      return "internal";
    default:
      return "";
  }
}

}  // namespace ckpt
