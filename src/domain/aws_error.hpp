// AwsError and Result<T>: how every refusal travels from the domain and the handlers up to the
// protocol layer, which alone renders it on the wire. Plain values; safe to copy between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace smemu::domain {

// A modeled member of an error shape beyond its message (ModelError's OriginalStatusCode, ...).
struct ErrorDetail {
  std::string name;
  std::variant<std::string, std::int64_t> value;

  bool operator==(const ErrorDetail&) const = default;
};

// Every error code the emulator answers with: a closed set, so a misspelt or unplanned code does
// not compile. WireName() gives the text sent as `__type` and X-Amzn-ErrorType.
enum class ErrorCode {
  // SageMaker's control plane (awsJson1_1). The real service answers "not found" and "already
  // exists" on models, endpoints and configs with ValidationException.
  kValidationException,
  kResourceNotFound,
  kResourceInUse,
  kResourceLimitExceeded,
  kConflictException,
  // The awsJson1_1 framework and the common AWS codes.
  kSerializationException,
  kUnknownOperationException,
  kInternalFailure,
  kAccessDeniedException,
  kThrottlingException,
  kServiceUnavailable,
  // SigV4 refusals (strict authentication).
  kIncompleteSignatureException,
  kInvalidSignatureException,
  kMissingAuthenticationTokenException,
  kUnrecognizedClientException,
  // sagemaker-runtime (restJson1): invalid input, and a model's failure (424).
  kValidationError,
  kModelError,
  kModelNotReadyException,
  kInternalDependencyException,
  // The emulator's transport and admin API.
  kMethodNotAllowedException,
  kNotFoundException,
  kBadRequestException,
  kRequestEntityTooLargeException,
  kRequestHeaderFieldsTooLargeException,
  kRequestTimeoutException,
};

constexpr std::string_view WireName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kValidationException:
      return "ValidationException";
    case ErrorCode::kResourceNotFound:
      return "ResourceNotFound";
    case ErrorCode::kResourceInUse:
      return "ResourceInUse";
    case ErrorCode::kResourceLimitExceeded:
      return "ResourceLimitExceeded";
    case ErrorCode::kConflictException:
      return "ConflictException";
    case ErrorCode::kSerializationException:
      return "SerializationException";
    case ErrorCode::kUnknownOperationException:
      return "UnknownOperationException";
    case ErrorCode::kInternalFailure:
      return "InternalFailure";
    case ErrorCode::kAccessDeniedException:
      return "AccessDeniedException";
    case ErrorCode::kThrottlingException:
      return "ThrottlingException";
    case ErrorCode::kServiceUnavailable:
      return "ServiceUnavailable";
    case ErrorCode::kIncompleteSignatureException:
      return "IncompleteSignatureException";
    case ErrorCode::kInvalidSignatureException:
      return "InvalidSignatureException";
    case ErrorCode::kMissingAuthenticationTokenException:
      return "MissingAuthenticationTokenException";
    case ErrorCode::kUnrecognizedClientException:
      return "UnrecognizedClientException";
    case ErrorCode::kValidationError:
      return "ValidationError";
    case ErrorCode::kModelError:
      return "ModelError";
    case ErrorCode::kModelNotReadyException:
      return "ModelNotReadyException";
    case ErrorCode::kInternalDependencyException:
      return "InternalDependencyException";
    case ErrorCode::kMethodNotAllowedException:
      return "MethodNotAllowedException";
    case ErrorCode::kNotFoundException:
      return "NotFoundException";
    case ErrorCode::kBadRequestException:
      return "BadRequestException";
    case ErrorCode::kRequestEntityTooLargeException:
      return "RequestEntityTooLargeException";
    case ErrorCode::kRequestHeaderFieldsTooLargeException:
      return "RequestHeaderFieldsTooLargeException";
    case ErrorCode::kRequestTimeoutException:
      return "RequestTimeoutException";
  }
  return "InternalFailure";  // unreachable: the switch names every code (-Wswitch checks it)
}

