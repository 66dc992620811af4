#include "protocol/event_stream.hpp"

#include <boost/crc.hpp>
#include <cstdint>
#include <stdexcept>

namespace smemu::protocol {
namespace {

constexpr std::size_t kMaxHeadersBytes = 128 * 1024;
constexpr std::size_t kMaxMessageBytes = 16 * 1024 * 1024;
constexpr std::size_t kPreludeBytes = 12;  // total length, headers length, prelude CRC
constexpr unsigned char kStringHeader = 7;

void PutUint32(std::string& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out += static_cast<char>((value >> shift) & 0xff);
  }
}

std::uint32_t Crc32(std::string_view bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

std::string HeaderBytes(const EventHeaders& headers) {
  std::string out;
  for (const auto& [name, value] : headers) {
    if (name.size() > 255 || value.size() > 65535) {
      throw std::length_error("an event stream header is too long");
    }
    out += static_cast<char>(name.size());
    out += name;
    out += static_cast<char>(kStringHeader);
    out += static_cast<char>((value.size() >> 8) & 0xff);
    out += static_cast<char>(value.size() & 0xff);
    out += value;
  }
  return out;
}

}  // namespace

std::string EventMessage(const EventHeaders& headers, std::string_view payload) {
  const std::string header_bytes = HeaderBytes(headers);
  const std::size_t total = kPreludeBytes + header_bytes.size() + payload.size() + 4;
  if (header_bytes.size() > kMaxHeadersBytes || total > kMaxMessageBytes) {
    throw std::length_error("an event stream message is too long");
  }
  std::string message;
  message.reserve(total);
  PutUint32(message, static_cast<std::uint32_t>(total));
  PutUint32(message, static_cast<std::uint32_t>(header_bytes.size()));
  PutUint32(message, Crc32(message));
  message += header_bytes;
  message += payload;
  PutUint32(message, Crc32(message));
  return message;
}

std::string EventOf(std::string_view type, std::string_view content_type,
                    std::string_view payload) {
  return EventMessage({{":event-type", std::string(type)},
                       {":content-type", std::string(content_type)},
                       {":message-type", "event"}},
                      payload);
}

std::string ExceptionEventOf(std::string_view type, std::string_view json_members) {
  return EventMessage({{":exception-type", std::string(type)},
                       {":content-type", "application/json"},
                       {":message-type", "exception"}},
                      json_members);
}

std::vector<std::string_view> PartsOf(std::string_view answer) {
  std::vector<std::string_view> parts;
  while (!answer.empty()) {
    const std::size_t newline = answer.find('\n');
    std::size_t size = newline == std::string_view::npos ? answer.size() : newline + 1;
    if (size > kMaxPartBytes) size = kMaxPartBytes;
    parts.push_back(answer.substr(0, size));
    answer.remove_prefix(size);
  }
  return parts;
}

}  // namespace smemu::protocol
