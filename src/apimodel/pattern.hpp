// Pattern: an AWS model `pattern` (Java regex syntax) compiled with PCRE2 and matched against a
// whole string, as the service's validator does. Matches() is thread-safe (each call uses its own
// match data; the first call compiles the pattern to machine code, once).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

struct pcre2_real_code_8;

namespace smemu::apimodel {

class Pattern {
 public:
  // Throws std::runtime_error when the pattern does not compile (a defect in api/, found at start).
  explicit Pattern(std::string java_pattern);
  ~Pattern();
  Pattern(const Pattern&) = delete;
  Pattern& operator=(const Pattern&) = delete;

  // True when all of `text` matches. Invalid UTF-8 never matches.
  bool Matches(std::string_view text) const;
  // The pattern as written in the model (AWS quotes it in error messages).
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::unique_ptr<pcre2_real_code_8, void (*)(pcre2_real_code_8*)> code_;
  mutable std::once_flag jit_compiled_;
};

// Rewrites the Java-only parts of a model pattern (POSIX classes such as \p{Alnum} and \p{Print})
// into PCRE2 syntax. Exposed for tests.
std::string TranslateJavaPattern(std::string_view java_pattern);

}  // namespace smemu::apimodel