// An AWS error code, its message and the HTTP status it is sent with.
struct AwsError {
  AwsError() = default;
  AwsError(ErrorCode error_code, std::string error_message, int status = 400,
           std::vector<ErrorDetail> error_details = {})
      : code(error_code),
        message(std::move(error_message)),
        http_status(status),
        details(std::move(error_details)) {}

  ErrorCode code = ErrorCode::kInternalFailure;
  std::string message;
  int http_status = 400;
  std::vector<ErrorDetail> details;

  bool operator==(const AwsError&) const = default;
};

// How a message shows a value the caller sent (a name, an id, a header): in full when it has at
// most kExcerptCharacters characters, else its first characters and "...", as AWS's validation
// messages shorten long values. Every message that quotes input goes through Excerpt(), so that a
// message grows by at most kExcerptCharacters per quoted value whatever the caller sends, and the
// bounds error shapes set (1,024 characters on the control plane, 2,048 on the runtime) hold.
// Characters are code points, as the service counts a string's length.
inline constexpr std::size_t kExcerptCharacters = 256;
std::string Excerpt(std::string_view value);

// `text` cut to at most `limit` characters (code points, at a character boundary), the last three
// of them "..." when it was cut. `limit` must be at least 3. The result is valid UTF-8: a byte
// that begins no valid sequence becomes U+FFFD and counts as one character.
std::string Shortened(std::string_view text, std::size_t limit);

// The makers, one per code the operation layer and the domain answer with.
inline AwsError ValidationException(std::string message) {
  return {ErrorCode::kValidationException, std::move(message), 400};
}
inline AwsError SerializationException(std::string message) {
  return {ErrorCode::kSerializationException, std::move(message), 400};
}
inline AwsError UnknownOperationException(std::string message) {
  return {ErrorCode::kUnknownOperationException, std::move(message), 400};
}
inline AwsError ResourceNotFound(std::string message) {
  return {ErrorCode::kResourceNotFound, std::move(message), 400};
}
inline AwsError ResourceInUse(std::string message) {
  return {ErrorCode::kResourceInUse, std::move(message), 400};
}
inline AwsError ResourceLimitExceeded(std::string message) {
  return {ErrorCode::kResourceLimitExceeded, std::move(message), 400};
}
inline AwsError ConflictException(std::string message) {
  return {ErrorCode::kConflictException, std::move(message), 400};
}
inline AwsError InternalFailure(std::string message) {
  return {ErrorCode::kInternalFailure, std::move(message), 500};
}
inline AwsError AccessDeniedException(std::string message) {
  return {ErrorCode::kAccessDeniedException, std::move(message), 403};
}
// The transport's and the admin API's refusals of a method a path does not take.
inline AwsError MethodNotAllowedException(std::string message) {
  return {ErrorCode::kMethodNotAllowedException, std::move(message), 405};
}

// The runtime API (sagemaker-runtime, restJson1) names its codes differently: its invalid input is
// ValidationError, and a model's failure is ModelError with status 424.
inline AwsError ValidationError(std::string message) {
  return {ErrorCode::kValidationError, std::move(message), 400};
}
inline AwsError ModelError(std::string message, std::vector<ErrorDetail> details = {}) {
  return {ErrorCode::kModelError, std::move(message), 424, std::move(details)};
}

// Either a value or an AwsError. Converts implicitly from both so handlers can `return error;`.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}         // NOLINT(runtime/explicit)
  Result(AwsError error) : state_(std::move(error)) {}  // NOLINT(runtime/explicit)
  // From a Result of a type that converts to T: a handler's Result<json> where the caller
  // expects a Result<ops::Answer>.
  template <typename U>
  requires(!std::is_same_v<U, T> && std::is_convertible_v<U, T>)
      Result(Result<U> other)  // NOLINT(runtime/explicit)
      : state_(other ? std::variant<T, AwsError>(T(std::move(other).value()))
                     : std::variant<T, AwsError>(other.error())) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok()
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // REQUIRES: !ok()
  const AwsError& error() const { return std::get<AwsError>(state_); }

 private:
  std::variant<T, AwsError> state_;
};

// Result of an operation that yields nothing but may fail.
struct Done {};
using Status = Result<Done>;
inline Status Ok() { return Done{}; }

}  // namespace smemu::domain
