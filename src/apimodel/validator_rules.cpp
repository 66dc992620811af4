#include "apimodel/validator_rules.hpp"

#include <cmath>

namespace smemu::apimodel {

std::size_t CodePoints(const std::string& text) {
  std::size_t count = 0;
  for (const char c : text) {
    // The byte's bits, whatever char's signedness: UTF-8 continuation bytes are 10xxxxxx.
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

std::string FormatNumber(double value) {
  if (std::floor(value) == value && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  return nlohmann::json(value).dump();
}

std::string Render(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i > 0) out += ", ";
      out += Render(value[i]);
    }
    return out + "]";
  }
  if (value.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, v] : value.items()) {
      if (!first) out += ", ";
      first = false;
      out += k + "=" + Render(v);
    }
    return out + "}";
  }
  return value.dump();
}

}  // namespace smemu::apimodel
