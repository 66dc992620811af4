#include "protocol/percent_encoding.hpp"

namespace smemu::protocol {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

enum class Malformed { kRefuse, kKeep };

std::optional<std::string> Decode(std::string_view text, Malformed malformed, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+' && plus_is_space) {
      out += ' ';
    } else if (c != '%') {
      out += c;
    } else if (i + 2 < text.size() && HexValue(text[i + 1]) >= 0 && HexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else if (malformed == Malformed::kRefuse) {
      return std::nullopt;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> PercentDecode(std::string_view text) {
  return Decode(text, Malformed::kRefuse, false);
}

std::string PercentDecodeLenient(std::string_view text) {
  return *Decode(text, Malformed::kKeep, false);
}

std::string FormDecode(std::string_view text) { return *Decode(text, Malformed::kKeep, true); }

}  // namespace smemu::protocol
