// AWS Signature Version 4 on the server side.
//
// By default signatures are not checked: like other local emulators, any credentials are accepted,
// but the credential scope still names the region, and an access key id of 12 digits names the
// account, so tests can keep accounts and regions apart (ParseAuthorization).
//
// With strict authentication (--credentials), SigV4Verifier checks every AWS request's
// Authorization header as AWS does: the canonical request (method, normalized and re-encoded path,
// sorted query, the signed headers, the SHA-256 of the body), the string to sign, the HMAC-SHA256
// signing key chain, and the request time against the real clock, refusing with AWS's error codes
// and texts. Presigned URLs (X-Amz-Signature in the query) are not accepted.
//
// All functions are pure; SigV4Verifier is immutable and safe to use from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/aws_error.hpp"
#include "protocol/credentials.hpp"
#include "protocol/http_types.hpp"
#include "smemu/clock.hpp"

namespace smemu::protocol {

struct CredentialScope {
  std::string access_key_id;
  std::string date;  // yyyymmdd
  std::string region;
  std::string service;
};

// Parses `AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/sagemaker/aws4_request, ...`.
// nullopt when the header is not a SigV4 header or its credential is malformed. Checks nothing
// else.
std::optional<CredentialScope> ParseAuthorization(std::string_view header);

// ------------------------------------------------------------------ the signing steps
// Lower-case hex of SHA-256(data).
std::string Sha256Hex(std::string_view data);
// Raw HMAC-SHA256(key, data), 32 bytes.
std::string HmacSha256(std::string_view key, std::string_view data);

// The canonical URI of a path as sent on the wire (still percent-encoded): "." and ".." segments
// resolved, empty segments dropped, then every byte but A-Z a-z 0-9 - _ . ~ and "/" encoded again
// (%XX, upper case), as every AWS service but S3 expects and as botocore and the JS SDK sign.
std::string CanonicalUri(std::string_view raw_path);
// The canonical query string: parameters decoded, re-encoded (only unreserved bytes kept), sorted
// by name then value, joined with "&"; a parameter without "=" gets an empty value.
std::string CanonicalQueryString(std::string_view raw_query);
// "name:value\n" for each name in `signed_headers` (lower case, in the given order). Repeated
// headers are joined with ","; each value is trimmed and runs of white space become one space.
std::string CanonicalHeaders(const Headers& headers,
                             const std::vector<std::string>& signed_headers);
std::string CanonicalRequest(const HttpRequest& request,
                             const std::vector<std::string>& signed_headers,
                             std::string_view payload_hash);
// "AWS4-HMAC-SHA256\n<amz_date>\n<scope>\n<hex sha256 of canonical_request>", where scope is
// "yyyymmdd/region/service/aws4_request".
std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request);
// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
std::string SigningKey(std::string_view secret, std::string_view date, std::string_view region,
                       std::string_view service);
// Lower-case hex of HMAC-SHA256(signing_key, string_to_sign).
std::string SignatureHex(std::string_view signing_key, std::string_view string_to_sign);

// ------------------------------------------------------------------ times on the wire
// `yyyymmddThhmmssZ` (X-Amz-Date). Parse returns nullopt for anything else.
std::optional<TimePoint> ParseAmzDate(std::string_view text);
std::string FormatAmzDate(TimePoint time);  // truncated to whole seconds
// RFC 9110 IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT` (the Date header).
std::optional<TimePoint> ParseHttpDate(std::string_view text);
std::string FormatHttpDate(TimePoint time);

// ------------------------------------------------------------------ strict authentication
class SigV4Verifier {
 public:
  // How far X-Amz-Date may be from the real clock, either way.
  static constexpr std::chrono::minutes kAllowedSkew{15};

  // `real_clock` is the wall clock clients sign with (not the virtual clock); it must outlive the
  // verifier. `service` is the name the credential scope must carry.
  SigV4Verifier(CredentialTable credentials, const Clock& real_clock,
                std::string service = "sagemaker");

  struct Verified {
    const Credential* credential;  // points into this verifier's table
    CredentialScope scope;
  };

  // Checks `request`'s Authorization header in AWS's order: present; well formed
  // (IncompleteSignatureException); a readable date within kAllowedSkew, the host signed, the
  // algorithm, the credential scope (InvalidSignatureException); a known access key
  // (UnrecognizedClientException); the signature (InvalidSignatureException). Refusals carry
  // `refusal_status` (awsJson1_1 answers them with 400, restJson1 with 403).
  domain::Result<Verified> Verify(const HttpRequest& request, int refusal_status) const;

  // The credential of `access_key_id`, or nullptr. Claims only; verifies nothing.
  const Credential* Find(std::string_view access_key_id) const;
  const Clock& clock() const { return real_clock_; }

 private:
  CredentialTable credentials_;
  const Clock& real_clock_;
  std::string service_;
};

}  // namespace smemu::protocol
