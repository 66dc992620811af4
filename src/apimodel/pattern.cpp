#define PCRE2_CODE_UNIT_WIDTH 8
#include "apimodel/pattern.hpp"

#include <pcre2.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace smemu::apimodel {
namespace {

// Java's POSIX character classes are ASCII-only; PCRE2 has no \p{...} names for them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kJavaPosixClasses{{
    {"\\p{Lower}", "[a-z]"},
    {"\\p{Upper}", "[A-Z]"},
    {"\\p{ASCII}", "[\\x00-\\x7F]"},
    {"\\p{Alpha}", "[a-zA-Z]"},
    {"\\p{Digit}", "[0-9]"},
    {"\\p{Alnum}", "[a-zA-Z0-9]"},
    {"\\p{Punct}", "[!-/:-@\\[-`{-~]"},
    {"\\p{Graph}", "[!-~]"},
    {"\\p{Print}", "[ -~]"},
    {"\\p{Blank}", "[ \\t]"},
    {"\\p{Cntrl}", "[\\x00-\\x1F\\x7F]"},
    {"\\p{Space}", "[ \\t\\n\\x0B\\f\\r]"},
}};

void FreeCode(pcre2_real_code_8* code) { pcre2_code_free(code); }

pcre2_real_code_8* Compile(const std::string& java_pattern) {
  const std::string translated = TranslateJavaPattern(java_pattern);
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code = pcre2_compile(
      reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
      PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED, &error_code, &error_offset, nullptr);
  if (code == nullptr) {
    std::array<PCRE2_UCHAR, 256> message{};
    pcre2_get_error_message(error_code, message.data(), message.size());
    throw std::runtime_error("invalid model pattern '" + java_pattern +
                             "': " + reinterpret_cast<const char*>(message.data()));
  }
  return code;
}

std::optional<unsigned> Hex4(std::string_view text, size_t at) {
  if (at + 6 > text.size() || text[at] != '\\' || text[at + 1] != 'u') return std::nullopt;
  unsigned value = 0;
  for (size_t k = at + 2; k < at + 6; ++k) {
    const char c = text[k];
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 16 +
            static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c))
                                      ? c - '0'
                                      : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
  }
  return value;
}

// Java's \uXXXX escape at `i` (a UTF-16 unit; a surrogate pair is one code point), as the hex
// digits of the code point for PCRE2's \x{...}. Moves `i` past what it read.
std::optional<std::string> JavaUnicodeEscape(std::string_view text, size_t& i) {
  auto unit = Hex4(text, i);
  if (!unit) return std::nullopt;
  unsigned code_point = *unit;
  size_t length = 6;
  if (*unit >= 0xD800 && *unit <= 0xDBFF) {
    const auto low = Hex4(text, i + 6);
    if (low && *low >= 0xDC00 && *low <= 0xDFFF) {
      code_point = 0x10000 + ((*unit - 0xD800) << 10) + (*low - 0xDC00);
      length = 12;
    }
  }
  i += length;
  char digits[16];
  std::snprintf(digits, sizeof digits, "%X", code_point);
  return std::string(digits);
}

}  // namespace

std::string TranslateJavaPattern(std::string_view java_pattern) {
  std::string out;
  out.reserve(java_pattern.size());
  int class_depth = 0;  // inside [...]: replacements must not bring their own brackets
  size_t i = 0;
  while (i < java_pattern.size()) {
    const char c = java_pattern[i];
    if (c != '\\' || i + 1 >= java_pattern.size()) {
      if (c == '[') ++class_depth;
      if (c == ']' && class_depth > 0) --class_depth;
      out += c;
      ++i;
      continue;
    }
    bool replaced = false;
    for (const auto& [java, pcre] : kJavaPosixClasses) {
      if (java_pattern.substr(i, java.size()) == java) {
        out += class_depth > 0 ? pcre.substr(1, pcre.size() - 2) : pcre;
        i += java.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      if (auto code_point = JavaUnicodeEscape(java_pattern, i)) {
        out += "\\x{" + *code_point + "}";  // i was moved past the escape (or surrogate pair)
        continue;
      }
      out += java_pattern.substr(i, 2);  // any other escape is kept as a unit
      i += 2;
    }
  }
  return out;
}

Pattern::Pattern(std::string java_pattern)
    : source_(std::move(java_pattern)), code_(Compile(source_), &FreeCode) {}

Pattern::~Pattern() = default;

bool Pattern::Matches(std::string_view text) const {
  // Compiled to machine code at the first match rather than at start: doing it for every pattern
  // of the models took a quarter of an empty start, and most patterns are never matched.
  // Without JIT support, matching falls back to the interpreter.
  std::call_once(jit_compiled_, [this] { pcre2_jit_compile(code_.get(), PCRE2_JIT_COMPLETE); });
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_.get(), nullptr);
  if (data == nullptr) return false;
  const int rc = pcre2_match(code_.get(), reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0,
                             0, data, nullptr);
  pcre2_match_data_free(data);
  return rc >= 0;
}

}  // namespace smemu::apimodel
