#include "ops/wire_values.hpp"

#include <openssl/evp.h>

#include <cstdlib>

#include "domain/time_format.hpp"

namespace smemu::ops {

TimePoint ReadTimestamp(const nlohmann::json& value) {
  if (value.is_string()) {
    return domain::FromEpochSeconds(
        std::strtod(value.get_ref<const std::string&>().c_str(), nullptr));
  }
  return domain::FromEpochSeconds(value.get<double>());
}

std::optional<TimePoint> OptionalTimestamp(const nlohmann::json& input, const char* name) {
  auto it = input.find(name);
  if (it == input.end() || it->is_null()) return std::nullopt;
  return ReadTimestamp(*it);
}

nlohmann::json WriteTimestamp(TimePoint time) {
  const auto millis = time.time_since_epoch().count();
  // Whole seconds go out as integers, as botocore's own serializer would write them.
  if (millis % 1000 == 0) return millis / 1000;
  return domain::ToEpochSeconds(time);
}

std::string Base64Encode(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(bytes.data()),
                                      static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(written));
  return out;
}

std::optional<std::string> Base64Decode(const std::string& text) {
  if (text.empty() || text.size() % 4 != 0) return std::nullopt;
  std::string out(3 * text.size() / 4, '\0');
  const int written = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(text.data()),
                                      static_cast<int>(text.size()));
  if (written < 0) return std::nullopt;
  // EVP_DecodeBlock counts padding bytes as output; drop them.
  size_t padding = 0;
  if (text.back() == '=') ++padding;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(written) - padding);
  return out;
}

}  // namespace smemu::ops
