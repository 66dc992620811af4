#include "ops/json_writer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "ops/answer.hpp"
#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace {

using nlohmann::json;

TimePoint At(long long epoch_ms) { return TimePoint{Millis{epoch_ms}}; }

// What the answers wrote before the writer: the tree's own serialisation.
std::string TreeText(const json& tree) {
  return tree.dump(-1, ' ', false, json::error_handler_t::replace);
}

TEST(JsonWriter, WritesStringsAsTheTreeSerialiserDid) {
  for (const std::string& text :
       {std::string("plain"), std::string("quote \" and backslash \\"),
        std::string("tab\tnew\nline"), std::string("slash / stays"), std::string("caf\xc3\xa9"),
        std::string("emoji \xf0\x9f\x9a\x80"), std::string()}) {
    JsonWriter out;
    out.String(text);
    EXPECT_EQ(out.Text(), TreeText(text)) << text;
  }
  // Other control characters are \u escapes, with their hex digits in lower case as the tree's
  // serialiser writes them: the same string once read.
  JsonWriter out;
  out.String("control \x01\x1f");
  EXPECT_EQ(out.Text(), TreeText("control \x01\x1f"));
  EXPECT_EQ(out.Text(), R"("control \u0001\u001f")");
  EXPECT_EQ(json::parse(out.Text()), "control \x01\x1f");
}

TEST(JsonWriter, WritesTimestampsAsWriteTimestampDoes) {
  // Whole seconds as integers, others with their milliseconds: what botocore reads back exactly.
  for (const long long ms : {1800835200000LL, 1800835200250LL, 1800835200001LL, 0LL, 999LL}) {
    JsonWriter out;
    out.Timestamp(At(ms));
    EXPECT_EQ(out.Text(), TreeText(WriteTimestamp(At(ms)))) << ms;
  }
}

TEST(JsonWriter, WritesNumbersAsTheTreeSerialiserDid) {
  for (const double value : {1.0, 0.5, 100.0, 1e21, 1.5e-7, 1800835200.25, -3.75}) {
    JsonWriter out;
    out.Double(value);
    EXPECT_EQ(out.Text(), TreeText(value)) << value;
  }
  for (const int64_t value : {int64_t{0}, int64_t{-1}, INT64_MAX, INT64_MIN}) {
    JsonWriter out;
    out.Int(value);
    EXPECT_EQ(out.Text(), TreeText(value)) << value;
  }
}

TEST(JsonWriter, PartsNestedValuesWithCommas) {
  JsonWriter out;
  out.BeginArray()
      .BeginObject()
      .EndObject()
      .BeginArray()
      .EndArray()
      .Raw(R"({"k":[1,2]})")
      .Null()
      .BeginObject()
      .Key("a")
      .BeginArray()
      .String("x")
      .EndArray()
      .Member("b", "y")
      .EndObject()
      .EndArray();
  EXPECT_EQ(out.Text(), R"([{},[],{"k":[1,2]},null,{"a":["x"],"b":"y"}])");
  EXPECT_TRUE(json::accept(out.Text()));
}

TEST(JsonWriter, WritesMembersInTheOrderGivenAndSkipsAbsentOnes) {
  JsonWriter out;
  out.BeginObject()
      .Member("Name", "n")
      .Member("Count", 3)
      .TimestampMember("CreationTime", At(1800835200000))
      .OptionalMember("NextToken", std::nullopt)
      .OptionalMember("Reason", std::optional<std::string>("r"))
      .Key("List")
      .BeginArray()
      .Int(-1)
      .Bool(true)
      .EndArray()
      .EndObject();
  EXPECT_EQ(out.Text(),
            R"({"Name":"n","Count":3,"CreationTime":1800835200,"Reason":"r","List":[-1,true]})");
}

TEST(JsonWriter, RefusesTextThatIsNotOneWholeValue) {
  JsonWriter open;
  open.BeginObject().Member("a", 1);
  EXPECT_THROW((void)open.Text(), std::logic_error);
  JsonWriter nothing;
  EXPECT_THROW((void)nothing.Text(), std::logic_error);
  JsonWriter closed_twice;
  closed_twice.BeginArray().EndArray();
  EXPECT_THROW(closed_twice.EndArray(), std::logic_error);
  JsonWriter not_finite;  // JSON has no NaN: a defect in the handler, not a bad request
  EXPECT_THROW(not_finite.Double(std::nan("")), std::logic_error);
}

TEST(Answer, ATreeAndWrittenTextReadTheSame) {
  const json tree = {{"A", 1}, {"B", "x"}};
  EXPECT_EQ(Answer(tree).Text(), R"({"A":1,"B":"x"})");
  EXPECT_EQ(Answer::Written(R"({"B":"x","A":1})").Tree(), tree);
  EXPECT_EQ(Answer::Written(R"({"B":"x"})").Text(), R"({"B":"x"})");
}

}  // namespace
}  // namespace smemu::ops
