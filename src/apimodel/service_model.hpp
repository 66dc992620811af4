// ServiceModel: one AWS service model (botocore service-2.json) loaded into linked Shape records.
// It is what dispatch, request validation and response checks consult. Built once at start from
// the files embedded from api/; immutable afterwards, so any thread may read it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apimodel/pattern.hpp"

namespace smemu::apimodel {

struct Shape;

struct Member {
  std::string name;
  const Shape* shape = nullptr;
  bool required = false;
  std::string location;       // "", "uri", "header", "headers", "querystring" (restJson1 only)
  std::string location_name;  // header or label name for located members
};

struct Shape {
  enum class Type {
    kStructure,
    kList,
    kMap,
    kString,
    kInteger,
    kLong,
    kFloat,
    kDouble,
    kBoolean,
    kTimestamp,
    kBlob,
  };

  std::string name;
  Type type = Type::kString;
  std::vector<Member> members;  // kStructure, in model order
  bool is_union = false;
  bool is_exception = false;
  // A streamed answer's events (restJson1: the output's payload, sent as an AWS event stream).
  bool is_event_stream = false;
  std::optional<int> error_status;  // an error shape's modelled HTTP status (error.httpStatusCode)
  std::string payload;              // restJson1: member that is the whole HTTP body
  const Shape* member = nullptr;    // kList
  const Shape* key = nullptr;       // kMap
  const Shape* value = nullptr;     // kMap
  std::optional<double> min;
  std::optional<double> max;
  std::unique_ptr<Pattern> pattern;
  std::vector<std::string> enum_values;

  const Member* FindMember(std::string_view member_name) const;
};

struct Operation {
  std::string name;
  const Shape* input = nullptr;   // nullptr: the operation takes no input
  const Shape* output = nullptr;  // nullptr: the operation answers with no members
  std::string http_method;
  std::string request_uri;
  int success_code = 200;
  std::vector<const Shape*> errors;  // the modelled error shapes, in model order
};

class ServiceModel {
 public:
  // Parses a botocore service-2.json document. Throws std::runtime_error on a malformed model.
  static std::unique_ptr<ServiceModel> Load(std::string_view model_json);

  const Operation* FindOperation(std::string_view name) const;
  const Shape* FindShape(std::string_view name) const;
  const std::map<std::string, Operation, std::less<>>& operations() const { return operations_; }
  const std::string& target_prefix() const { return target_prefix_; }
  const std::string& protocol() const { return protocol_; }

 private:
  class Builder;

  std::map<std::string, std::unique_ptr<Shape>, std::less<>> shapes_;
  std::map<std::string, Operation, std::less<>> operations_;
  std::string target_prefix_;
  std::string protocol_;
};

}  // namespace smemu::apimodel
