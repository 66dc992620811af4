// What an operation handler is given: who calls, the time the request is served at, and the store.
// Handlers run one at a time under Emulator's request lock, so they may use the store freely.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "domain/aws_error.hpp"
#include "domain/capacity_config.hpp"
#include "domain/capacity_ledger.hpp"
#include "domain/training_plan.hpp"
#include "smemu/clock.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

// The caller as read from the request's SigV4 credential scope (or the server defaults).
struct Caller {
  std::string account;
  std::string region;
  std::string request_id;
};

// Offerings returned by searches, until bought or kOfferingLifetime has passed. In memory only:
// after a restart, search again.
struct RememberedOffering {
  domain::Offering offering;
  std::string account;
  std::string region;
  TimePoint expires;
  std::string extends_plan;  // for an extension offering: the plan's name
};
using OfferingBook = std::map<std::string, RememberedOffering, std::less<>>;

struct Context {
  Caller caller;
  TimePoint now;  // one instant for the whole request
  store::StateStore& store;
  domain::CapacityLedger& ledger;
  const domain::CapacityConfig& capacity;
  OfferingBook& offerings;
  Millis provisioning_delay{0};  // Creating -> InService, Deleting -> gone
};

// A control-plane operation: validated JSON input -> JSON output or an AWS error.
using Handler = std::function<domain::Result<nlohmann::json>(const nlohmann::json&, Context&)>;

// A sagemaker-runtime invocation, free of HTTP types.
struct InvokeRequest {
  std::string endpoint_name;
  std::string body;
  std::string content_type;
  std::string accept;
  std::string custom_attributes;
  std::string target_variant;
};

struct InvokeResponse {
  std::string body;
  std::string content_type;
  std::string invoked_variant;
  std::string custom_attributes;
};

using RuntimeHandler =
    std::function<domain::Result<InvokeResponse>(const InvokeRequest&, Context&)>;

}  // namespace smemu::ops
