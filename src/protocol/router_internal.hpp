// Private to the protocol layer: what Router's three front ends share.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "apimodel/service_model.hpp"
#include "protocol/error_writer.hpp"
#include "protocol/router.hpp"

namespace smemu::protocol {

inline constexpr std::string_view kRuntimePrefix = "/endpoints/";
inline constexpr std::string_view kAdminPrefix = "/_emulator/";

// An invocation to hand to a real model container.
struct Router::Forward {
  std::string host;
  std::string port;
  HttpRequest request;  // POST /invocations as the container contract has it
  std::string endpoint_name;
  std::string variant;
};

// What a request turned out to be, for the request log line.
struct Router::Outcome {
  std::string request_id;
  std::string operation = "-";
  std::string account = "-";
  std::string region = "-";
  WireProtocol protocol = WireProtocol::kAwsJson11;
  std::optional<Forward> forward;  // set when the answer must come from a container
  Millis delay{0};                 // a fault rule's latency, added before the answer goes
};

// A restJson1 answer's output members as the model places them in headers, by member name, with
// the payload member empty: what the response checker and the container-answer check read.
nlohmann::json HeaderMembers(const apimodel::Operation& operation, const Headers& headers);

// `error` as the model lets it be sent: its message cut (domain::Shortened) to the bound that the
// error's shape in `model` sets on it, if any (ResourceNotFound's 1,024 characters, the runtime's
// 2,048). Every quoted value is shortened already (domain::Excerpt); this holds the bound for
// messages that list many, such as a validation message naming every header of a request.
domain::AwsError WithinModel(domain::AwsError error, const apimodel::ServiceModel& model);

// Parses a request body as a JSON object, refusing malformed JSON, non-objects and nesting deeper
// than `max_depth`. An empty body is an empty object.
domain::Result<nlohmann::json> ParseJsonObject(const std::string& body, int max_depth);

}  // namespace smemu::protocol
