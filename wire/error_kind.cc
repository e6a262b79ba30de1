#include "wire/error_kind.h"

namespace ckpt {

v1::ErrorKind ToWire(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kRetryable:
      return v1::ERROR_KIND_RETRYABLE;
    case ErrorKind::kAuth:
      return v1::ERROR_KIND_AUTH;
    case ErrorKind::kNotFound:
      return v1::ERROR_KIND_NOT_FOUND;
    case ErrorKind::kNoSpace:
      return v1::ERROR_KIND_NO_SPACE;
    case ErrorKind::kBadInput:
      return v1::ERROR_KIND_BAD_INPUT;
    case ErrorKind::kDataLoss:
      return v1::ERROR_KIND_DATA_LOSS;
    case ErrorKind::kInternal:
      return v1::ERROR_KIND_INTERNAL;
    case ErrorKind::kUnspecified:
      break;
  }
  return v1::ERROR_KIND_UNSPECIFIED;
}

ErrorKind FromWire(v1::ErrorKind kind) {
  switch (kind) {
    case v1::ERROR_KIND_RETRYABLE:
      return ErrorKind::kRetryable;
    case v1::ERROR_KIND_AUTH:
      return ErrorKind::kAuth;
    case v1::ERROR_KIND_NOT_FOUND:
      return ErrorKind::kNotFound;
    case v1::ERROR_KIND_NO_SPACE:
      return ErrorKind::kNoSpace;
    case v1::ERROR_KIND_BAD_INPUT:
      return ErrorKind::kBadInput;
    case v1::ERROR_KIND_DATA_LOSS:
      return ErrorKind::kDataLoss;
    case v1::ERROR_KIND_INTERNAL:
      return ErrorKind::kInternal;
    default:
      return ErrorKind::kUnspecified;
  }
}

}  // namespace ckpt
