// The one place that knows how an AWS error looks on the wire. Both protocols get the code in the
// X-Amzn-ErrorType header and in the body's `__type`, and the text in `message` and `Message`
// (botocore reads the former, the JS SDK fills err.Message only from the latter).
#pragma once

#include <string>

#include "domain/aws_error.hpp"
#include "protocol/http_types.hpp"

namespace smemu::protocol {

enum class WireProtocol { kAwsJson11, kRestJson1, kAdmin };

const char* ContentTypeOf(WireProtocol protocol);

HttpResponse RenderError(const domain::AwsError& error, WireProtocol protocol,
                         const std::string& request_id);

// A success response with a JSON body and the request id header.
HttpResponse RenderJson(int status, std::string body, WireProtocol protocol,
                        const std::string& request_id);

}  // namespace smemu::protocol
