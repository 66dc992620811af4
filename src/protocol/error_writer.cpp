#include "protocol/error_writer.hpp"

#include <nlohmann/json.hpp>

namespace smemu::protocol {

const char* ContentTypeOf(WireProtocol protocol) {
  switch (protocol) {
    case WireProtocol::kAwsJson11:
      return "application/x-amz-json-1.1";
    case WireProtocol::kRestJson1:
    case WireProtocol::kAdmin:
      return "application/json";
  }
  return "application/json";
}

HttpResponse RenderJson(int status, std::string body, WireProtocol protocol,
                        const std::string& request_id) {
  HttpResponse response;
  response.status = status;
  response.headers = {{"Content-Type", ContentTypeOf(protocol)}, {"x-amzn-RequestId", request_id}};
  response.body = std::move(body);
  return response;
}

HttpResponse RenderError(const domain::AwsError& error, WireProtocol protocol,
                         const std::string& request_id) {
  // Invalid UTF-8 (say, echoed from a header) is replaced rather than thrown on.
  nlohmann::json body = {{"__type", domain::WireName(error.code)},
                         {"message", error.message},
                         {"Message", error.message}};
  for (const domain::ErrorDetail& detail : error.details) {
    std::visit([&](const auto& value) { body[detail.name] = value; }, detail.value);
  }
  HttpResponse response = RenderJson(
      error.http_status, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
      protocol, request_id);
  response.headers.emplace_back("X-Amzn-ErrorType", std::string(domain::WireName(error.code)));
  return response;
}

}  // namespace smemu::protocol
