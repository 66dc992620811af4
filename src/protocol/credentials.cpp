#include "protocol/credentials.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "domain/aws_names.hpp"
#include "protocol/sigv4.hpp"

namespace smemu::protocol {
namespace {

using nlohmann::json;

constexpr size_t kMaxAccessKeyIdLength = 128;  // IAM's AccessKeyIdType

bool IsAccessKeyId(std::string_view id) {
  return !id.empty() && id.size() <= kMaxAccessKeyIdLength &&
         std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_';
         });
}

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void Fail(const std::string& path, const std::string& problem) const {
    throw std::runtime_error(source_ + ": " + (path.empty() ? "" : path + ": ") + problem);
  }

  void OnlyKeys(const json& object, const std::string& path,
                const std::set<std::string>& allowed) const {
    for (const auto& [key, value] : object.items()) {
      if (!allowed.count(key)) Fail(path.empty() ? key : path + "." + key, "unknown field");
    }
  }

  // A required, non-empty string member.
  std::string String(const json& object, const std::string& path, const char* field) const {
    const std::string member = path + "." + field;
    if (!object.contains(field)) Fail(member, "is required");
    const json& value = object.at(field);
    if (!value.is_string() || value.get<std::string>().empty()) {
      Fail(member, "must be a non-empty string");
    }
    return value.get<std::string>();
  }

 private:
  std::string source_;
};

}  // namespace

CredentialTable ParseCredentials(std::string_view text, const std::string& source,
                                 const std::string& default_account) {
  Parser parser(source);
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) parser.Fail("", "not valid JSON");
  if (!doc.is_object()) parser.Fail("", "must be a JSON object");
  parser.OnlyKeys(doc, "", {"credentials"});
  if (!doc.contains("credentials")) parser.Fail("credentials", "is required");
  const json& list = doc.at("credentials");
  if (!list.is_array() || list.empty()) {
    parser.Fail("credentials", "must be a non-empty list of access keys");
  }

  CredentialTable table;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = "credentials[" + std::to_string(i) + "]";
    const json& entry = list[i];
    if (!entry.is_object()) parser.Fail(path, "must be a JSON object");
    parser.OnlyKeys(entry, path, {"access_key_id", "secret_access_key", "account_id"});
    Credential credential;
    credential.access_key_id = parser.String(entry, path, "access_key_id");
    if (!IsAccessKeyId(credential.access_key_id)) {
      parser.Fail(path + ".access_key_id", "must be 1 to 128 letters, digits or underscores");
    }
    credential.secret_access_key = parser.String(entry, path, "secret_access_key");
    if (entry.contains("account_id")) {
      credential.account_id = parser.String(entry, path, "account_id");
      if (!domain::IsAccountId(credential.account_id))
        parser.Fail(path + ".account_id", "must be 12 digits");
    } else {
      credential.account_id = domain::IsAccountId(credential.access_key_id)
                                  ? credential.access_key_id
                                  : default_account;
    }
    const std::string key = credential.access_key_id;
    if (!table.emplace(key, std::move(credential)).second) {
      parser.Fail(path + ".access_key_id", "'" + key + "' is listed twice");
    }
  }
  return table;
}

CredentialTable LoadCredentials(const std::string& path, const std::string& default_account) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot read the credentials file");
  std::stringstream text;
  text << file.rdbuf();
  return ParseCredentials(text.str(), path, default_account);
}

}  // namespace smemu::protocol
