#include "protocol/sigv4.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <utility>

#include "domain/aws_names.hpp"
#include "domain/time_format.hpp"
#include "protocol/percent_encoding.hpp"

namespace smemu::protocol {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr std::string_view kTerminator = "aws4_request";

// AWS's texts (Coral's SigV4 front end; see the tests for where each comes from).
constexpr const char* kMissingToken = "Missing Authentication Token";
constexpr const char* kUnknownKey = "The security token included in the request is invalid.";
constexpr const char* kSignatureMismatch =
    "The request signature we calculated does not match the signature you provided. Check your "
    "AWS Secret Access Key and signing method. Consult the service documentation for details.";

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~';
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v'; }

std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0x0F];
    }
  }
  return out;
}

std::string ToHex(const unsigned char* data, size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out += kHex[data[i] >> 4];
    out += kHex[data[i] & 0x0F];
  }
  return out;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::optional<TimePoint> MakeTime(int year, int month, int day, int hour, int minute, int second) {
  const std::chrono::year_month_day date{std::chrono::year{year},
                                         std::chrono::month{static_cast<unsigned>(month)},
                                         std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok() || hour > 23 || minute > 59 || second > 59) return std::nullopt;
  return std::chrono::time_point_cast<Millis>(std::chrono::sys_days{date}) +
         std::chrono::hours{hour} + std::chrono::minutes{minute} + std::chrono::seconds{second};
}

struct Civil {
  std::chrono::year_month_day date;
  std::chrono::hh_mm_ss<std::chrono::seconds> time;
  unsigned weekday;  // 0 = Sunday
};

Civil ToCivil(TimePoint time) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  const auto day = std::chrono::floor<std::chrono::days>(seconds);
  return {std::chrono::year_month_day{day}, std::chrono::hh_mm_ss{seconds - day},
          std::chrono::weekday{day}.c_encoding()};
}

std::string TwoDigits(long value) {
  return std::string(1, static_cast<char>('0' + value / 10)) + static_cast<char>('0' + value % 10);
}

constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<const char*, 7> kWeekdays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

// The Authorization header taken apart as Coral does: the algorithm, then key=value tokens
// separated by commas and spaces.
struct AuthorizationParts {
  std::string_view algorithm;
  std::vector<std::pair<std::string_view, std::string_view>> params;

  const std::string_view* Param(std::string_view name) const {
    for (const auto& [key, value] : params) {
      if (key == name) return &value;
    }
    return nullptr;
  }
};

// nullopt with `bad_token` set when a token has no "=".
std::optional<AuthorizationParts> SplitAuthorization(std::string_view header,
                                                     std::string_view& bad_token) {
  AuthorizationParts parts;
  bool first = true;
  size_t pos = 0;
  while (pos < header.size()) {
    if (header[pos] == ',' || header[pos] == ' ') {
      ++pos;
      continue;
    }
    const size_t end = header.find_first_of(", ", pos);
    const std::string_view token = header.substr(pos, end - pos);
    pos = end == std::string_view::npos ? header.size() : end;
    if (first) {
      parts.algorithm = token;
      first = false;
      continue;
    }
    const size_t equals = token.find('=');
    if (equals == std::string_view::npos) {
      bad_token = token;
      return std::nullopt;
    }
    parts.params.emplace_back(token.substr(0, equals), token.substr(equals + 1));
  }
  return parts;
}

}  // namespace

// ------------------------------------------------------------------ lenient reading

std::optional<CredentialScope> ParseAuthorization(std::string_view header) {
  if (header.substr(0, kAlgorithm.size()) != kAlgorithm) return std::nullopt;
  constexpr std::string_view kCredential = "Credential=";
  const size_t at = header.find(kCredential);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view credential = header.substr(at + kCredential.size());
  credential = credential.substr(0, credential.find_first_of(", "));
  const auto parts = Split(credential, '/');
  if (parts.size() != 5 || parts[0].empty() || parts[4] != kTerminator) return std::nullopt;
  return CredentialScope{std::string(parts[0]), std::string(parts[1]), std::string(parts[2]),
                         std::string(parts[3])};
}

// ------------------------------------------------------------------ the signing steps

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  return ToHex(digest, size);
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest,
           &size) == nullptr) {
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  return std::string(reinterpret_cast<const char*>(digest), size);
}

