// Private to the training plans' files: what the answers of several of them write, and the
// handlers that training_plans.cpp registers. The handlers are split by concern:
//   training_plan_offerings.cpp  SearchTrainingPlanOfferings (new plans and extensions)
//   training_plan_purchases.cpp  CreateTrainingPlan, ExtendTrainingPlan and the extension history
//   training_plan_views.cpp      DescribeTrainingPlan, ListTrainingPlans, DescribeReservedCapacity,
//                                ListUltraServersByReservedCapacity
//   training_plans.cpp           the kind: its handlers, admin view, status counts and commitments
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/aws_error.hpp"
#include "domain/training_plan.hpp"
#include "ops/answer.hpp"
#include "ops/context.hpp"
#include "ops/json_writer.hpp"
#include "ops/plan_records.hpp"

namespace smemu::ops::training_plans {

inline constexpr const char* kCurrency = "USD";
inline constexpr domain::ResourceKind kPlan = domain::ResourceKind::kTrainingPlan;

// DurationHours and DurationMinutes.
void WriteDuration(JsonWriter& out, Millis duration);

// A window's duration, start and end (StartTime, EndTime).
void WriteWindow(JsonWriter& out, const domain::Window& window);

// AvailabilityZoneId beside AvailabilityZone, where the zone has one (domain::AvailabilityZoneId).
void WriteZone(JsonWriter& out, const std::string& zone);

// ReservedCapacityType's value: "UltraServer" or "Instance".
const char* CapacityType(const std::optional<domain::UltraServers>& ultraservers);

// ReservedCapacityType, and for UltraServers their type and count.
void WriteCapacityType(JsonWriter& out, const std::optional<domain::UltraServers>& ultraservers);

// A member that is a list of strings.
void WriteStrings(JsonWriter& out, std::string_view member, const std::vector<std::string>& values);

// A reserved capacity's status: its plan's payment, then its own window.
std::string BlockStatus(const Plan& plan, const domain::CapacityBlock& block, TimePoint now);

// "The plan must not have any extensions in Payment Pending status." (Training plans extension)
domain::Status CheckNoPendingExtension(const Plan& plan, TimePoint now);

// training_plan_offerings.cpp
domain::Result<Answer> SearchTrainingPlanOfferings(const nlohmann::json& in, Context& ctx);

// training_plan_purchases.cpp
domain::Result<nlohmann::json> CreateTrainingPlan(const nlohmann::json& in, Context& ctx);
domain::Result<Answer> ExtendTrainingPlan(const nlohmann::json& in, Context& ctx);
domain::Result<Answer> DescribeTrainingPlanExtensionHistory(const nlohmann::json& in, Context& ctx);

// training_plan_views.cpp
domain::Result<Answer> DescribeTrainingPlan(const nlohmann::json& in, Context& ctx);
domain::Result<Answer> ListTrainingPlans(const nlohmann::json& in, Context& ctx);
domain::Result<Answer> DescribeReservedCapacity(const nlohmann::json& in, Context& ctx);
domain::Result<nlohmann::json> ListUltraServersByReservedCapacity(const nlohmann::json& in,
                                                                  Context& ctx);

}  // namespace smemu::ops::training_plans
