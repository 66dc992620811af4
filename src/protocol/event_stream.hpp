// The AWS event stream encoding (application/vnd.amazon.eventstream) of the runtime's streamed
// answers: each message is a prelude (its total length, its headers' length, the prelude's CRC32),
// its headers, its payload and the message's CRC32, integers big-endian. Every header written here
// is a string (value type 7). The CRCs are Boost.CRC's CRC-32, the IEEE polynomial zlib uses.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace smemu::protocol {

using EventHeaders = std::vector<std::pair<std::string, std::string>>;

// One message. Its headers and payload must be under the format's limits (headers 128 KiB, the
// whole message 16 MiB): the callers' parts are.
std::string EventMessage(const EventHeaders& headers, std::string_view payload);

// An event of the answer's stream: `:event-type` `type`, its payload's `:content-type`.
std::string EventOf(std::string_view type, std::string_view content_type, std::string_view payload);

// A modelled error ending the stream (ModelStreamError, InternalStreamFailure): `:message-type`
// exception, `:exception-type` `type`, its members as a JSON object.
std::string ExceptionEventOf(std::string_view type, std::string_view json_members);

// The largest part of an answer a PayloadPart carries: the format allows 16 MiB a message; a
// smaller bound keeps a long answer streaming.
inline constexpr std::size_t kMaxPartBytes = 64 * 1024;

// How the echo model streams an answer: a part per line, each keeping its '\n', and a line longer
// than kMaxPartBytes in parts of that size. An empty answer has no parts.
std::vector<std::string_view> PartsOf(std::string_view answer);

}  // namespace smemu::protocol
