// Endpoints and jobs as the store keeps them (a row with a JSON document) and as the domain sees
// them (typed state): their codecs and how they are looked up. Their writes are edits
// (ops/edit.hpp), applied by ops/apply.cpp.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "domain/capacity_facts.hpp"
#include "domain/costs.hpp"
#include "domain/endpoint.hpp"
#include "domain/job.hpp"
#include "ops/context.hpp"

namespace smemu::ops {

// ---- Capacity facts from the store and the ledger

// Answers the lifecycle rules' questions for one request. Plans do not change while endpoints and
// jobs settle, so each is read from the store once per request.
class StoreCapacityFacts : public domain::CapacityFacts {
 public:
  explicit StoreCapacityFacts(const Context& ctx) : ctx_(ctx) {}
  std::optional<domain::PlanFacts> Plan(const domain::Owner& owner,
                                        const std::string& arn) const override;
  std::optional<int> OnDemandTotal(const std::string& region,
                                   const std::string& instance_type) const override;
  const domain::QuotaTable* Quotas() const override {
    return ctx_.quotas.empty() ? nullptr : &ctx_.quotas;
  }

 private:
  const Context& ctx_;
};

// ---- Endpoints

struct EndpointRecord {
  store::ResourceKey key;
  TimePoint created{};
  domain::Endpoint endpoint;
};

// The endpoint codec. Decoding a row that cannot be read is a StoreFailure naming it.
store::ResourceRow EncodeEndpoint(const EndpointRecord& record);
EndpointRecord EndpointFromRow(const store::ResourceRow& row);
std::optional<EndpointRecord> LoadEndpoint(const Context& ctx, const store::ResourceKey& key);

// ---- Jobs

struct JobRecord {
  store::ResourceKey key;
  nlohmann::json request;  // the Create request as given, Tags left out
  domain::Job job;
};

// The job codec. Decoding a row that cannot be read is a StoreFailure naming it.
store::ResourceRow EncodeJob(const JobRecord& record);
JobRecord JobFromRow(const store::ResourceRow& row);
std::optional<JobRecord> LoadJob(const Context& ctx, const store::ResourceKey& key);
// Every job that may still hold instances (InProgress or Stopping), of both kinds.
std::vector<JobRecord> LiveJobs(const store::Tables& store);
std::vector<JobRecord> LiveJobs(const store::Tables& store, domain::JobKind kind);
// Every job (of `account`, or of all) that started and had more than one option to start on:
// the cost ledger tells which of them fell back from their first preference.
std::vector<domain::PreferenceJob> JobsWithPreferences(const store::Tables& store,
                                                       const std::optional<std::string>& account);

}  // namespace smemu::ops
