#include <optional>
#include <string_view>

#include "apimodel/validator.hpp"

namespace smemu::apimodel {
namespace {

// The codes any operation may answer besides its modelled errors, with the HTTP status each must
// carry (0: any 4xx).
//
// Source: AWS's list of errors common to the API actions of all AWS services ("Common Errors",
// https://docs.aws.amazon.com/awsconsolehelpdocs/latest/gsg/common-errors.html, and the
// CommonErrors page of each service's API reference). The lists differ between editions in the
// status of AccessDeniedException, IncompleteSignature and NotAuthorized (400, 401 or 403), so
// those are held to "a 4xx" only. Older editions (AWS Query services) add InvalidAction,
// InvalidClientTokenId, InvalidParameter*, MissingAction, MissingParameter,
// MissingAuthenticationToken, which are kept for completeness.
//
// awsJson1_1 services (SageMaker, DynamoDB, Kinesis) also answer with their framework's codes:
// ValidationException (SageMaker's code for invalid input and missing resources,
// docs/api-facts.md section 1.2), SerializationException (a body that does not parse into the
// input shape), IncompleteSignatureException, InvalidSignatureException and
// MissingAuthenticationTokenException (SigV4 refusals). Last come the codes the emulator's own
// transport sends, which no AWS list names: MethodNotAllowedException (405, a method the route
// does not serve), BadRequestException (400, malformed HTTP) and
// RequestHeaderFieldsTooLargeException (431).
struct CommonError {
  std::string_view code;
  int status;
};
constexpr CommonError kCommonErrors[] = {
    {"AccessDeniedException", 0},
    {"ExpiredTokenException", 0},
    {"IncompleteSignature", 0},
    {"InternalFailure", 500},
    {"MalformedHttpRequestException", 400},
    {"NotAuthorized", 0},
    {"OptInRequired", 403},
    {"RequestAbortedException", 400},
    {"RequestEntityTooLargeException", 413},
    {"RequestExpired", 0},
    {"RequestTimeoutException", 408},
    {"ServiceUnavailable", 503},
    {"ThrottlingException", 0},
    {"UnrecognizedClientException", 0},
    {"UnknownOperationException", 0},
    {"ValidationError", 400},
    {"InvalidAction", 400},
    {"InvalidClientTokenId", 403},
    {"InvalidParameterCombination", 400},
    {"InvalidParameterValue", 400},
    {"InvalidQueryParameter", 400},
    {"MissingAction", 400},
    {"MissingParameter", 400},
    {"MissingAuthenticationToken", 403},
    // awsJson1_1 framework codes
    {"ValidationException", 400},
    {"SerializationException", 400},
    {"IncompleteSignatureException", 0},
    {"InvalidSignatureException", 0},
    {"MissingAuthenticationTokenException", 0},
    // the emulator's transport
    {"MethodNotAllowedException", 405},
    {"BadRequestException", 400},
    {"RequestHeaderFieldsTooLargeException", 431},
};

const CommonError* FindCommonError(std::string_view code) {
  for (const CommonError& common : kCommonErrors) {
    if (common.code == code) return &common;
  }
  return nullptr;
}

}  // namespace

bool IsCommonError(std::string_view code) { return FindCommonError(code) != nullptr; }

std::optional<int> CommonErrorStatus(std::string_view code) {
  const CommonError* common = FindCommonError(code);
  if (common == nullptr) return std::nullopt;
  return common->status;
}

}  // namespace smemu::apimodel
