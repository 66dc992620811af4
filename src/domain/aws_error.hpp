// AwsError and Result<T>: how every refusal travels from the domain and the handlers up to the
// protocol layer, which alone renders it on the wire. Plain values; safe to copy between threads.
#pragma once

#include <cstdint>
#include <string>
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

// An AWS error code (the wire `__type`), its message and the HTTP status it is sent with.
struct AwsError {
  AwsError() = default;
  AwsError(std::string error_code, std::string error_message, int status = 400,
           std::vector<ErrorDetail> error_details = {})
      : code(std::move(error_code)),
        message(std::move(error_message)),
        http_status(status),
        details(std::move(error_details)) {}

  std::string code;
  std::string message;
  int http_status = 400;
  std::vector<ErrorDetail> details;

  bool operator==(const AwsError&) const = default;
};

// Generic AWS codes and the SageMaker codes the emulator answers with. The real service answers
// "not found" and "already exists" on models, endpoints and configs with ValidationException.
inline AwsError ValidationException(std::string message) {
  return {"ValidationException", std::move(message), 400};
}
inline AwsError SerializationException(std::string message) {
  return {"SerializationException", std::move(message), 400};
}
inline AwsError UnknownOperationException(std::string message) {
  return {"UnknownOperationException", std::move(message), 400};
}
inline AwsError ResourceNotFound(std::string message) {
  return {"ResourceNotFound", std::move(message), 400};
}
inline AwsError ResourceInUse(std::string message) {
  return {"ResourceInUse", std::move(message), 400};
}
inline AwsError ResourceLimitExceeded(std::string message) {
  return {"ResourceLimitExceeded", std::move(message), 400};
}
inline AwsError InternalFailure(std::string message) {
  return {"InternalFailure", std::move(message), 500};
}
inline AwsError AccessDeniedException(std::string message) {
  return {"AccessDeniedException", std::move(message), 403};
}
// The transport's and the admin API's refusals of a method a path does not take.
inline AwsError MethodNotAllowedException(std::string message) {
  return {"MethodNotAllowedException", std::move(message), 405};
}

// The runtime API (sagemaker-runtime, restJson1) names its codes differently: its invalid input is
// ValidationError, and a model's failure is ModelError with status 424.
inline AwsError ValidationError(std::string message) {
  return {"ValidationError", std::move(message), 400};
}
inline AwsError ModelError(std::string message, std::vector<ErrorDetail> details = {}) {
  return {"ModelError", std::move(message), 424, std::move(details)};
}

// Either a value or an AwsError. Converts implicitly from both so handlers can `return error;`.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}         // NOLINT(runtime/explicit)
  Result(AwsError error) : state_(std::move(error)) {}  // NOLINT(runtime/explicit)

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
