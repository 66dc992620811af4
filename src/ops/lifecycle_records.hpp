// Endpoints and jobs as the store keeps them (a row with a JSON document) and as the domain sees
// them (typed state). Every write of an endpoint or job goes through here, so the holdings in
// memory follow the store in the same step.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
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

// False when the key exists already.
bool InsertEndpoint(Writer& writer, TimePoint now, const EndpointRecord& record,
                    const store::Tags& tags);
void SaveEndpoint(Writer& writer, TimePoint now, const EndpointRecord& record);

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
std::vector<JobRecord> LiveJobs(const store::StateStore& store);
std::vector<JobRecord> LiveJobs(const store::StateStore& store, domain::JobKind kind);
// Every job (of `account`, or of all) that started and had more than one option to start on:
// the cost ledger tells which of them fell back from their first preference.
std::vector<domain::PreferenceJob> JobsWithPreferences(const store::StateStore& store,
                                                       const std::optional<std::string>& account);

bool InsertJob(Writer& writer, const JobRecord& record, const store::Tags& tags);
// `before`: the job as it was, so that its start and end are logged at their own times.
void SaveJob(Writer& writer, const JobRecord& record, const domain::Job& before);

// ---- Holdings

// Makes `holder` what the resource `key` holds from `at` on: in ctx.holdings and, when that
// differs from what it held, in the store's holdings log (the cost ledger's history).
void PutHolder(Writer& writer, const store::ResourceKey& key, domain::Holder holder, TimePoint at);
// The writes of a resource that holds instances (an endpoint, a cluster): its row and, in step,
// what it holds from `now` on.
bool InsertHolding(Writer& writer, TimePoint now, const store::ResourceRow& row,
                   const store::Tags& tags, domain::Holder holder);
void SaveHolding(Writer& writer, TimePoint now, const store::ResourceRow& row,
                 domain::Holder holder);
void EraseHolding(Writer& writer, TimePoint now, const store::ResourceKey& key,
                  const std::string& arn);
// The settle loop of the kinds that hold instances one resource at a time (endpoints, clusters):
// settles each of `records` (their resource is the member `held`) with `settle_one`, the domain's
// Settle for the kind, whose answer has the resource after settling in its member `after` (empty
// when it is gone); writes back what changed, and returns when the next of them falls due.
template <typename Record, typename Resource, typename Settlement, typename SettleOne>
std::optional<TimePoint> SettleHeld(Writer& writer, TimePoint now, std::vector<Record> records,
                                    Resource Record::*held,
                                    std::optional<Resource> Settlement::*after,
                                    store::ResourceRow (*encode)(const Record&),
                                    SettleOne settle_one) {
  std::optional<TimePoint> next_due;
  for (Record& record : records) {
    Resource& resource = record.*held;
    Settlement settled = settle_one(std::as_const(resource));
    next_due = Earliest(next_due, settled.next_due);
    std::optional<Resource>& settled_resource = settled.*after;
    if (!settled_resource) {
      EraseHolding(writer, now, record.key, resource.arn);
    } else if (*settled_resource != resource) {
      resource = std::move(*settled_resource);
      SaveHolding(writer, now, encode(record), domain::HolderOf(resource));
    }
  }
  return next_due;
}

void RemoveHolder(Writer& writer, const store::ResourceKey& key, const std::string& arn,
                  TimePoint at);
// Brings the holdings log in line with `holdings` at `now`, when a server starts: a database from
// before the log, or a clock started earlier than its history, leaves resources holding
// instances without an open stretch (or stretches open for what nothing holds any more).
void ReconcileHoldingsLog(store::StateStore& store, const domain::Holdings& holdings,
                          TimePoint now);

}  // namespace smemu::ops
