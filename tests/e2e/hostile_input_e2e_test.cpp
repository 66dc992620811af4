// Hostile input, one case per test, against the real server on a real socket. Each case must be
// answered with a clear 4xx in the AWS error shape, and a well-behaved client must go on being
// served meanwhile. Limits on bodies, headers and slow clients have their own tests in
// server_e2e_test.cpp (OversizedBodyIs413…, OversizedHeadersAre431, ASlowClientGets408).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "e2e/http_client.hpp"
#include "e2e/test_server.hpp"
#include "sanitizers.hpp"
#include "smemu/server.hpp"

namespace smemu {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::HttpClient;
using testing::HttpReply;
using testing::RawExchange;
using ::testing::StartsWith;

// Resident memory of this process (the server runs inside it), in KiB.
long ResidentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

class HostileInput : public ::testing::Test {
 protected:
  HostileInput() : server_(Options()), port_(server_.Start()), bystander_(port_) {}

  static ServerOptions Options() {
    ServerOptions options = testing::TestServerOptions();
    options.read_timeout = std::chrono::milliseconds(300);
    return options;
  }

  HttpReply Aws(const std::string& operation, const std::string& body) {
    return HttpClient(port_).Aws(operation, body);
  }

  // The AWS error the body must get: status, __type and, when given, the exact message.
  void ExpectError(const std::string& operation, const std::string& body, int status,
                   const std::string& type, const std::string& message = "") {
    const HttpReply reply = Aws(operation, body);
    EXPECT_EQ(reply.status, status) << body;
    const json error = json::parse(reply.body, nullptr, false);
    ASSERT_TRUE(error.is_object()) << reply.body;
    EXPECT_EQ(error["__type"], type) << body;
    if (!message.empty()) {
      EXPECT_EQ(error["message"], message) << body;
    }
  }

  // A client on its own keep-alive connection is answered at once.
  void ExpectOthersAreServed() {
    const HttpReply reply = bystander_.Aws("ListModels", "{}");
    EXPECT_EQ(reply.status, 200) << reply.body;
  }

