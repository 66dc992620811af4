#include "apimodel/service_model.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "apimodel/embedded_models.hpp"

namespace smemu::apimodel {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A small model in botocore's layout, with members the loader must skip (documentation, errors,
// box) and a shape used before it is defined.
constexpr const char* kModel = R"({
  "version": "2.0",
  "metadata": {"protocol": "rest-json", "targetPrefix": "Svc", "protocols": ["rest-json"]},
  "operations": {
    "Put": {
      "name": "Put",
      "http": {"method": "PUT", "requestUri": "/items/{Name}", "responseCode": 201},
      "input": {"shape": "PutInput"},
      "errors": [{"shape": "Missing"}],
      "documentation": "<p>Puts.</p>"
    },
    "Ping": {"name": "Ping", "http": {}}
  },
  "shapes": {
    "PutInput": {
      "type": "structure",
      "required": ["Name", "Body"],
      "members": {
        "Zeta": {"shape": "Count", "documentation": "first in the model"},
        "Name": {"shape": "Name", "location": "uri", "locationName": "Name"},
        "Body": {"shape": "Blob"},
        "Tags": {"shape": "TagMap"},
        "Kinds": {"shape": "KindList"}
      },
      "payload": "Body"
    },
    "Name": {"type": "string", "min": 1, "max": 63, "pattern": "[a-z]+"},
    "Count": {"type": "integer", "min": 0, "max": 1.5e3, "box": true},
    "Blob": {"type": "blob"},
    "TagMap": {"type": "map", "key": {"shape": "Name"}, "value": {"shape": "Name"}},
    "KindList": {"type": "list", "member": {"shape": "Kind"}},
    "Kind": {"type": "string", "enum": ["Small", "Large"]},
    "Choice": {"type": "structure", "union": true, "members": {}},
    "Missing": {"type": "structure", "members": {}, "exception": true}
  }
})";

TEST(ServiceModel, LoadsShapesInModelOrderWithTheirConstraints) {
  const auto model = ServiceModel::Load(kModel);
  EXPECT_EQ(model->protocol(), "rest-json");
  EXPECT_EQ(model->target_prefix(), "Svc");

  const Shape* input = model->FindShape("PutInput");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->type, Shape::Type::kStructure);
  std::vector<std::string> names;
  for (const Member& member : input->members) names.push_back(member.name);
  EXPECT_THAT(names, ElementsAre("Zeta", "Name", "Body", "Tags", "Kinds"));
  EXPECT_EQ(input->payload, "Body");

  const Member* name = input->FindMember("Name");
  ASSERT_NE(name, nullptr);
  EXPECT_TRUE(name->required);
  EXPECT_EQ(name->shape, model->FindShape("Name"));
  EXPECT_EQ(name->location, "uri");
  EXPECT_EQ(name->location_name, "Name");
  EXPECT_FALSE(input->FindMember("Zeta")->required);
  EXPECT_TRUE(input->FindMember("Body")->required);

  const Shape& name_shape = *name->shape;
  EXPECT_EQ(name_shape.min, 1);
  EXPECT_EQ(name_shape.max, 63);
  ASSERT_NE(name_shape.pattern, nullptr);
  EXPECT_TRUE(name_shape.pattern->Matches("abc"));
  EXPECT_FALSE(name_shape.pattern->Matches("ABC"));
  EXPECT_EQ(model->FindShape("Count")->max, 1500);

  const Shape* tags = input->FindMember("Tags")->shape;
  EXPECT_EQ(tags->type, Shape::Type::kMap);
  EXPECT_EQ(tags->key, &name_shape);
  EXPECT_EQ(tags->value, &name_shape);
  const Shape* kinds = input->FindMember("Kinds")->shape;
  EXPECT_EQ(kinds->type, Shape::Type::kList);
  ASSERT_NE(kinds->member, nullptr);
  EXPECT_THAT(kinds->member->enum_values, ElementsAre("Small", "Large"));

  EXPECT_TRUE(model->FindShape("Choice")->is_union);
  EXPECT_TRUE(model->FindShape("Missing")->is_exception);
  EXPECT_FALSE(model->FindShape("PutInput")->is_exception);
}

TEST(ServiceModel, LoadsOperationsWithHttpDefaults) {
  const auto model = ServiceModel::Load(kModel);
  const Operation* put = model->FindOperation("Put");
  ASSERT_NE(put, nullptr);
  EXPECT_EQ(put->input, model->FindShape("PutInput"));
  EXPECT_EQ(put->output, nullptr);
  EXPECT_EQ(put->http_method, "PUT");
  EXPECT_EQ(put->request_uri, "/items/{Name}");
  EXPECT_EQ(put->success_code, 201);

  const Operation* ping = model->FindOperation("Ping");
  ASSERT_NE(ping, nullptr);
  EXPECT_EQ(ping->input, nullptr);
  EXPECT_EQ(ping->http_method, "POST");
  EXPECT_EQ(ping->request_uri, "/");
  EXPECT_EQ(ping->success_code, 200);
  EXPECT_EQ(model->FindOperation("Missing"), nullptr);
}

std::string LoadError(const std::string& text) {
  try {
    ServiceModel::Load(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "loaded";
}

TEST(ServiceModel, RefusesMalformedModels) {
  const std::string head = R"({"metadata": {"protocol": "json"}, "operations": {}, "shapes": )";
  EXPECT_THAT(LoadError(head + R"({"A": {"type": "decimal"}}})"),
              HasSubstr("shape A has unsupported type decimal"));
  EXPECT_THAT(LoadError(head + R"({"A": {"min": 1}}})"), HasSubstr("shape A has no type"));
  EXPECT_THAT(LoadError(head + R"({"A": {"type": "list", "member": {"shape": "B"}}}})"),
              HasSubstr("unknown shape reference B"));
  EXPECT_THAT(LoadError(head + R"({"A": {"type": "string", "pattern": "[a-"}}})"),
              HasSubstr("invalid model pattern"));
  EXPECT_THAT(LoadError(head + R"({"A": {"type": "string"})"), HasSubstr("not valid JSON"));
  EXPECT_THAT(LoadError(R"({"operations": {}, "shapes": {}})"), HasSubstr("no protocol"));
}

TEST(ServiceModel, EmbeddedModelsLoad) {
  const ServiceModel& control_plane = ControlPlaneModel();
  EXPECT_EQ(control_plane.target_prefix(), "SageMaker");
  const Operation* create = control_plane.FindOperation("CreateTrainingPlan");
  ASSERT_NE(create, nullptr);
  ASSERT_NE(create->input, nullptr);
  EXPECT_EQ(create->input->members.front().name, "TrainingPlanName");  // model order
  EXPECT_TRUE(create->input->FindMember("TrainingPlanName")->required);
  const Operation* invoke = RuntimeModel().FindOperation("InvokeEndpoint");
  ASSERT_NE(invoke, nullptr);
  EXPECT_EQ(invoke->request_uri, "/endpoints/{EndpointName}/invocations");
  EXPECT_EQ(invoke->input->FindMember("EndpointName")->location, "uri");
}

}  // namespace
}  // namespace smemu::apimodel