std::string CanonicalUri(std::string_view raw_path) {
  if (raw_path.empty()) return "/";
  // RFC 3986 "remove dot segments", and no empty segments (what botocore and the JS SDK sign).
  std::vector<std::string_view> segments;
  for (const std::string_view segment : Split(raw_path, '/')) {
    if (segment.empty() || segment == ".") continue;
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
      continue;
    }
    segments.push_back(segment);
  }
  std::string path = raw_path.front() == '/' ? "/" : "";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) path += '/';
    path += segments[i];
  }
  if (raw_path.back() == '/' && !segments.empty()) path += '/';
  return UriEncode(path, /*keep_slash=*/true);
}

std::string CanonicalQueryString(std::string_view raw_query) {
  std::vector<std::pair<std::string, std::string>> params;
  for (const std::string_view pair : Split(raw_query, '&')) {
    if (pair.empty()) continue;
    const size_t equals = pair.find('=');
    const std::string_view name = pair.substr(0, equals);
    const std::string_view value =
        equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1);
    params.emplace_back(UriEncode(PercentDecodeLenient(name), false),
                        UriEncode(PercentDecodeLenient(value), false));
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += name + "=" + value;
  }
  return out;
}

std::string CanonicalHeaders(const Headers& headers,
                             const std::vector<std::string>& signed_headers) {
  std::string out;
  for (const std::string& name : signed_headers) {
    std::string joined;
    bool first = true;
    for (const auto& [key, value] : headers) {
      if (Lower(key) != name) continue;
      if (!first) joined += ',';
      first = false;
      // Trimmed, with each run of white space inside made one space.
      bool pending_space = false;
      bool started = false;
      for (const char c : value) {
        if (IsSpace(c)) {
          pending_space = started;
          continue;
        }
        if (pending_space) joined += ' ';
        pending_space = false;
        started = true;
        joined += c;
      }
    }
    out += name + ":" + joined + "\n";
  }
  return out;
}

std::string CanonicalRequest(const HttpRequest& request,
                             const std::vector<std::string>& signed_headers,
                             std::string_view payload_hash) {
  const std::string_view target = request.target;
  const size_t question = target.find('?');
  const std::string_view query =
      question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
  std::string names;
  for (const std::string& name : signed_headers) {
    if (!names.empty()) names += ';';
    names += name;
  }
  return request.method + "\n" + CanonicalUri(request.Path()) + "\n" + CanonicalQueryString(query) +
         "\n" + CanonicalHeaders(request.headers, signed_headers) + "\n" + names + "\n" +
         std::string(payload_hash);
}

std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request) {
  return std::string(kAlgorithm) + "\n" + std::string(amz_date) + "\n" + std::string(scope) + "\n" +
         Sha256Hex(canonical_request);
}

std::string SigningKey(std::string_view secret, std::string_view date, std::string_view region,
                       std::string_view service) {
  const std::string date_key = HmacSha256("AWS4" + std::string(secret), date);
  const std::string region_key = HmacSha256(date_key, region);
  const std::string service_key = HmacSha256(region_key, service);
  return HmacSha256(service_key, kTerminator);
}

std::string SignatureHex(std::string_view signing_key, std::string_view string_to_sign) {
  const std::string mac = HmacSha256(signing_key, string_to_sign);
  return ToHex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
}

// ------------------------------------------------------------------ times on the wire