  Server server_;
  unsigned short port_;
  HttpClient bystander_;
};

TEST_F(HostileInput, HugeNumbersAreSerializationErrors) {
  const std::string not_an_integer =
      "NUMBER_VALUE can not be converted to an Integer (at 'maxResults').";
  ExpectError("ListModels", R"({"MaxResults": 99999999999999999999999})", 400,
              "SerializationException", not_an_integer);
  ExpectError("ListModels", R"({"MaxResults": -9223372036854775809})", 400,
              "SerializationException", not_an_integer);
  ExpectError("ListModels", R"({"MaxResults": 2147483648})", 400, "SerializationException",
              "Numeric value (2147483648) out of range of int (at 'maxResults').");
  ExpectError("ListModels", R"({"MaxResults": 1e400})", 400, "SerializationException",
              "The request body is not valid JSON.");
  ExpectError("ListModels", R"({"CreationTimeAfter": 1e300})", 400, "SerializationException",
              "NUMBER_VALUE can not be converted to a Timestamp (at 'creationTimeAfter').");
  ExpectError("ListModels", R"({"MaxResults": 101})", 400, "ValidationException");
  ExpectOthersAreServed();
}

TEST_F(HostileInput, NanAndInfinityAreNotJson) {
  for (const char* literal : {"NaN", "Infinity", "-Infinity", "nan", "inf"}) {
    ExpectError("ListModels", std::string(R"({"MaxResults": )") + literal + "}", 400,
                "SerializationException", "The request body is not valid JSON.");
  }
  // As numeric strings, where a timestamp may be a string.
  for (const char* text : {"NaN", "Infinity", "-inf"}) {
    ExpectError("ListModels", json{{"CreationTimeAfter", text}}.dump(), 400,
                "SerializationException",
                "STRING_VALUE can not be converted to a Timestamp (at 'creationTimeAfter').");
  }
  ExpectOthersAreServed();
}

TEST_F(HostileInput, WrongMemberTypesAreSerializationErrors) {
  ExpectError("ListModels", R"({"MaxResults": "ten"})", 400, "SerializationException",
              "STRING_VALUE can not be converted to an Integer (at 'maxResults').");
  ExpectError("ListModels", R"({"MaxResults": 10.5})", 400, "SerializationException",
              "NUMBER_VALUE can not be converted to an Integer (at 'maxResults').");
  ExpectError("CreateModel", R"({"ModelName": 5})", 400, "SerializationException",
              "NUMBER_VALUE can not be converted to a String (at 'modelName').");
  ExpectError("CreateModel", R"({"ModelName": "m", "Tags": {}})", 400, "SerializationException",
              "Start of structure or map found where not expected (at 'tags').");
  ExpectError("CreateModel", R"({"ModelName": ["m"]})", 400, "SerializationException");
  ExpectError("CreateModel", R"({"ModelName": "m", "EnableNetworkIsolation": "yes"})", 400,
              "SerializationException");
  ExpectError("ListModels", "[]", 400, "SerializationException");
  ExpectError("ListModels", "42", 400, "SerializationException");
  ExpectOthersAreServed();
}

TEST_F(HostileInput, UnknownMembersAreIgnoredAsAwsIgnoresThem) {
  const HttpReply created =
      Aws("CreateModel", R"({"ModelName": "m", "Bogus": {"deep": [1, {"x": null}]}, "z": 1e5})");
  EXPECT_EQ(created.status, 200) << created.body;
  const json described = json::parse(Aws("DescribeModel", R"({"ModelName": "m"})").body);
  EXPECT_FALSE(described.contains("Bogus"));
  EXPECT_FALSE(described.contains("z"));
  ExpectOthersAreServed();
}

TEST_F(HostileInput, InvalidTimestampsAreSerializationErrors) {
  const std::string not_a_timestamp =
      " can not be converted to a Timestamp (at 'creationTimeAfter').";
  ExpectError("ListModels", R"({"CreationTimeAfter": "yesterday"})", 400, "SerializationException",
              "STRING_VALUE" + not_a_timestamp);
  ExpectError("ListModels", R"({"CreationTimeAfter": ""})", 400, "SerializationException",
              "STRING_VALUE" + not_a_timestamp);
  ExpectError("ListModels", R"({"CreationTimeAfter": true})", 400, "SerializationException",
              "BOOLEAN_VALUE" + not_a_timestamp);
  ExpectError("ListModels", R"({"CreationTimeAfter": -1e13})", 400, "SerializationException",
              "NUMBER_VALUE" + not_a_timestamp);
  ExpectError("ListModels", R"({"CreationTimeAfter": {}})", 400, "SerializationException");
  // Fractions and numeric strings are timestamps; so is the year 9999.
  EXPECT_EQ(Aws("ListModels", R"({"CreationTimeAfter": 253402300799})").status, 200);
  EXPECT_EQ(Aws("ListModels", R"({"CreationTimeAfter": "1800835200.5"})").status, 200);
  ExpectOthersAreServed();
}

TEST_F(HostileInput, NonUtf8BodiesAreSerializationErrors) {
  const std::string not_json = "The request body is not valid JSON.";
  for (const std::string& body :
       {std::string("{\"ModelName\":\"\xc3\x28\"}"),      // a broken two-byte sequence
        std::string("{\"ModelName\":\"\xc0\xaf\"}"),      // an overlong encoding
        std::string("{\"ModelName\":\"\xed\xa0\x80\"}"),  // a UTF-16 surrogate in UTF-8
        std::string("{\"ModelName\":\"\\ud800\"}"),       // a lone surrogate escape
        std::string("\xff\xfe{}")}) {
    ExpectError("CreateModel", body, 400, "SerializationException", not_json);
  }
  // An invocation body is bytes, not text: any bytes reach the model.
  HttpClient client(port_);
  const HttpReply invoked = client.Send("POST", "/endpoints/none/invocations", "\xff\xfe\x00\x80");
  EXPECT_EQ(invoked.status, 400);
  EXPECT_EQ(json::parse(invoked.body)["__type"], "ValidationError");
  ExpectOthersAreServed();
}

TEST_F(HostileInput, DeepNestingIsRefusedWithoutAStackOverflow) {
  const std::string too_deep = "nested more than 64";
  // Nearly a whole 1 MiB body of brackets: a recursive parser would overflow its stack.
  const std::string arrays = "{\"a\":" + std::string(1000000, '[');
  HttpReply reply = Aws("ListModels", arrays);
  EXPECT_EQ(reply.status, 400);
  EXPECT_THAT(reply.body, HasSubstr(too_deep));
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  reply = Aws("CreateModel", objects);
  EXPECT_EQ(reply.status, 400);
  EXPECT_THAT(reply.body, HasSubstr(too_deep));
  // 64 levels are fine, and unknown: ignored.
  std::string deep_but_allowed = R"({"ModelName":"deep","Bogus":)";
  for (int i = 0; i < 60; ++i) deep_but_allowed += "[";
  for (int i = 0; i < 60; ++i) deep_but_allowed += "]";
  EXPECT_EQ(Aws("CreateModel", deep_but_allowed + "}").status, 200);
  ExpectOthersAreServed();
}

TEST_F(HostileInput, WrongMethodsAndPathsOverTheWire) {
  HttpClient client(port_);
  HttpReply reply = client.Send("PUT", "/", "{}");
  EXPECT_EQ(reply.status, 405);
  reply = client.Send("GET", "/endpoints/e/invocations", "");
  EXPECT_EQ(reply.status, 405);
  reply = client.Send("DELETE", "/_emulator/capacity", "");
  EXPECT_EQ(reply.status, 405);
  reply = client.Send("POST", "/../../etc/passwd", "");
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(json::parse(reply.body)["__type"], "UnknownOperationException");
  reply = client.Send("POST", "/", "{}", {{"X-Amz-Target", "SageMaker.DropEverything"}});
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(json::parse(reply.body)["__type"], "UnknownOperationException");
  reply = client.Send("POST", "/", "{}", {{"X-Amz-Target", std::string(300, 'x')}});
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(json::parse(reply.body)["__type"], "UnknownOperationException");
  EXPECT_THAT(RawExchange(port_, {"BREW /pot HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"}),
              StartsWith("HTTP/1.1 4"));
  ExpectOthersAreServed();
}

// One connection pipelines 50 MiB of requests without reading its answers: each is answered, in
// order, and the server reads no faster than the client takes its answers, so memory stays flat.
TEST_F(HostileInput, APipeliningFloodIsAnsweredInOrderWithBoundedMemory) {
  constexpr int kRequests = 100;
  const std::string body = "{" + std::string(512 * 1024, ' ') + "}";
  const std::string request =
      "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: SageMaker.ListModels\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  namespace net = http::net;
  net::io_context ioc;
  http::tcp::socket flood(ioc);
  flood.connect({net::ip::make_address("127.0.0.1"), port_});
  const long before = ResidentKiB();
  std::thread writer([&] {
    for (int i = 0; i < kRequests; ++i) net::write(flood, net::buffer(request));
  });
  // Let the writer fill every buffer before anything is read, then check on the others.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ExpectOthersAreServed();
  const long while_flooded = ResidentKiB();
  std::string answers;
  char chunk[65536];
  int answered = 0;
  while (answered < kRequests) {
    const size_t n = flood.read_some(net::buffer(chunk));
    answers.append(chunk, n);
    size_t at = 0;
    while ((at = answers.find("HTTP/1.1 200 OK", at)) != std::string::npos) {
      ++answered;
      at += 15;
    }
    answers.erase(0, answers.size() > 16 ? answers.size() - 16 : 0);
  }
  writer.join();
  EXPECT_EQ(answered, kRequests);
#if !defined(SMEMU_UNDER_ASAN) && !defined(SMEMU_UNDER_TSAN)
  // Sanitizers keep freed memory in quarantine, so only a plain build measures what is live.
  EXPECT_LT(while_flooded - before, 16 * 1024) << "KiB grown while the flood was unread";
#else
  (void)while_flooded;
  (void)before;
#endif
  ExpectOthersAreServed();
}

// Many clients trickle their headers a byte at a time (slowloris): each is cut off with 408 after
// the read timeout, and nobody else waits for them.
TEST_F(HostileInput, SlowClientsAreCutOffAndDoNotStarveOthers) {
  namespace net = http::net;
  net::io_context ioc;
  std::vector<http::tcp::socket> slow;
  for (int i = 0; i < 50; ++i) {
    slow.emplace_back(ioc).connect({net::ip::make_address("127.0.0.1"), port_});
  }
  const std::string start = "POST / HTTP/1.1\r\nHost: x\r\n";
  for (size_t byte = 0; byte < 5; ++byte) {
    for (auto& socket : slow) net::write(socket, net::buffer(start.data() + byte, 1));
    const auto started = std::chrono::steady_clock::now();
    ExpectOthersAreServed();
    // Liveness, not speed: a starved client would wait for the slow ones to time out.
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
  }
  int cut_off = 0;
  for (auto& socket : slow) {
    std::string reply(64, '\0');
    boost::system::error_code ec;
    const size_t n = net::read(socket, net::buffer(reply), net::transfer_at_least(12), ec);
    if (std::string_view(reply.data(), n).rfind("HTTP/1.1 408", 0) == 0) ++cut_off;
  }
  EXPECT_EQ(cut_off, 50);
  ExpectOthersAreServed();
}

}  // namespace
}  // namespace smemu
