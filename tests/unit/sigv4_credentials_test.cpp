// The --credentials file: parsing, defaults, and errors that name the field.
#include <gtest/gtest.h>

#include <stdexcept>

#include "protocol/credentials.hpp"

namespace smemu::protocol {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    ParseCredentials(text, "creds.json", "000000000000");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Credentials, AccountsAreGivenOrDefaulted) {
  const CredentialTable table = ParseCredentials(
      R"({"credentials": [
            {"access_key_id": "AKIDEXAMPLE", "secret_access_key": "s1", "account_id": "111122223333"},
            {"access_key_id": "123456789012", "secret_access_key": "s2"},
            {"access_key_id": "AKIAOTHER", "secret_access_key": "s3"}]})",
      "creds.json", "444455556666");
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table.at("AKIDEXAMPLE").secret_access_key, "s1");
  EXPECT_EQ(table.at("AKIDEXAMPLE").account_id, "111122223333");
  EXPECT_EQ(table.at("123456789012").account_id, "123456789012");
  EXPECT_EQ(table.at("AKIAOTHER").account_id, "444455556666");
}

TEST(Credentials, ErrorsNameTheFileAndTheField) {
  EXPECT_EQ(ErrorOf("{"), "creds.json: not valid JSON");
  EXPECT_EQ(ErrorOf("[]"), "creds.json: must be a JSON object");
  EXPECT_EQ(ErrorOf("{}"), "creds.json: credentials: is required");
  EXPECT_EQ(ErrorOf(R"({"credentials": [], "x": 1})"), "creds.json: x: unknown field");
  EXPECT_EQ(ErrorOf(R"({"credentials": []})"),
            "creds.json: credentials: must be a non-empty list of access keys");
  EXPECT_EQ(ErrorOf(R"({"credentials": [1]})"),
            "creds.json: credentials[0]: must be a JSON object");
  EXPECT_EQ(ErrorOf(R"({"credentials": [{"access_key_id": "A"}]})"),
            "creds.json: credentials[0].secret_access_key: is required");
  EXPECT_EQ(ErrorOf(R"({"credentials": [{"access_key_id": "A", "secret_access_key": ""}]})"),
            "creds.json: credentials[0].secret_access_key: must be a non-empty string");
  EXPECT_EQ(ErrorOf(R"({"credentials": [{"access_key_id": "A/B", "secret_access_key": "s"}]})"),
            "creds.json: credentials[0].access_key_id: must be 1 to 128 letters, digits or "
            "underscores");
  EXPECT_EQ(ErrorOf(R"({"credentials": [{"access_key_id": "A", "secret_access_key": "s",
                                          "account_id": "12"}]})"),
            "creds.json: credentials[0].account_id: must be 12 digits");
  EXPECT_EQ(ErrorOf(R"({"credentials": [{"access_key_id": "A", "secret_access_key": "s",
                                          "secret": "s"}]})"),
            "creds.json: credentials[0].secret: unknown field");
  EXPECT_EQ(ErrorOf(R"({"credentials": [{"access_key_id": "A", "secret_access_key": "s"},
                                         {"access_key_id": "A", "secret_access_key": "t"}]})"),
            "creds.json: credentials[1].access_key_id: 'A' is listed twice");
}

TEST(Credentials, AnUnreadableFileIsAnError) {
  EXPECT_THROW(LoadCredentials("/nonexistent/creds.json", "000000000000"), std::runtime_error);
}

}  // namespace
}  // namespace smemu::protocol