std::optional<TimePoint> ParseAmzDate(std::string_view text) {
  if (text.size() != 16 || text[8] != 'T' || text[15] != 'Z') return std::nullopt;
  size_t pos = 0;
  const auto year = domain::ReadDigits(text, pos, 4);
  const auto month = domain::ReadDigits(text, pos, 2);
  const auto day = domain::ReadDigits(text, pos, 2);
  ++pos;  // T
  const auto hour = domain::ReadDigits(text, pos, 2);
  const auto minute = domain::ReadDigits(text, pos, 2);
  const auto second = domain::ReadDigits(text, pos, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  return MakeTime(*year, *month, *day, *hour, *minute, *second);
}

std::string FormatAmzDate(TimePoint time) {
  const Civil civil = ToCivil(time);
  return std::to_string(static_cast<int>(civil.date.year())) +
         TwoDigits(static_cast<unsigned>(civil.date.month())) +
         TwoDigits(static_cast<unsigned>(civil.date.day())) + "T" +
         TwoDigits(civil.time.hours().count()) + TwoDigits(civil.time.minutes().count()) +
         TwoDigits(civil.time.seconds().count()) + "Z";
}

std::optional<TimePoint> ParseHttpDate(std::string_view text) {
  // Sun, 06 Nov 1994 08:49:37 GMT
  if (text.size() != 29 || text.substr(3, 2) != ", " || text[7] != ' ' || text[11] != ' ' ||
      text[16] != ' ' || text[19] != ':' || text[22] != ':' || text.substr(25) != " GMT") {
    return std::nullopt;
  }
  const auto month_at = std::find(kMonths.begin(), kMonths.end(), text.substr(8, 3));
  if (month_at == kMonths.end()) return std::nullopt;
  size_t pos = 5;
  const auto day = domain::ReadDigits(text, pos, 2);
  pos = 12;
  const auto year = domain::ReadDigits(text, pos, 4);
  pos = 17;
  const auto hour = domain::ReadDigits(text, pos, 2);
  pos = 20;
  const auto minute = domain::ReadDigits(text, pos, 2);
  pos = 23;
  const auto second = domain::ReadDigits(text, pos, 2);
  if (!day || !year || !hour || !minute || !second) return std::nullopt;
  return MakeTime(*year, static_cast<int>(month_at - kMonths.begin()) + 1, *day, *hour, *minute,
                  *second);
}

std::string FormatHttpDate(TimePoint time) {
  const Civil civil = ToCivil(time);
  return std::string(kWeekdays[civil.weekday]) + ", " +
         TwoDigits(static_cast<unsigned>(civil.date.day())) + " " +
         kMonths[static_cast<unsigned>(civil.date.month()) - 1] + " " +
         std::to_string(static_cast<int>(civil.date.year())) + " " +
         TwoDigits(civil.time.hours().count()) + ":" + TwoDigits(civil.time.minutes().count()) +
         ":" + TwoDigits(civil.time.seconds().count()) + " GMT";
}

// ------------------------------------------------------------------ strict authentication

SigV4Verifier::SigV4Verifier(CredentialTable credentials, const Clock& real_clock,
                             std::string service)
    : credentials_(std::move(credentials)), real_clock_(real_clock), service_(std::move(service)) {}

const Credential* SigV4Verifier::Find(std::string_view access_key_id) const {
  const auto found = credentials_.find(access_key_id);
  return found == credentials_.end() ? nullptr : &found->second;
}

domain::Result<SigV4Verifier::Verified> SigV4Verifier::Verify(const HttpRequest& request,
                                                              int refusal_status) const {
  auto refuse = [refusal_status](domain::ErrorCode code, std::string message) {
    return domain::AwsError(code, std::move(message), refusal_status);
  };
  auto incomplete = [&](std::string message) {
    return refuse(domain::ErrorCode::kIncompleteSignatureException, std::move(message));
  };
  auto invalid = [&](std::string message) {
    return refuse(domain::ErrorCode::kInvalidSignatureException, std::move(message));
  };

  const std::string* header = request.Header("Authorization");
  if (header == nullptr || header->empty()) {
    return refuse(domain::ErrorCode::kMissingAuthenticationTokenException, kMissingToken);
  }

  // Well formed: key=value tokens, the three parameters and a date.
  std::string_view bad_token;
  const auto parts = SplitAuthorization(*header, bad_token);
  if (!parts) {
    return incomplete("'" + std::string(bad_token) +
                      "' not a valid key=value pair (missing equal-sign) in Authorization "
                      "header: '" +
                      *header + "'.");
  }
  const std::string_view* credential = parts->Param("Credential");
  const std::string_view* signature = parts->Param("Signature");
  const std::string_view* signed_names = parts->Param("SignedHeaders");
  const std::string* date_header = request.Header("X-Amz-Date");
  const bool amz_date = date_header != nullptr;
  if (!amz_date) date_header = request.Header("Date");
  std::string missing;
  if (credential == nullptr || credential->empty()) {
    missing += "Authorization header requires 'Credential' parameter. ";
  }
  if (signature == nullptr || signature->empty()) {
    missing += "Authorization header requires 'Signature' parameter. ";
  }
  if (signed_names == nullptr)
    missing += "Authorization header requires 'SignedHeaders' parameter. ";
  if (date_header == nullptr) {
    missing +=
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ";
  }
  if (!missing.empty()) return incomplete(missing + "Authorization=" + *header);

  // The request time, within kAllowedSkew of the real clock.
  std::optional<TimePoint> signed_at = ParseAmzDate(*date_header);
  if (!signed_at && !amz_date) signed_at = ParseHttpDate(*date_header);
  if (!signed_at) {
    return incomplete("Date must be in ISO-8601 'basic format'. Got '" + *date_header +
                      "'. See http://en.wikipedia.org/wiki/ISO_8601");
  }
  const TimePoint now = std::chrono::floor<std::chrono::seconds>(real_clock_.Now());
  const std::string window = std::to_string(kAllowedSkew.count()) + " min.)";
  if (*signed_at < now - kAllowedSkew) {
    return invalid("Signature expired: " + FormatAmzDate(*signed_at) + " is now earlier than " +
                   FormatAmzDate(now - kAllowedSkew) + " (" + FormatAmzDate(now) + " - " + window);
  }
  if (*signed_at > now + kAllowedSkew) {
    return invalid("Signature not yet current: " + FormatAmzDate(*signed_at) +
                   " is still later than " + FormatAmzDate(now + kAllowedSkew) + " (" +
                   FormatAmzDate(now) + " + " + window);
  }

  std::vector<std::string> signed_headers;
  for (const std::string_view name : Split(*signed_names, ';')) {
    if (!name.empty()) signed_headers.push_back(Lower(name));
  }
  if (std::find(signed_headers.begin(), signed_headers.end(), "host") == signed_headers.end()) {
    return invalid("'Host' must be a 'SignedHeader' in the AWS Authorization.");
  }
  if (parts->algorithm != kAlgorithm) {
    return incomplete("Unsupported AWS 'algorithm': '" + std::string(parts->algorithm) +
                      "' (only AWS4-HMAC-SHA256 for now). ");
  }

  // The credential scope: key/date/region/service/aws4_request, matching this request.
  std::string_view credential_text = *credential;
  while (!credential_text.empty() && credential_text.back() == '/')
    credential_text.remove_suffix(1);
  const auto scope_parts = Split(credential_text, '/');
  if (scope_parts.size() != 5) {
    return incomplete(
        "Credential must have exactly 5 slash-delimited elements, e.g. "
        "keyid/date/region/service/term, got '" +
        std::string(*credential) + "'");
  }
  const std::string amz_date_text = FormatAmzDate(*signed_at);
  const std::string_view day = std::string_view(amz_date_text).substr(0, 8);
  std::string scope_errors;
  if (!domain::IsRegionName(scope_parts[2])) {
    scope_errors += "Credential should be scoped to a valid region, not '" +
                    std::string(scope_parts[2]) + "'. ";
  }
  if (scope_parts[3] != service_) {
    scope_errors += "Credential should be scoped to correct service: '" + service_ + "'. ";
  }
  if (scope_parts[4] != kTerminator) {
    scope_errors += "Credential should be scoped with a valid terminator: 'aws4_request', not '" +
                    std::string(scope_parts[4]) + "'. ";
  }
  if (scope_parts[1] != day) {
    scope_errors +=
        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from "
        "HTTP: '" +
        std::string(scope_parts[1]) + "' != '" + std::string(day) + "', from '" + amz_date_text +
        "'. ";
  }
  if (!scope_errors.empty()) return invalid(scope_errors);

  const Credential* known = Find(scope_parts[0]);
  if (known == nullptr) return refuse(domain::ErrorCode::kUnrecognizedClientException, kUnknownKey);

  // The signature over the canonical request. The payload hash is always computed from the body:
  // an X-Amz-Content-SHA256 header that does not match it makes the signatures differ.
  const std::string scope = std::string(scope_parts[1]) + "/" + std::string(scope_parts[2]) + "/" +
                            std::string(scope_parts[3]) + "/" + std::string(kTerminator);
  const std::string canonical = CanonicalRequest(request, signed_headers, Sha256Hex(request.body));
  const std::string to_sign = StringToSign(amz_date_text, scope, canonical);
  const std::string expected = SignatureHex(
      SigningKey(known->secret_access_key, scope_parts[1], scope_parts[2], scope_parts[3]),
      to_sign);
  if (signature->size() != expected.size() ||
      CRYPTO_memcmp(signature->data(), expected.data(), expected.size()) != 0) {
    return invalid(std::string(kSignatureMismatch) +
                   "\n\nThe Canonical String for this request should have been\n'" + canonical +
                   "'\n\nThe String-to-Sign should have been\n'" + to_sign + "'\n");
  }
  return Verified{known,
                  {std::string(scope_parts[0]), std::string(scope_parts[1]),
                   std::string(scope_parts[2]), std::string(scope_parts[3])}};
}

}  // namespace smemu::protocol
